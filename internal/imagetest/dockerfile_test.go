package imagetest

import (
	"bufio"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/moby/buildkit/frontend/dockerfile/parser"

	"github.com/mcp-fuzz/mcp-fuzz/internal/box"
)

// root is the repository root, from this package's directory.
const root = "../.."

func parseDockerfile(t *testing.T) []*parser.Node {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := parser.Parse(f)
	if err != nil {
		t.Fatalf("parsing Dockerfile: %v", err)
	}
	return res.AST.Children
}

// args returns the arguments of an instruction.
func args(n *parser.Node) []string {
	var out []string
	for a := n.Next; a != nil; a = a.Next {
		out = append(out, a.Value)
	}
	return out
}

func fromFlag(n *parser.Node) (string, bool) {
	for _, f := range n.Flags {
		if v, ok := strings.CutPrefix(f, "--from="); ok {
			return v, true
		}
	}
	return "", false
}

// goDirective returns the major.minor of go.mod's go directive.
func goDirective(t *testing.T) string {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "go "); ok {
			parts := strings.SplitN(strings.TrimSpace(v), ".", 3)
			if len(parts) < 2 {
				t.Fatalf("go directive %q", v)
			}
			return parts[0] + "." + parts[1]
		}
	}
	t.Fatal("go.mod has no go directive")
	return ""
}

func TestDockerfile(t *testing.T) {
	t.Parallel()
	nodes := parseDockerfile(t)
	var (
		froms       [][]string
		built       []string              // /out/... binaries the build stage writes
		copiedOut   = map[string]string{} // /out/X -> destination
		entrypoint  []string
		copiedLocal = map[string]string{}
		labels      = map[string]bool{}
	)
	for _, n := range nodes {
		a := args(n)
		switch strings.ToLower(n.Value) {
		case "user":
			t.Errorf("line %d: USER %v: the image must run as root (GitHub runs Docker actions as root)", n.StartLine, a)
		case "from":
			froms = append(froms, a)
		case "run":
			words := strings.Fields(strings.Join(a, " "))
			for i, w := range words {
				if w == "-o" && i+2 < len(words) && strings.HasPrefix(words[i+1], "/out/") {
					built = append(built, words[i+1])
					pkg := words[i+2]
					if st, err := os.Stat(filepath.Join(root, pkg)); err != nil || !st.IsDir() {
						t.Errorf("line %d: builds %s from %s, which is not a directory of the repository", n.StartLine, words[i+1], pkg)
					}
				}
			}
			if slices.Contains(words, "build") && !strings.Contains(strings.Join(a, " "), "CGO_ENABLED=0") {
				t.Errorf("line %d: go build without CGO_ENABLED=0 (the runtime image has no Go toolchain libs)", n.StartLine)
			}
		case "copy", "add":
			if len(a) < 2 {
				t.Fatalf("line %d: COPY %v", n.StartLine, a)
			}
			srcs, dst := a[:len(a)-1], a[len(a)-1]
			if from, ok := fromFlag(n); ok {
				if from == "build" {
					for _, s := range srcs {
						copiedOut[s] = dst
					}
				}
				continue
			}
			for _, s := range srcs {
				if _, err := os.Stat(filepath.Join(root, s)); err != nil {
					t.Errorf("line %d: COPY source %s does not exist in the repository", n.StartLine, s)
				}
				copiedLocal[s] = dst
			}
		case "entrypoint":
			if !n.Attributes["json"] {
				t.Errorf("line %d: ENTRYPOINT must use the exec (JSON) form", n.StartLine)
			}
			entrypoint = a
		case "label":
			for i := 0; i+1 < len(a); i += 3 { // key, value, separator
				labels[a[i]] = true
			}
		}
	}

	if len(froms) < 2 {
		t.Fatalf("want a multi-stage build, got FROM %v", froms)
	}
	build := froms[0]
	if len(build) != 3 || !strings.EqualFold(build[1], "AS") || build[2] != "build" {
		t.Errorf("first stage: FROM %v, want FROM golang:X-bookworm AS build", build)
	}
	want := "golang:" + goDirective(t) + "-bookworm"
	if build[0] != want {
		t.Errorf("build image %s, want %s (go.mod's go directive)", build[0], want)
	}
	if rt := froms[len(froms)-1][0]; !strings.HasPrefix(rt, "node:") {
		t.Errorf("runtime image %s, want node:* (the image must carry node/npm/npx)", rt)
	}

	slices.Sort(built)
	var copied []string
	for src := range copiedOut {
		copied = append(copied, src)
	}
	slices.Sort(copied)
	if !slices.Equal(built, copied) {
		t.Errorf("binaries built %v, binaries copied into the runtime image %v", built, copied)
	}
	script, err := os.ReadFile(filepath.Join(root, "entrypoint.sh"))
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"mcp-fuzz", "mcp-fuzz-action"} {
		dst := copiedOut["/out/"+name]
		if dst != "/usr/local/bin/"+name {
			t.Errorf("/out/%s is copied to %q, want /usr/local/bin/%s", name, dst, name)
		}
		if !strings.Contains(string(script), `"$bin/`+name+`"`) {
			t.Errorf("entrypoint.sh does not exec \"$bin/%s\"", name)
		}
	}
	// dash (Debian's sh) drops INPUT_FAIL-UNDER and every other hyphenated
	// input from the environment before the action could read it.
	if first, _, _ := strings.Cut(string(script), "\n"); first != "#!/bin/bash" {
		t.Errorf("entrypoint.sh starts with %q, want #!/bin/bash", first)
	}
	if !strings.Contains(string(script), "${MCP_FUZZ_BIN_DIR:-/usr/local/bin}") {
		t.Error("entrypoint.sh: the default binary directory is not /usr/local/bin")
	}

	if !slices.Equal(entrypoint, []string{"/entrypoint.sh"}) {
		t.Errorf("ENTRYPOINT %v, want [\"/entrypoint.sh\"]", entrypoint)
	}
	if copiedLocal["entrypoint.sh"] != "/entrypoint.sh" {
		t.Errorf("entrypoint.sh is copied to %q, want /entrypoint.sh", copiedLocal["entrypoint.sh"])
	}
	if st, err := os.Stat(filepath.Join(root, "entrypoint.sh")); err == nil && st.Mode()&0o111 == 0 {
		t.Error("entrypoint.sh is not executable (COPY keeps the mode)")
	}
	// The box runs servers as this account when nothing else fits: the
	// image must have it, unprivileged.
	if !slices.ContainsFunc(nodes, func(n *parser.Node) bool {
		return strings.EqualFold(n.Value, "run") && strings.Contains(strings.Join(args(n), " "), "useradd --system --uid 990 --user-group --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin "+box.BoxUser)
	}) {
		t.Errorf("no RUN useradd ... %s: the box needs an unprivileged account in the image", box.BoxUser)
	}
	for _, l := range []string{"source", "description", "licenses", "title"} {
		if !labels["org.opencontainers.image."+l] {
			t.Errorf("no LABEL org.opencontainers.image.%s", l)
		}
	}
}

// TestDockerignore checks that .dockerignore keeps node_modules and .git out
// of the build context without excluding what the Dockerfile copies.
func TestDockerignore(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile(filepath.Join(root, ".dockerignore"))
	if err != nil {
		t.Fatal(err)
	}
	var patterns []string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			patterns = append(patterns, l)
		}
	}
	for _, p := range []string{".git", "node_modules", "e2e/testdata/node_modules"} {
		if !slices.Contains(patterns, p) {
			t.Errorf(".dockerignore does not exclude %s", p)
		}
	}
	for _, keep := range []string{"go.mod", "go.sum", "entrypoint.sh", "cmd/action/main.go", "cmd/mcp-fuzz/main.go"} {
		for _, p := range patterns {
			if ok, _ := path.Match(p, keep); ok {
				t.Errorf(".dockerignore pattern %s excludes %s", p, keep)
			}
		}
	}
}

// TestDockerfileCrossCompiles checks that the Go build stage runs on the
// builder's platform and cross-compiles for the target one, so a multi-arch
// build (linux/arm64 on an amd64 runner) compiles Go natively instead of
// under QEMU: FROM --platform=$BUILDPLATFORM, ARG TARGETOS and TARGETARCH in
// that stage, and every go build given GOOS=$TARGETOS GOARCH=$TARGETARCH. The
// runtime stage must NOT pin a platform: it is the target's.
func TestDockerfileCrossCompiles(t *testing.T) {
	t.Parallel()
	nodes := parseDockerfile(t)
	stage := -1 // index of the current FROM
	var (
		buildArgs = map[string]bool{}
		builds    int
	)
	for _, n := range nodes {
		a := args(n)
		switch strings.ToLower(n.Value) {
		case "from":
			stage++
			var platform string
			for _, f := range n.Flags {
				if v, ok := strings.CutPrefix(f, "--platform="); ok {
					platform = v
				}
			}
			if stage == 0 {
				if platform != "$BUILDPLATFORM" && platform != "${BUILDPLATFORM}" {
					t.Errorf("line %d: build stage FROM has --platform=%q, want --platform=$BUILDPLATFORM (cross-compile; no QEMU for Go)", n.StartLine, platform)
				}
			} else if platform != "" {
				t.Errorf("line %d: runtime stage FROM --platform=%s: the runtime stage must be the target platform", n.StartLine, platform)
			}
		case "arg":
			if stage == 0 {
				for _, v := range a {
					name, _, _ := strings.Cut(v, "=")
					buildArgs[name] = true
				}
			}
		case "run":
			if stage != 0 {
				continue
			}
			// Each `go build` of a && chain must carry its own GOOS/GOARCH.
			for _, cmd := range strings.Split(strings.Join(a, " "), "&&") {
				words := strings.Fields(cmd)
				i := slices.Index(words, "build")
				if i < 1 || words[i-1] != "go" {
					continue
				}
				builds++
				env := words[:i-1]
				for _, want := range [][2]string{{"GOOS", "TARGETOS"}, {"GOARCH", "TARGETARCH"}} {
					if !slices.Contains(env, want[0]+"=$"+want[1]) && !slices.Contains(env, want[0]+"=${"+want[1]+"}") {
						t.Errorf("line %d: %q does not set %s=$%s", n.StartLine, strings.TrimSpace(cmd), want[0], want[1])
					}
				}
			}
		}
	}
	for _, name := range []string{"TARGETOS", "TARGETARCH"} {
		if !buildArgs[name] {
			t.Errorf("the build stage does not declare ARG %s (BuildKit's platform args are not visible in a stage without it)", name)
		}
	}
	if builds == 0 {
		t.Error("the build stage runs no go build")
	}
}
