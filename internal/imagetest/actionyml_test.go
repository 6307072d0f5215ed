package imagetest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/mcp-fuzz/mcp-fuzz/internal/action"
)

// actionFile is the part of action.yml the tests read.
type actionFile struct {
	Name     string
	Branding struct{ Icon, Color string }
	Inputs   yaml.Node
	Outputs  yaml.Node
	Runs     struct{ Using, Image string }
}

type input struct {
	Description string
	Default     *string
}

// keys returns the keys of a YAML mapping in order, and decodes each value.
func keys[T any](t *testing.T, file string, n yaml.Node) ([]string, map[string]T) {
	t.Helper()
	if n.Kind != yaml.MappingNode {
		t.Fatalf("%s: not a mapping", file)
	}
	var names []string
	vals := map[string]T{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		var v T
		if err := n.Content[i+1].Decode(&v); err != nil {
			t.Fatalf("%s: %s: %v", file, n.Content[i].Value, err)
		}
		names = append(names, n.Content[i].Value)
		vals[n.Content[i].Value] = v
	}
	return names, vals
}

func readAction(t *testing.T, rel string) (actionFile, []string, map[string]input, []string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	var f actionFile
	if err := yaml.Unmarshal(b, &f); err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	in, inputs := keys[input](t, rel, f.Inputs)
	out, outputs := keys[input](t, rel, f.Outputs)
	for _, n := range in {
		if inputs[n].Description == "" {
			t.Errorf("%s: input %s has no description", rel, n)
		}
		if inputs[n].Default == nil {
			t.Errorf("%s: input %s has no default", rel, n)
		}
	}
	for _, n := range out {
		if outputs[n].Description == "" {
			t.Errorf("%s: output %s has no description", rel, n)
		}
	}
	return f, in, inputs, out
}

// TestActionYAML checks that action.yml declares exactly the inputs and
// outputs internal/action handles, and that the local twin used by the
// self-test declares the same ones and builds the repository's Dockerfile.
func TestActionYAML(t *testing.T) {
	t.Parallel()
	pub, in, inputs, out := readAction(t, "action.yml")
	if !slices.Equal(in, action.Inputs) {
		t.Errorf("action.yml inputs %v,\ninternal/action handles %v", in, action.Inputs)
	}
	if !slices.Equal(out, action.Outputs) {
		t.Errorf("action.yml outputs %v,\ninternal/action sets %v", out, action.Outputs)
	}
	for name, want := range map[string]string{"github-token": "${{ github.token }}", "comment": "auto"} {
		if d := inputs[name].Default; d == nil || *d != want {
			t.Errorf("input %s: default %v, want %q", name, d, want)
		}
	}
	if pub.Runs.Using != "docker" {
		t.Errorf("action.yml runs.using %q, want docker", pub.Runs.Using)
	}
	if err := checkActionImage(pub.Runs.Image, os.Getenv(releaseImageEnv)); err != nil {
		t.Errorf("action.yml: %v", err)
	}
	if pub.Name == "" || pub.Branding.Icon == "" || pub.Branding.Color == "" {
		t.Errorf("action.yml: name %q, branding %+v: all are needed for the Marketplace", pub.Name, pub.Branding)
	}

	const localPath = ".github/actions/local/action.yml"
	local, lin, linputs, lout := readAction(t, localPath)
	if !slices.Equal(lin, in) || !slices.Equal(lout, out) {
		t.Errorf("%s declares inputs %v outputs %v; action.yml declares %v and %v", localPath, lin, lout, in, out)
	}
	for _, n := range in {
		if a, b := inputs[n].Default, linputs[n].Default; a != nil && b != nil && *a != *b {
			t.Errorf("input %s: default %q in action.yml, %q in %s", n, *a, *b, localPath)
		}
	}
	if local.Runs.Using != "docker" {
		t.Errorf("%s: runs.using %q", localPath, local.Runs.Using)
	}
	if got := filepath.Join(filepath.Dir(localPath), local.Runs.Image); got != "Dockerfile" {
		t.Errorf("%s: image %s resolves to %s, want the root Dockerfile", localPath, local.Runs.Image, got)
	}
}

// releaseImageEnv names the variable release.yml sets, on the release commit
// it just wrote, to the image reference action.yml must now run.
const releaseImageEnv = "MCP_FUZZ_RELEASE_IMAGE"

// pinnedImage is the only form a release's action.yml may run: the image of
// exactly this release, by tag (for people) and digest (for the runner, which
// then ignores the tag). The repository part is github.repository lower-cased,
// so a fork releases to its own package.
var pinnedImage = regexp.MustCompile(`^docker://ghcr\.io/[a-z0-9]+(?:[._-][a-z0-9]+)*/[a-z0-9]+(?:[._-][a-z0-9]+)*:[0-9]+\.[0-9]+\.[0-9]+(?:-[0-9A-Za-z.-]+)?@sha256:[0-9a-f]{64}$`)

// checkActionImage says whether image is a valid runs.image for action.yml.
// Without a release (release == ""), it must be the repository's Dockerfile:
// main's action.yml builds the image of its own commit, so `@main` never runs
// new inputs on an old image, and a release commit merged back into main (or
// a moving tag such as :1 put back) is caught here. On a release commit,
// release.yml passes the reference it wrote, which must be digest-pinned.
func checkActionImage(image, release string) error {
	if release == "" {
		if image != "Dockerfile" {
			return fmt.Errorf("runs.image is %q; on main it must be 'Dockerfile' (release.yml pins a digest on the release commit only; set %s=<ref> to check a release commit)", image, releaseImageEnv)
		}
		return nil
	}
	if !pinnedImage.MatchString(release) {
		return fmt.Errorf("%s=%q is not docker://ghcr.io/OWNER/REPO:X.Y.Z@sha256:<64 hex>", releaseImageEnv, release)
	}
	if image != release {
		return fmt.Errorf("runs.image is %q, want the release's %q", image, release)
	}
	return nil
}

// TestCheckActionImage shows checkActionImage rejects every image reference a release must not ship:
// a moving tag, a tag without digest, a digest without tag, an upper-case or
// non-GHCR name, and a pinned reference on main.
func TestCheckActionImage(t *testing.T) {
	t.Parallel()
	const digest = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	good := "docker://ghcr.io/mcp-fuzz/mcp-fuzz:1.2.3@" + digest
	for _, c := range []struct {
		image, release string
		ok             bool
	}{
		{"Dockerfile", "", true},
		{good, good, true},
		{"docker://ghcr.io/a-fork/mcp-fuzz:0.1.0-rc.1@" + digest, "docker://ghcr.io/a-fork/mcp-fuzz:0.1.0-rc.1@" + digest, true},
		{good, "", false}, // a release commit merged into main
		{"docker://ghcr.io/mcp-fuzz/mcp-fuzz:1", "", false},
		{"Dockerfile", good, false},
		{"docker://ghcr.io/mcp-fuzz/mcp-fuzz:1", "docker://ghcr.io/mcp-fuzz/mcp-fuzz:1", false},
		{"docker://ghcr.io/mcp-fuzz/mcp-fuzz:1.2.3", "docker://ghcr.io/mcp-fuzz/mcp-fuzz:1.2.3", false},
		{"docker://ghcr.io/mcp-fuzz/mcp-fuzz@" + digest, "docker://ghcr.io/mcp-fuzz/mcp-fuzz@" + digest, false},
		{"docker://ghcr.io/Mcp-Fuzz/mcp-fuzz:1.2.3@" + digest, "docker://ghcr.io/Mcp-Fuzz/mcp-fuzz:1.2.3@" + digest, false},
		{"docker://docker.io/mcp-fuzz/mcp-fuzz:1.2.3@" + digest, "docker://docker.io/mcp-fuzz/mcp-fuzz:1.2.3@" + digest, false},
		{"docker://ghcr.io/mcp-fuzz/mcp-fuzz:1.2.3@sha256:abc", "docker://ghcr.io/mcp-fuzz/mcp-fuzz:1.2.3@sha256:abc", false},
		{good, "docker://ghcr.io/mcp-fuzz/mcp-fuzz:1.2.4@" + digest, false},
	} {
		if err := checkActionImage(c.image, c.release); (err == nil) != c.ok {
			t.Errorf("checkActionImage(%q, %q) = %v, want ok=%v", c.image, c.release, err, c.ok)
		}
	}
}
