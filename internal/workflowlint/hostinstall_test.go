package workflowlint

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The install step of host/action.yml is host/install.sh. These tests run it
// with bash, as the runner does, on a PATH holding only the tools it needs
// and fake git, curl and go that log their arguments and serve canned
// answers: a release download, a ls-remote listing, a build.

// lsRemote is what the fake `git ls-remote --tags --heads` prints: v1 is an
// annotated tag on commit c…, the release v1.3.0's commit (v1.3.0-rc.1 and
// v1.2.9 are on it too); main is there as well; dev and v2 are on commits
// with no release; v1.9.0 and v1.10.0 share commit 9….
var lsRemote = strings.Join([]string{
	"cccccccccccccccccccccccccccccccccccccccc\trefs/heads/main",
	"dddddddddddddddddddddddddddddddddddddddd\trefs/heads/dev",
	"9999999999999999999999999999999999999999\trefs/heads/nines",
	"1111111111111111111111111111111111111111\trefs/tags/v1",
	"cccccccccccccccccccccccccccccccccccccccc\trefs/tags/v1^{}",
	"2222222222222222222222222222222222222222\trefs/tags/v1.2.0",
	"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\trefs/tags/v1.2.0^{}",
	"cccccccccccccccccccccccccccccccccccccccc\trefs/tags/v1.2.9",
	"3333333333333333333333333333333333333333\trefs/tags/v1.3.0",
	"cccccccccccccccccccccccccccccccccccccccc\trefs/tags/v1.3.0^{}",
	"cccccccccccccccccccccccccccccccccccccccc\trefs/tags/v1.3.0-rc.1",
	"9999999999999999999999999999999999999999\trefs/tags/v1.9.0",
	"9999999999999999999999999999999999999999\trefs/tags/v1.10.0",
	"eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\trefs/tags/v2",
}, "\n") + "\n"

// installScript returns the path of host/install.sh. It reads the file so
// that go test's cache, which does not see what bash reads, knows the
// results depend on it.
func installScript(t *testing.T) string {
	t.Helper()
	p := filepath.Join(repoRoot(t), "host", "install.sh")
	if _, err := os.ReadFile(p); err != nil {
		t.Fatal(err)
	}
	return p
}

// bashFunc runs one function of host/install.sh with args and stdin.
func bashFunc(t *testing.T, stdin string, fn string, args ...string) string {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := installScript(t)
	cmd := exec.Command(bash, append([]string{"-c", `source "$1"; shift; "$@"`, "bash", script, fn}, args...)...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %q: %v\n%s", fn, args, err, out)
	}
	return strings.TrimSpace(string(out))
}

func TestHostInstallReleaseAt(t *testing.T) {
	for ref, want := range map[string]string{
		"v1":     "v1.3.0", // the major tag: the release on its commit, the highest
		"v1.2.0": "v1.2.0",
		"main":   "v1.3.0", // a branch whose head is a release commit
		"cccccccccccccccccccccccccccccccccccccccc": "v1.3.0",
		"CCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCCC": "v1.3.0",
		"nines":       "v1.10.0", // compared as numbers, not text
		"dev":         "",        // a branch with no release
		"v2":          "",        // a tag with no release on its commit
		"v1.3.0-rc.1": "v1.3.0",
		"nope":        "",
		"dddddddddddddddddddddddddddddddddddddddd": "",
		"ccccccc": "", // a short SHA names nothing
	} {
		if got := bashFunc(t, lsRemote, "release_at", ref); got != want {
			t.Errorf("release_at %s = %q, want %q", ref, got, want)
		}
	}
}

func TestHostInstallRefOfPath(t *testing.T) {
	for path, want := range map[string]string{
		"/home/runner/work/_actions/mcp-fuzz/mcp-fuzz/v1/host":                          "v1",
		"/home/runner/work/_actions/mcp-fuzz/mcp-fuzz/v1.2.3/host/":                     "v1.2.3",
		`D:\a\_actions\mcp-fuzz\mcp-fuzz\0123456789abcdef0123456789abcdef01234567\host`: "0123456789abcdef0123456789abcdef01234567",
		"/home/runner/work/repo/repo/host":                                              "",
		"/home/runner/work/_actions/someone/fork/v1/host":                               "",
		"": "",
	} {
		if got := bashFunc(t, "", "ref_of_path", path); got != want {
			t.Errorf("ref_of_path %s = %q, want %q", path, got, want)
		}
	}
}

// fakeTools writes git, curl and go scripts into dir. Each logs its
// arguments to $FAKE_LOG; git prints $FAKE_LS_REMOTE; curl serves the
// latest-release API answer and files under $FAKE_RELEASES/TAG/NAME; go
// writes a stand-in binary where it is told to.
func fakeTools(t *testing.T, dir string) {
	t.Helper()
	scripts := map[string]string{
		"git": `echo "git $*" >> "$FAKE_LOG"
case "$*" in
  *ls-remote*) [ -z "${FAKE_GIT_FAIL:-}" ] || { echo "fatal: unable to access" >&2; exit 128; }; cat "$FAKE_LS_REMOTE" ;;
  *) exit 1 ;;
esac
`,
		"curl": `echo "curl $*" >> "$FAKE_LOG"
out="" url=""
while [ $# -gt 0 ]; do
  case "$1" in -o) out="$2"; shift ;; -H) shift ;; -*) ;; *) url="$1" ;; esac
  shift
done
case "$url" in
  https://api.github.com/repos/mcp-fuzz/mcp-fuzz/releases/latest) printf '{\n  "url": "x",\n  "tag_name": "v1.4.0",\n  "name": "v1.4.0"\n}\n' ;;
  https://github.com/*/releases/download/*)
    f="$FAKE_RELEASES/${url#https://github.com/*/releases/download/}"
    [ -f "$f" ] || { echo "curl: (22) 404 $url" >&2; exit 22; }
    cp "$f" "$out" ;;
  *) echo "curl: unexpected $url" >&2; exit 6 ;;
esac
`,
		"go": `echo "go $* (in $PWD)" >> "$FAKE_LOG"
case "$1" in
  build) while [ $# -gt 0 ]; do [ "$1" = -o ] && { printf '#!/bin/sh\necho built\n' > "$2"; chmod +x "$2"; }; shift; done ;;
  install) p="${2%@*}"; printf '#!/bin/sh\necho installed\n' > "$GOBIN/${p##*/}"; chmod +x "$GOBIN/${p##*/}" ;;
esac
`,
	}
	for name, body := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// toolsPath returns a directory holding links to the system tools
// install.sh uses, with the fakes; without go when noGo.
func toolsPath(t *testing.T, noGo bool) string {
	t.Helper()
	dir := t.TempDir()
	for _, tool := range []string{"bash", "sh", "awk", "sed", "grep", "cut", "tar", "gzip", "mkdir", "chmod", "mv", "cp", "cat", "printf"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("no %s", tool)
		}
		if err := os.Symlink(p, filepath.Join(dir, tool)); err != nil {
			t.Fatal(err)
		}
	}
	sum := "sha256sum"
	if _, err := exec.LookPath(sum); err != nil {
		sum = "shasum"
	}
	p, err := exec.LookPath(sum)
	if err != nil {
		t.Skip("no sha256sum or shasum")
	}
	if err := os.Symlink(p, filepath.Join(dir, sum)); err != nil {
		t.Fatal(err)
	}
	fakeTools(t, dir)
	if noGo {
		os.Remove(filepath.Join(dir, "go"))
	}
	return dir
}

// releases writes the release assets of each version, as release.yml
// names them, for linux/amd64, with checksums.txt; corrupt gets a wrong
// checksum.
func releases(t *testing.T, corrupt string, versions ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, v := range versions {
		var buf bytes.Buffer
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for _, name := range []string{"mcp-fuzz", "mcp-fuzz-action"} {
			body := fmt.Sprintf("#!/bin/sh\necho %s v%s\n", name, v)
			if err := tw.WriteHeader(&tar.Header{Name: "./" + name, Mode: 0o755, Size: int64(len(body))}); err != nil {
				t.Fatal(err)
			}
			tw.Write([]byte(body))
		}
		tw.Close()
		gz.Close()
		asset := "mcp-fuzz_" + v + "_linux_amd64.tar.gz"
		sum := fmt.Sprintf("%x", sha256.Sum256(buf.Bytes()))
		if v == corrupt {
			sum = strings.Repeat("0", 64)
		}
		d := filepath.Join(dir, "v"+v)
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, asset), buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(d, "checksums.txt"), []byte(sum+"  ./"+asset+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestHostInstall runs host/install.sh as the install step of
// host/action.yml runs it, for each way of choosing the version.
func TestHostInstall(t *testing.T) {
	root := repoRoot(t)
	hostDir := filepath.Join(root, "host")
	for _, tc := range []struct {
		name    string
		env     map[string]string
		noGo    bool
		corrupt string
		// fail: the step fails with this ::error; else log lists the
		// commands run (in order, as prefixes) and version is what the
		// installed mcp-fuzz prints.
		fail string
		log  []string
		// logHas is a string the log must hold somewhere ("": none).
		logHas  string
		version string
	}{
		{name: "@v1: the release v1 points at",
			env:     map[string]string{"ACTION_REF": "v1"},
			log:     []string{"git ls-remote --tags --heads https://github.com/mcp-fuzz/mcp-fuzz", "curl -fsSL --retry 3 -o", "curl"},
			version: "mcp-fuzz v1.3.0"},
		{name: "@v1.2.3: that release, without asking git",
			env:     map[string]string{"ACTION_REF": "v1.2.3"},
			log:     []string{"curl -fsSL --retry 3 -o", "curl"},
			version: "mcp-fuzz v1.2.3"},
		{name: "@SHA of a release: that release",
			env:     map[string]string{"ACTION_REF": strings.Repeat("c", 40)},
			log:     []string{"git ls-remote", "curl", "curl"},
			version: "mcp-fuzz v1.3.0"},
		{name: "@dev, no release: built from the action's source",
			env:     map[string]string{"ACTION_REF": "dev"},
			log:     []string{"git ls-remote", "go build -trimpath -ldflags -X main.version=dev -o", "go build -trimpath -ldflags -X main.version=dev -o"},
			version: "built"},
		{name: "uses: ./host (no ref): built from the action's source",
			log:     []string{"go build", "go build"},
			version: "built"},
		{name: "an empty action_ref: the ref of the action's directory",
			env:     map[string]string{"ACTION_PATH": "/w/_actions/mcp-fuzz/mcp-fuzz/v1.2.3/host"},
			log:     []string{"curl", "curl"},
			version: "mcp-fuzz v1.2.3"},
		{name: "version latest: the latest release, whatever the ref",
			env:     map[string]string{"ACTION_REF": "v1", "VERSION": "latest"},
			log:     []string{"curl -fsSL -H Authorization: Bearer tok -H Accept: application/vnd.github+json https://api.github.com/repos/mcp-fuzz/mcp-fuzz/releases/latest", "curl", "curl"},
			version: "mcp-fuzz v1.4.0"},
		{name: "version 1.2.3",
			env:     map[string]string{"ACTION_REF": "main", "VERSION": "1.2.3"},
			log:     []string{"curl", "curl"},
			version: "mcp-fuzz v1.2.3"},
		{name: "build-from-source with a version: go install",
			env:     map[string]string{"ACTION_REF": "v1", "VERSION": "1.2.3", "FROM_SOURCE": "true"},
			log:     []string{"go install github.com/mcp-fuzz/mcp-fuzz/cmd/mcp-fuzz@v1.2.3", "go install github.com/mcp-fuzz/mcp-fuzz/cmd/action@v1.2.3"},
			version: "installed"},
		{name: "build-from-source without a version: the action's source",
			env:     map[string]string{"ACTION_REF": "v1", "FROM_SOURCE": "true"},
			log:     []string{"go build -trimpath -ldflags -X main.version=v1", "go build"},
			version: "built"},
		{name: "a fork's action: the fork's releases; go install keeps the module path",
			env:     map[string]string{"ACTION_REF": "v1.2.3", "ACTION_REPOSITORY": "someone/mcp-fuzz-fork"},
			log:     []string{"curl -fsSL --retry 3 -o", "curl"},
			logHas:  "https://github.com/someone/mcp-fuzz-fork/releases/download/v1.2.3/",
			version: "mcp-fuzz v1.2.3"},
		{name: "a fork's action, build-from-source with a version",
			env:     map[string]string{"ACTION_REF": "v1", "ACTION_REPOSITORY": "someone/mcp-fuzz-fork", "VERSION": "1.2.3", "FROM_SOURCE": "true"},
			log:     []string{"go install github.com/mcp-fuzz/mcp-fuzz/cmd/mcp-fuzz@v1.2.3", "go install github.com/mcp-fuzz/mcp-fuzz/cmd/action@v1.2.3"},
			version: "installed"},
		{name: "a bad version", env: map[string]string{"VERSION": "one"},
			fail: "::error::version 'one': want latest, v1.2.3 or 1.2.3"},
		{name: "no release and no Go", env: map[string]string{"ACTION_REF": "dev"}, noGo: true,
			fail: "::error::building mcp-fuzz from source (mcp-fuzz/mcp-fuzz/host@dev) needs Go on the runner: add actions/setup-go"},
		{name: "@v1 when git ls-remote fails: says so, not that v1 is no release",
			env: map[string]string{"ACTION_REF": "v1", "FAKE_GIT_FAIL": "1"}, noGo: true,
			fail: "git ls-remote https://github.com/mcp-fuzz/mcp-fuzz failed, so whether mcp-fuzz/mcp-fuzz/host@v1 is a release is unknown"},
		{name: "a release that was never published", env: map[string]string{"ACTION_REF": "v9.9.9"},
			fail: "404 https://github.com/mcp-fuzz/mcp-fuzz/releases/download/v9.9.9/mcp-fuzz_9.9.9_linux_amd64.tar.gz"},
		{name: "a corrupt download", env: map[string]string{"ACTION_REF": "v1.2.3"}, corrupt: "1.2.3",
			fail: "::error::checksum mismatch for mcp-fuzz_1.2.3_linux_amd64.tar.gz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tmp := t.TempDir()
			env := map[string]string{
				"PATH":           toolsPath(t, tc.noGo),
				"HOME":           tmp,
				"RUNNER_TEMP":    filepath.Join(tmp, "runner-temp"),
				"GITHUB_PATH":    filepath.Join(tmp, "path"),
				"GITHUB_OUTPUT":  filepath.Join(tmp, "output"),
				"RUNNER_OS_NAME": "Linux", "RUNNER_ARCH_NAME": "X64",
				"GH_TOKEN": "tok", "FROM_SOURCE": "false",
				"ACTION_PATH":    hostDir,
				"FAKE_LOG":       filepath.Join(tmp, "log"),
				"FAKE_LS_REMOTE": filepath.Join(tmp, "ls-remote"),
				"FAKE_RELEASES":  releases(t, tc.corrupt, "1.2.3", "1.3.0", "1.4.0"),
			}
			for k, v := range tc.env {
				env[k] = v
			}
			if err := os.WriteFile(env["FAKE_LS_REMOTE"], []byte(lsRemote), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(filepath.Join(env["PATH"], "bash"), installScript(t))
			for k, v := range env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			out, err := cmd.CombinedOutput()
			logb, _ := os.ReadFile(env["FAKE_LOG"])
			log := strings.Split(strings.TrimSpace(string(logb)), "\n")
			if tc.fail != "" {
				if err == nil || !strings.Contains(string(out), tc.fail) {
					t.Errorf("err %v, want a failure saying %q:\n%s", err, tc.fail, out)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s\nlog:\n%s", err, out, logb)
			}
			if len(log) != len(tc.log) {
				t.Errorf("ran:\n%s\nwant %d commands starting\n%s", logb, len(tc.log), strings.Join(tc.log, "\n"))
			} else {
				for i := range log {
					if !strings.HasPrefix(log[i], tc.log[i]) {
						t.Errorf("command %d: %s\nwant it to start %s", i, log[i], tc.log[i])
					}
				}
			}
			if tc.logHas != "" && !strings.Contains(string(logb), tc.logHas) {
				t.Errorf("ran:\n%s\nwant the log to hold %s", logb, tc.logHas)
			}
			if strings.HasPrefix(tc.log[0], "go build") && !strings.Contains(log[0], "(in "+root+")") {
				t.Errorf("not built in the action's checkout: %s", log[0])
			}
			bin := filepath.Join(env["RUNNER_TEMP"], "mcp-fuzz", "bin")
			for _, name := range []string{"mcp-fuzz", "mcp-fuzz-action"} {
				if _, err := os.Stat(filepath.Join(bin, name)); err != nil {
					t.Errorf("%s not installed: %v", name, err)
				}
			}
			if !strings.Contains(string(out), tc.version) {
				t.Errorf("mcp-fuzz --version did not print %q:\n%s", tc.version, out)
			}
			if p, _ := os.ReadFile(env["GITHUB_PATH"]); strings.TrimSpace(string(p)) != bin {
				t.Errorf("GITHUB_PATH %q, want %q", p, bin)
			}
			if o, _ := os.ReadFile(env["GITHUB_OUTPUT"]); strings.TrimSpace(string(o)) != "bin="+bin {
				t.Errorf("GITHUB_OUTPUT %q, want bin=%s", o, bin)
			}
		})
	}
}

// TestHostActionFollowsItsRef checks the wiring of host/action.yml's
// install step: the version defaults to the ref the action is used at
// (github.action_ref, which a composite action's script reads through env
// only), and the step runs install.sh, which the tests above drive.
func TestHostActionFollowsItsRef(t *testing.T) {
	root := repoRoot(t)
	host, ok := readAction(t, filepath.Join(root, "host", "action.yml"))
	if !ok {
		t.Fatal("host/action.yml is missing")
	}
	if d := defaultOf(t, host.Inputs["version"]); d != "" {
		t.Errorf("input version defaults to %q: want empty (the ref the action is used at), so host@v1 never installs another major", d)
	}
	var install map[string]string
	for _, s := range host.Runs.Steps {
		if s.ID == "install" {
			install = s.Env
			if s.Run != `bash "$ACTION_PATH/install.sh"` {
				t.Errorf("the install step runs %q, want bash \"$ACTION_PATH/install.sh\"", s.Run)
			}
		}
		if strings.Contains(s.Run, "${{") {
			t.Errorf("step %s expands an expression in run: (pass it through env): %q", s.ID, s.Run)
		}
	}
	for k, want := range map[string]string{
		"VERSION":           "${{ inputs.version }}",
		"FROM_SOURCE":       "${{ inputs.build-from-source }}",
		"ACTION_REF":        "${{ github.action_ref }}",
		"ACTION_REPOSITORY": "${{ github.action_repository }}",
		"ACTION_PATH":       "${{ github.action_path }}",
	} {
		if install[k] != want {
			t.Errorf("install step env %s = %q, want %q", k, install[k], want)
		}
	}
	// shellcheck, where it is installed.
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		if out, err := exec.Command(sc, installScript(t)).CombinedOutput(); err != nil {
			t.Errorf("shellcheck host/install.sh: %v\n%s", err, out)
		}
	} else {
		t.Log("shellcheck is not installed: host/install.sh not checked")
	}
}
