package workflowlint

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"
)

// workflow is the part of a workflow file the release checks read.
type workflow struct {
	Jobs map[string]*job `yaml:"jobs"`
}

type job struct {
	Needs       yaml.Node `yaml:"needs"`
	Permissions yaml.Node `yaml:"permissions"`
	Steps       []step    `yaml:"steps"`
}

type step struct {
	ID   string            `yaml:"id"`
	If   string            `yaml:"if"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
	Env  map[string]string `yaml:"env"`
}

func (j *job) needs() []string {
	switch j.Needs.Kind {
	case yaml.ScalarNode:
		return []string{j.Needs.Value}
	case yaml.SequenceNode:
		var out []string
		for _, n := range j.Needs.Content {
			out = append(out, n.Value)
		}
		return out
	}
	return nil
}

// dependsOn says whether job name needs target, directly or not.
func (w *workflow) dependsOn(name, target string) bool {
	seen := map[string]bool{}
	var walk func(string) bool
	walk = func(n string) bool {
		if seen[n] {
			return false
		}
		seen[n] = true
		j := w.Jobs[n]
		if j == nil {
			return false
		}
		for _, d := range j.needs() {
			if d == target || walk(d) {
				return true
			}
		}
		return false
	}
	return walk(name)
}

// moveTag matches a step that moves a tag users follow: a forced git push of
// tags, or an image tag re-pointed with imagetools.
var moveTag = regexp.MustCompile(`git push (--force|-f)\b|imagetools create`)

// releaseProblems checks the promises release.yml makes: the image
// is named from github.repository, an anonymous pull of the pushed digest
// gates every moving tag and the vX.Y.Z tag itself, action.yml is pinned to
// that digest, and the released action.yml is run before tags move.
func releaseProblems(w *workflow, text string) []string {
	var probs []string
	add := func(f string, a ...any) { probs = append(probs, fmt.Sprintf(f, a...)) }

	if strings.Contains(strings.ToLower(text), "ghcr.io/mcp-fuzz") {
		add("the image name is hard-coded: derive it from github.repository so forks can release")
	}
	if !regexp.MustCompile(`\$\{[A-Z_]+,,\}`).MatchString(text) || !strings.Contains(text, "${{ github.repository }}") {
		add("no image name from github.repository lower-cased (${REPOSITORY,,})")
	}

	// The anonymous pull: docker pull with a fresh DOCKER_CONFIG, in a job
	// that has no token and never logs in.
	var anon []string
	for name, j := range w.Jobs {
		fresh, pull, login := false, false, false
		for _, s := range j.Steps {
			if strings.Contains(s.Run, `DOCKER_CONFIG="$(mktemp -d)"`) {
				fresh = true
			}
			if strings.Contains(s.Run, "docker pull") && strings.Contains(s.Env["REF"], "@${{ needs.image.outputs.digest }}") {
				pull = true
			}
			if strings.HasPrefix(s.Uses, "docker/login-action") {
				login = true
			}
		}
		if !pull {
			continue
		}
		switch {
		case !fresh:
			add("job %s pulls without a fresh DOCKER_CONFIG: stored credentials would hide a private package", name)
		case login:
			add("job %s logs in before its anonymous pull", name)
		case j.Permissions.Kind != yaml.MappingNode || len(j.Permissions.Content) != 0:
			add("job %s must have `permissions: {}` (no token at all)", name)
		default:
			anon = append(anon, name)
		}
	}
	if len(anon) == 0 {
		add("no job pulls the pushed digest anonymously")
	}
	gated := func(name string) bool {
		for _, a := range anon {
			if w.dependsOn(name, a) {
				return true
			}
		}
		return false
	}

	var movers, pinners, runsReleased []string
	for name, j := range w.Jobs {
		for _, s := range j.Steps {
			if moveTag.MatchString(s.Run) {
				movers = append(movers, name)
			}
			if strings.Contains(s.Run, `git push origin "refs/tags/$TAG"`) {
				pinners = append(pinners, name)
				if !strings.HasSuffix(s.Env["PINNED"], "@${{ needs.image.outputs.digest }}") || !strings.HasPrefix(s.Env["PINNED"], "docker://") {
					add("job %s tags a release whose action.yml is not pinned to docker://IMAGE:X.Y.Z@DIGEST (PINNED=%q)", name, s.Env["PINNED"])
				}
				if !strings.Contains(s.Run, `MCP_FUZZ_RELEASE_IMAGE="$PINNED" go test ./internal/imagetest`) {
					add("job %s does not check the pinned action.yml with internal/imagetest", name)
				}
			}
			if strings.HasPrefix(s.Uses, "./") {
				runsReleased = append(runsReleased, name)
			}
		}
	}
	if len(movers) == 0 {
		add("no job moves vX/vX.Y or the image tags")
	}
	if len(pinners) == 0 {
		add("no job pushes the vX.Y.Z tag of a release commit")
	}
	if len(runsReleased) == 0 {
		add("no job runs the released action.yml (uses: ./<tag checkout>)")
	}
	for _, m := range append(append([]string{}, movers...), pinners...) {
		if !gated(m) {
			add("job %s moves or pushes tags without needing the anonymous pull (%v)", m, anon)
		}
	}
	for _, m := range movers {
		for _, r := range runsReleased {
			if !w.dependsOn(m, r) {
				add("job %s moves tags before job %s has run the released action.yml", m, r)
			}
		}
	}
	slices.Sort(probs)
	return probs
}

func readRelease(t *testing.T) (*workflow, string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), ".github", "workflows", "release.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	return &w, string(b)
}

func TestReleaseWorkflowGatesTagsOnAnonymousPull(t *testing.T) {
	w, text := readRelease(t)
	for _, p := range releaseProblems(w, text) {
		t.Error(p)
	}
}

// TestReleaseChecksCatchRegressions breaks release.yml in the ways a release
// could go wrong and expects releaseProblems to notice each.
func TestReleaseChecksCatchRegressions(t *testing.T) {
	cases := []struct {
		name  string
		edit  func(w *workflow, text string) (*workflow, string)
		wants string
	}{
		{"tags move without the pull", func(w *workflow, text string) (*workflow, string) {
			for name, j := range w.Jobs {
				if name == "publish" || name == "release" {
					var keep []*yaml.Node
					for _, n := range j.Needs.Content {
						if n.Value != "pull" {
							keep = append(keep, n)
						}
					}
					j.Needs.Content = keep
				}
			}
			return w, text
		}, "without needing the anonymous pull"},
		{"pull with the runner's credentials", func(w *workflow, text string) (*workflow, string) {
			for _, j := range w.Jobs {
				for i := range j.Steps {
					j.Steps[i].Run = strings.ReplaceAll(j.Steps[i].Run, `DOCKER_CONFIG="$(mktemp -d)"`, `DOCKER_CONFIG="$HOME/.docker"`)
				}
			}
			return w, text
		}, "fresh DOCKER_CONFIG"},
		{"hard-coded image", func(w *workflow, text string) (*workflow, string) {
			return w, text + "\n# IMAGE: ghcr.io/mcp-fuzz/mcp-fuzz\n"
		}, "hard-coded"},
		{"moving tag pinned", func(w *workflow, text string) (*workflow, string) {
			for _, j := range w.Jobs {
				for i := range j.Steps {
					if p, ok := j.Steps[i].Env["PINNED"]; ok {
						j.Steps[i].Env["PINNED"] = strings.SplitN(p, ":${{", 2)[0] + ":1"
					}
				}
			}
			return w, text
		}, "not pinned"},
		{"released action never run", func(w *workflow, text string) (*workflow, string) {
			delete(w.Jobs, "action")
			return w, text
		}, "no job runs the released action.yml"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w, text := readRelease(t)
			w, text = c.edit(w, text)
			probs := releaseProblems(w, text)
			if !slices.ContainsFunc(probs, func(p string) bool { return strings.Contains(p, c.wants) }) {
				t.Errorf("want a problem containing %q, got %q", c.wants, probs)
			}
		})
	}
}

// TestSelfTestRunsBothActions: self-test.yml runs the local Dockerfile variant
// and, guarded on a release existing, the published action.yml of a release
// checked out at its tag.
func TestSelfTestRunsBothActions(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), ".github", "workflows", "self-test.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	local, published := false, false
	for name, j := range w.Jobs {
		checkouts := map[string]bool{} // paths of checkouts at another ref
		for _, s := range j.Steps {
			if strings.HasPrefix(s.Uses, "actions/checkout") && s.With["ref"] != "" && s.With["path"] != "" {
				checkouts["./"+s.With["path"]] = true
			}
			switch {
			case s.Uses == "./.github/actions/local":
				local = true
			case checkouts[s.Uses]:
				published = true
				if s.If == "" {
					t.Errorf("job %s runs the published action without a guard on a release existing", name)
				}
			}
		}
	}
	if !local {
		t.Error("self-test.yml never runs ./.github/actions/local (the Dockerfile build)")
	}
	if !published {
		t.Error("self-test.yml never runs a released action.yml checked out at its tag")
	}
}
