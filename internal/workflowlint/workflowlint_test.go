package workflowlint

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"
)

// repoRoot is the repository root, two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("repository root not found at %s: %v", root, err)
	}
	return root
}

// newLinter returns an actionlint linter with the external shellcheck and
// pyflakes integrations off (empty executables): those binaries are not
// installed everywhere the tests run.
func newLinter(t *testing.T, root string) *actionlint.Linter {
	t.Helper()
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{
		Shellcheck: "",
		Pyflakes:   "",
		WorkingDir: root,
	})
	if err != nil {
		t.Fatalf("creating the linter: %v", err)
	}
	return l
}

// lint runs actionlint over one workflow file. The repository is the project,
// so a local action (uses: ./...) is checked against its metadata when it
// exists.
func lint(t *testing.T, root, path string) []*actionlint.Error {
	t.Helper()
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatalf("opening project %s: %v", root, err)
	}
	errs, err := newLinter(t, root).LintFile(path, proj)
	if err != nil {
		t.Fatalf("linting %s: %v", path, err)
	}
	return errs
}

func format(root string, errs []*actionlint.Error) string {
	var b strings.Builder
	for _, e := range errs {
		p := e.Filepath
		if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
			p = r
		}
		b.WriteString(p)
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Line))
		b.WriteString(":")
		b.WriteString(strconv.Itoa(e.Column))
		b.WriteString(": ")
		b.WriteString(e.Message)
		b.WriteString(" [")
		b.WriteString(e.Kind)
		b.WriteString("]\n")
	}
	return b.String()
}

// workflowFiles lists .github/workflows/*.y{a,}ml and examples/*.y{a,}ml
// except the GitLab example.
func workflowFiles(t *testing.T, root string) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{".github/workflows", "examples"} {
		entries, err := os.ReadDir(filepath.Join(root, dir))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			name := e.Name()
			if e.IsDir() || !(strings.HasSuffix(name, ".yml") || strings.HasSuffix(name, ".yaml")) {
				continue
			}
			if name == "gitlab-ci.yml" {
				continue
			}
			files = append(files, filepath.Join(root, dir, name))
		}
	}
	sort.Strings(files)
	return files
}

func TestWorkflowsPassActionlint(t *testing.T) {
	root := repoRoot(t)
	files := workflowFiles(t, root)
	if len(files) == 0 {
		t.Fatal("no workflow files found under .github/workflows or examples")
	}
	for _, f := range files {
		rel, _ := filepath.Rel(root, f)
		t.Run(rel, func(t *testing.T) {
			if errs := lint(t, root, f); len(errs) > 0 {
				t.Errorf("actionlint found %d problem(s):\n%s", len(errs), format(root, errs))
			}
		})
	}
}

// TestLinterCatchesBrokenWorkflows proves the test above can fail: each
// broken workflow must yield at least one error containing want.
func TestLinterCatchesBrokenWorkflows(t *testing.T) {
	root := repoRoot(t)
	cases := []struct {
		name, workflow, want string
	}{
		{
			name: "ok",
			workflow: `on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo hi
`,
		},
		{
			name: "unknown key",
			workflow: `on: push
jobs:
  a:
    runs-on: ubuntu-latest
    stepz:
      - run: echo hi
`,
			want: `unexpected key "stepz"`,
		},
		{
			name: "undefined step output",
			workflow: `on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo "${{ steps.nope.outputs.grade }}"
`,
			want: `property "nope" is not defined`,
		},
		{
			name: "bad event",
			workflow: `on: pull_requestt
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo hi
`,
			want: `unknown Webhook event "pull_requestt"`,
		},
		{
			name: "invalid permission",
			workflow: `on: push
permissions:
  pull-request: write
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - run: echo hi
`,
			want: `unknown permission scope "pull-request"`,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "broken.yml")
			if err := os.WriteFile(path, []byte(c.workflow), 0o644); err != nil {
				t.Fatal(err)
			}
			errs := lint(t, root, path)
			got := format(root, errs)
			if c.want == "" {
				if len(errs) != 0 {
					t.Errorf("want no errors, got:\n%s", got)
				}
				return
			}
			if len(errs) == 0 {
				t.Fatalf("want an error containing %q, got none", c.want)
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("want an error containing %q, got:\n%s", c.want, got)
			}
			if !strings.Contains(got, "broken.yml:") {
				t.Errorf("errors do not name file:line:\n%s", got)
			}
		})
	}
}

// actionMeta is the part of an action.yml this test compares.
type actionMeta struct {
	Name    string               `yaml:"name"`
	Inputs  map[string]yaml.Node `yaml:"inputs"`
	Outputs map[string]yaml.Node `yaml:"outputs"`
	Runs    struct {
		Using string `yaml:"using"`
		Image string `yaml:"image"`
		Steps []struct {
			ID  string            `yaml:"id"`
			Run string            `yaml:"run"`
			Env map[string]string `yaml:"env"`
		} `yaml:"steps"`
	} `yaml:"runs"`
}

func readAction(t *testing.T, path string) (*actionMeta, bool) {
	t.Helper()
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		t.Fatal(err)
	}
	var m actionMeta
	if err := yaml.Unmarshal(b, &m); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if m.Name == "" {
		t.Errorf("%s: name is empty", path)
	}
	return &m, true
}

// defaultOf returns an input's default ("" when it has none).
// sameMeaningInputs are the inputs whose host/action.yml description must
// be action.yml's word for word: what they make the audit do does not
// depend on where mcp-fuzz runs.
var sameMeaningInputs = []string{"no-calls", "repeat", "era", "protocol-version", "concurrency", "sequential", "protocol"}

func descriptionOf(t *testing.T, n yaml.Node) string {
	t.Helper()
	var in struct {
		Description string `yaml:"description"`
	}
	if err := n.Decode(&in); err != nil {
		t.Fatalf("decoding input at line %d: %v", n.Line, err)
	}
	return in.Description
}

func defaultOf(t *testing.T, n yaml.Node) string {
	t.Helper()
	var in struct {
		Default string `yaml:"default"`
	}
	if err := n.Decode(&in); err != nil {
		t.Fatalf("decoding input at line %d: %v", n.Line, err)
	}
	return in.Default
}

func keys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// specInputs and specOutputs are the action's interface (docs/BEHAVIOUR.md#the-github-action).
var (
	specInputs = []string{
		"command", "url", "headers", "env", "pass-env", "working-directory",
		"include-destructive", "tools", "skip-tools", "cases", "seed", "timeout",
		"startup-timeout", "concurrency", "sequential", "protocol", "config",
		"fail-under", "fail-on", "baseline", "comment", "comment-key",
		"github-token", "sarif", "report", "secrets",
	}
	specOutputs = []string{
		"score", "grade", "passed", "crashes", "findings", "report-path",
		"sarif-path", "badge-url",
	}
)

// The action declares every input and output docs/BEHAVIOUR.md#the-github-action names.
func TestActionHasTheSpecInterface(t *testing.T) {
	m, ok := readAction(t, filepath.Join(repoRoot(t), "action.yml"))
	if !ok {
		t.Fatal("action.yml is missing")
	}
	for _, in := range specInputs {
		if _, ok := m.Inputs[in]; !ok {
			t.Errorf("action.yml has no input %q", in)
		}
	}
	for _, out := range specOutputs {
		if _, ok := m.Outputs[out]; !ok {
			t.Errorf("action.yml has no output %q", out)
		}
	}
}

func TestHostActionMatchesRootAction(t *testing.T) {
	root := repoRoot(t)
	host, ok := readAction(t, filepath.Join(root, "host", "action.yml"))
	if !ok {
		t.Fatal("host/action.yml is missing")
	}
	if host.Runs.Using != "composite" {
		t.Errorf("host/action.yml: runs.using = %q, want composite", host.Runs.Using)
	}

	// The host variant hands every input to mcp-fuzz-action as the INPUT_*
	// variable GitHub sets for a Docker action.
	var runEnv map[string]string
	for _, s := range host.Runs.Steps {
		if strings.Contains(s.Run, "mcp-fuzz-action") {
			runEnv = s.Env
		}
	}
	if runEnv == nil {
		t.Fatal("host/action.yml: no step runs mcp-fuzz-action")
	}
	for _, in := range keys(host.Inputs) {
		if in == "version" || in == "build-from-source" {
			continue
		}
		v := "INPUT_" + strings.ToUpper(in)
		if want := "${{ inputs." + in + " }}"; runEnv[v] != want {
			t.Errorf("host/action.yml: env %s = %q, want %q", v, runEnv[v], want)
		}
	}
	for _, extra := range []string{"version", "build-from-source"} {
		if _, ok := host.Inputs[extra]; !ok {
			t.Errorf("host/action.yml: input %q missing", extra)
		}
	}

	rootAction, ok := readAction(t, filepath.Join(root, "action.yml"))
	if !ok {
		t.Fatal("action.yml is missing")
	}
	for _, in := range keys(rootAction.Inputs) {
		if _, ok := host.Inputs[in]; !ok {
			t.Errorf("host/action.yml lacks input %q of action.yml", in)
		}
	}
	for _, out := range keys(rootAction.Outputs) {
		if _, ok := host.Outputs[out]; !ok {
			t.Errorf("host/action.yml lacks output %q of action.yml", out)
		}
	}
	for _, in := range keys(host.Inputs) {
		if in == "version" || in == "build-from-source" {
			continue
		}
		r, ok := rootAction.Inputs[in]
		if !ok {
			t.Errorf("host/action.yml has input %q that action.yml lacks", in)
			continue
		}
		// Same defaults, so an omitted input behaves the same in both.
		if got, want := defaultOf(t, host.Inputs[in]), defaultOf(t, r); got != want {
			t.Errorf("host/action.yml: input %q default %q, action.yml has %q", in, got, want)
		}
	}
	// Inputs that mean the same on the runner as in the container are
	// described alike: the host file once told users that sequential
	// called one tool at a time (it creates and deletes resources), that
	// protocol was a version and that concurrency counted calls in flight.
	for _, in := range sameMeaningInputs {
		if got, want := descriptionOf(t, host.Inputs[in]), descriptionOf(t, rootAction.Inputs[in]); got != want {
			t.Errorf("host/action.yml: input %q is described\n  %q\naction.yml says\n  %q", in, got, want)
		}
	}
	// action.yml's runs.image (the Dockerfile on main, a digest on a release
	// commit) is checked by internal/imagetest's checkActionImage.

	local, ok := readAction(t, filepath.Join(root, ".github", "actions", "local", "action.yml"))
	if !ok {
		t.Log(".github/actions/local/action.yml does not exist yet; not compared")
		return
	}
	if got, want := keys(local.Inputs), keys(rootAction.Inputs); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf(".github/actions/local/action.yml inputs %v differ from action.yml %v", got, want)
	}
	if got, want := keys(local.Outputs), keys(rootAction.Outputs); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf(".github/actions/local/action.yml outputs %v differ from action.yml %v", got, want)
	}
	if local.Runs.Image != "../../../Dockerfile" {
		t.Errorf(".github/actions/local/action.yml: runs.image = %q, want ../../../Dockerfile", local.Runs.Image)
	}
}

// TestHostActionLintsWhenUsed lints a workflow that uses ./host with every
// input, so actionlint checks the composite action's metadata (runs.steps,
// input names) the way it would for a user.
func TestHostActionLintsWhenUsed(t *testing.T) {
	root := repoRoot(t)
	host, ok := readAction(t, filepath.Join(root, "host", "action.yml"))
	if !ok {
		t.Fatal("host/action.yml is missing")
	}
	var with strings.Builder
	for _, in := range keys(host.Inputs) {
		with.WriteString("          " + in + ": x\n")
	}
	wf := `on: push
jobs:
  a:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - id: fuzz
        uses: ./host
        with:
` + with.String() + `      - run: echo "$GRADE"
        env:
          GRADE: ${{ steps.fuzz.outputs.grade }}
`
	proj, err := actionlint.NewProject(root)
	if err != nil {
		t.Fatal(err)
	}
	errs, err := newLinter(t, root).Lint(filepath.Join(root, ".github", "workflows", "host-usage.yml"), []byte(wf), proj)
	if err != nil {
		t.Fatal(err)
	}
	if len(errs) > 0 {
		t.Errorf("a workflow using ./host does not lint:\n%s", format(root, errs))
	}
	// A misspelt input must be caught, or the check above proves nothing.
	bad := strings.Replace(wf, "fail-under: x", "fail-undr: x", 1)
	errs, err = newLinter(t, root).Lint(filepath.Join(root, ".github", "workflows", "host-usage.yml"), []byte(bad), proj)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(format(root, errs), `input "fail-undr" is not defined`) {
		t.Errorf("a misspelt input of ./host was not reported; got:\n%s", format(root, errs))
	}
}

func TestGitLabExample(t *testing.T) {
	root := repoRoot(t)
	b, err := os.ReadFile(filepath.Join(root, "examples", "gitlab-ci.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]yaml.Node
	if err := yaml.Unmarshal(b, &doc); err != nil {
		t.Fatalf("examples/gitlab-ci.yml is not valid YAML: %v", err)
	}
	type job struct {
		Image     yaml.Node `yaml:"image"`
		Script    []string  `yaml:"script"`
		Artifacts struct {
			Reports struct {
				JUnit string `yaml:"junit"`
			} `yaml:"reports"`
		} `yaml:"artifacts"`
	}
	found := false
	for name, n := range doc {
		var j job
		if err := n.Decode(&j); err != nil || len(j.Script) == 0 {
			continue // stages, variables, ...
		}
		image := j.Image.Value
		if j.Image.Kind == yaml.MappingNode {
			var im struct {
				Name string `yaml:"name"`
			}
			if err := j.Image.Decode(&im); err != nil {
				t.Fatalf("job %s: image: %v", name, err)
			}
			image = im.Name
		}
		if !strings.HasPrefix(image, "ghcr.io/mcp-fuzz/mcp-fuzz:") {
			continue
		}
		found = true
		script := strings.Join(j.Script, "\n")
		for _, want := range []string{"-o junit.xml", "-o gl-sast.sarif", "--fail-under 80"} {
			if !strings.Contains(script, want) {
				t.Errorf("job %s: script lacks %q", name, want)
			}
		}
		if j.Artifacts.Reports.JUnit != "junit.xml" {
			t.Errorf("job %s: artifacts.reports.junit = %q, want junit.xml", name, j.Artifacts.Reports.JUnit)
		}
	}
	if !found {
		t.Error("examples/gitlab-ci.yml has no job using the ghcr.io/mcp-fuzz/mcp-fuzz image")
	}
}
