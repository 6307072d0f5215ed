package action

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sethvargo/go-githubactions"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/internal/secret"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Exit codes (docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes): see the audit package.
const (
	ExitOK      = audit.ExitOK
	ExitGate    = audit.ExitGate
	ExitUsage   = audit.ExitUsage
	ExitConnect = audit.ExitConnect
	// ExitInterrupted: the run was cancelled (the partial report is written).
	ExitInterrupted = audit.ExitInterrupted
)

// Env is the environment the action runs in, injected so that tests run it
// in-process.
type Env struct {
	Getenv func(string) string
	// Environ lists the whole environment, as os.Environ does, for the
	// secrets of mcp-fuzz's own (its GITHUB_TOKEN, ACTIONS_RUNTIME_TOKEN, the
	// github-token input; see [secret.Own]); nil: none.
	Environ    func() []string
	Stdout     io.Writer // workflow commands and logs
	Stderr     io.Writer // progress
	HTTPClient *http.Client
	Version    string // recorded in the report
	// CommentClient connects to GitHub for the pull request comment, which
	// package comment upserts; nil means go-github over HTTPClient.
	CommentClient CommentClientFunc
}

// Run runs the action and returns the process exit code: 0 done, 1 a gate
// missed, 2 bad inputs, 3 the target could not be started or connected.
// Commenting never changes the exit code.
func Run(ctx context.Context, env Env) int {
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	if env.HTTPClient == nil {
		env.HTTPClient = http.DefaultClient
	}
	// Every ::error and ::warning goes through count, so the annotations of
	// findings get the places the others leave.
	count := &annotationCounter{w: env.Stdout}
	env.Stdout = count
	gh := githubactions.New(githubactions.WithGetenv(env.Getenv), githubactions.WithWriter(count))
	// Secrets are masked before anything else is printed.
	r := &runner{env: env, gh: gh, count: count, masked: map[string]bool{}}
	r.mask(secretsOf(gh.GetInput, env.Getenv))
	own := r.own()
	for _, name := range slices.Sorted(maps.Keys(own)) {
		r.mask([]string{own[name]})
	}
	return r.run(ctx)
}

type runner struct {
	env    Env
	gh     *githubactions.Action
	count  *annotationCounter // what gh and env.Stdout printed
	s      settings
	masked map[string]bool
	// sarif locates the results of the sarif output (see sarif.go).
	sarif render.SARIFOptions
}

// mask hides each value in the job log, once.
func (r *runner) mask(values []string) {
	for _, v := range values {
		if !r.masked[v] {
			r.masked[v] = true
			r.gh.AddMask(v)
		}
	}
}

// own returns the secrets of mcp-fuzz's own environment: see [secret.Own].
func (r *runner) own() map[string]string {
	if r.env.Environ == nil {
		return nil
	}
	return secret.Own(r.env.Environ())
}

func (r *runner) lookup(name string) (string, bool) {
	v := r.env.Getenv(name)
	return v, v != ""
}

func (r *runner) run(ctx context.Context) int {
	ws := r.env.Getenv("GITHUB_WORKSPACE")
	if ws == "" {
		ws, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(ws); err == nil {
		ws = abs
	}
	s, err := readInputs(r.gh.GetInput, ws)
	if err != nil {
		return r.usage(err)
	}
	r.s = s
	for _, w := range s.warnings {
		r.gh.Warningf("mcp-fuzz: %s", w)
	}
	o, err := audit.Build(s.audit, inputNames, r.lookup)
	if err != nil {
		return r.usage(err)
	}
	if s.sarif != "" {
		if r.sarif, err = r.sarifLocation(o.SARIF); err != nil {
			return r.usage(err)
		}
	}
	cfg := &o.Engine
	cfg.LookupEnv = r.lookup
	cfg.OwnSecrets = r.own()
	r.mask(cfg.SecretValues()) // what the config file added (env:, secrets:)
	cfg.Version = r.env.Version
	cfg.Progress = progress(r.env.Stderr)

	r.gh.Group("mcp-fuzz: fuzzing " + targetOf(*cfg))
	out := audit.Run(ctx, o)
	r.gh.EndGroup()
	rep := out.Report
	if rep != nil && rep.Run != nil && rep.Run.Warning != "" {
		r.gh.Warningf("mcp-fuzz: %s", rep.Run.Warning)
	}
	interrupted := out.Interrupted() && rep != nil
	switch {
	case interrupted:
		// Cancelled (SIGTERM from the runner): still leave the partial
		// report, summary and outputs behind; no comment, no gate.
		r.gh.Warningf("mcp-fuzz: %s", rep.EndedEarly)
	case out.Interrupted():
		r.gh.Warningf("mcp-fuzz: interrupted before the server was ready")
		return out.Code
	case out.Code == ExitUsage:
		return r.usage(errors.New(audit.Describe(out.Err, inputNames)))
	case out.Err != nil:
		return r.connectFailed(out.Err)
	}

	// Annotations wait until the end, where they are printed in order of
	// importance within the step's limits: the missed gates first.
	var is issues
	reportPath := r.write("report", s.report, "json", rep, &is)
	if s.sarif != "" {
		r.sarif.Category = r.sarifCategory(r.sarif.Category, rep)
		if r.sarif.Location.URI == "" && len(rep.Findings) > 0 {
			is.warnings = append(is.warnings, noSARIFLocation)
		}
	}
	sarifPath := r.write("sarif", s.sarif, "sarif", rep, &is)
	res := out.Gates
	r.summary(render.MarkdownLimit(rep, render.MaxMarkdownBytes-gateTextMax) + gateText(res))
	r.outputs(map[string]string{
		"score":       intText(rep.Score),
		"grade":       strText(rep.Grade),
		"passed":      strconv.FormatBool(res.Passed),
		"crashes":     strconv.Itoa(rep.Summary.Crash),
		"findings":    strconv.Itoa(len(rep.Findings)),
		"report-path": reportPath,
		"sarif-path":  sarifPath,
		"badge-url":   render.BadgeURL(rep),
		"static":      strconv.FormatBool(rep.Static),
	})
	if interrupted {
		r.annotate(annotations(nil, is.errs, is.warnings, nil), room{})
		return out.Code
	}
	fmt.Fprintf(r.env.Stdout, "mcp-fuzz: %s\n", verdictLine(rep))
	if rep.Run != nil && rep.Run.Summary != "" {
		fmt.Fprintf(r.env.Stdout, "mcp-fuzz: box: %s\n", escape.Terminal(rep.Run.Summary, 0))
	}
	// The comment, printed after, may add one warning: keep its place.
	var reserve room
	if s.comment != commentOff {
		reserve.warnings = 1
	}
	r.annotate(annotations(res.Failures, is.errs, append(is.warnings, out.Warnings...), rep.Findings), reserve)
	r.comment(ctx, rep)
	return out.Code
}

// issues are the action's own errors and warnings, annotated at the end
// (see [runner.annotate]).
type issues struct{ errs, warnings []string }

// usage reports bad inputs (exit 2).
func (r *runner) usage(err error) int {
	r.gh.Errorf("mcp-fuzz: %v", err)
	r.summary("## mcp-fuzz: invalid inputs\n\n" + escape.MarkdownCode(err.Error(), 4000) + "\n")
	r.outputs(map[string]string{"passed": "false"})
	return ExitUsage
}

// connectFailed reports a target that could not be started or connected
// (exit 3), with the reason in the job summary.
func (r *runner) connectFailed(err error) int {
	r.gh.Errorf("mcp-fuzz: could not start or connect to the target: %s", escape.Terminal(err.Error(), 0))
	r.summary("## mcp-fuzz: could not start or connect to the target\n\n" +
		escape.MarkdownCode(err.Error(), 8000) + "\n")
	r.outputs(map[string]string{"passed": "false"})
	return ExitConnect
}

// fileCommand runs f, which writes to a GITHUB_* file named by env, when
// that file is configured; outside Actions (plain docker run) it says so
// once instead.
func (r *runner) fileCommand(env, what string, f func()) {
	if r.env.Getenv(env) == "" {
		r.gh.Noticef("mcp-fuzz: %s is not set (not running in GitHub Actions?): %s skipped", env, what)
		return
	}
	defer func() {
		if p := recover(); p != nil {
			r.gh.Warningf("mcp-fuzz: could not write the %s: %v", what, p)
		}
	}()
	f()
}

func (r *runner) summary(md string) {
	r.fileCommand("GITHUB_STEP_SUMMARY", "job summary", func() { r.gh.AddStepSummary(md) })
}

func (r *runner) outputs(out map[string]string) {
	r.fileCommand("GITHUB_OUTPUT", "outputs", func() {
		for _, k := range Outputs {
			if v, ok := out[k]; ok {
				r.gh.SetOutput(k, v)
			}
		}
	})
}

// write writes rep to a requested file in the format called format (see
// [render.ByName]) and returns its path for the outputs (relative to the
// workspace), or "" when none was requested or writing failed (added to
// is for an annotation, not a failed step). A file written into the
// workspace is handed to the workspace's owner (see [writeFile]).
func (r *runner) write(input, path, format string, rep *report.Report, is *issues) string {
	if path == "" {
		return ""
	}
	f, err := render.ByName(format)
	var b []byte
	if err == nil {
		b, err = f.Render(rep, render.Options{SARIF: r.sarif})
	}
	var chownErr error
	if err == nil {
		chownErr, err = writeFile(r.s.workspace, path, b, func() (int, int, bool) { return workspaceOwner(r.s.workspace) })
	}
	if err != nil {
		is.errs = append(is.errs, fmt.Sprintf("writing input %s %s: %v", input, path, err))
		return ""
	}
	if chownErr != nil {
		is.warnings = append(is.warnings, fmt.Sprintf("input %s %s: written, but %v", input, path, chownErr))
	}
	return relative(r.s.workspace, path)
}

// gateTextMax is the room kept in the job summary for [gateText].
const gateTextMax = 16 << 10

// gateText is the job summary's closing line on the gates.
func gateText(res score.Result) string {
	if res.Passed {
		return "\n**Gates:** passed.\n"
	}
	var b strings.Builder
	b.WriteString("\n**Gates:** missed.\n\n")
	for _, f := range res.Failures {
		line := "- " + escape.MarkdownInline(f, 500) + "\n"
		if b.Len()+len(line) > gateTextMax-100 {
			b.WriteString("- …\n")
			break
		}
		b.WriteString(line)
	}
	return b.String()
}

func verdictLine(rep *report.Report) string {
	untested := ""
	if u := score.Untested(rep); u != "" {
		untested = " (" + u + ")"
	}
	if rep.Score == nil || rep.Grade == nil {
		return fmt.Sprintf("%s%s, %d findings", score.NotGraded, untested, len(rep.Findings))
	}
	return fmt.Sprintf("score %d, grade %s%s, %d findings", *rep.Score, *rep.Grade, untested, len(rep.Findings))
}

func intText(p *int) string {
	if p == nil {
		return ""
	}
	return strconv.Itoa(*p)
}

func strText(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// targetOf names the target of cfg in one line.
func targetOf(cfg engine.Config) string {
	if cfg.URL != "" {
		return cfg.URL
	}
	return strings.Join(cfg.Command, " ")
}

// progress prints one line per tool on w. Every line starts with
// "mcp-fuzz:" so that no server text can start a workflow command.
func progress(w io.Writer) func(engine.Event) {
	return func(e engine.Event) {
		switch e.Kind {
		case engine.EventSkip:
			fmt.Fprintf(w, "mcp-fuzz: %s skipped (%s)\n", escape.Terminal(e.Tool, 80), escape.Terminal(e.Reason, 200))
		case engine.EventTool:
			fmt.Fprintf(w, "mcp-fuzz: %s: %d cases\n", escape.Terminal(e.Tool, 80), e.Total)
		case engine.EventCutoff:
			fmt.Fprintf(w, "mcp-fuzz: %s: %s\n", escape.Terminal(e.Tool, 80), escape.Terminal(e.Reason, 200))
		case engine.EventEra:
			fmt.Fprintf(w, "mcp-fuzz: auditing in the %s era (--era both)\n", e.Reason)
		case engine.EventChecks:
			if e.Total > 0 {
				fmt.Fprintf(w, "mcp-fuzz: protocol checks: %d requests\n", e.Total)
			}
		case engine.EventPhase:
			fmt.Fprintf(w, "mcp-fuzz: %s\n", escape.Terminal(e.Reason, 200))
		}
	}
}
