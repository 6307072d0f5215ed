package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
	"github.com/mcp-fuzz/mcp-fuzz/internal/config"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// readReport loads a JSON report written by -o FILE.json or --json.
func readReport(path string) (*report.Report, error) {
	rep, err := report.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		err = fmt.Errorf("%w (give a JSON report written by -o FILE.json or --json)", err)
	}
	return rep, err
}

// outputFlags parses the -o/--format flags of report and merge; the rest of
// args are returned as positional arguments.
func outputFlags(name string, args []string) (outputs []string, format string, rest []string, sarif audit.SARIF, verbose bool, err error) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var outs listFlag
	fs.Var(&outs, "o", "")
	fs.Var(&outs, "output", "")
	fs.StringVar(&format, "format", "", "")
	if name == "report" {
		fs.StringVar(&sarif.Location, "sarif-location", "", "")
		fs.StringVar(&sarif.Category, "sarif-category", "", "")
		fs.BoolVar(&verbose, "verbose", false, "")
	}
	// Flags may follow the files: parse repeatedly.
	for {
		if err := fs.Parse(args); err != nil {
			return nil, "", nil, sarif, false, flagError(fs, err)
		}
		if fs.NArg() == 0 {
			break
		}
		rest = append(rest, fs.Arg(0))
		args = fs.Args()[1:]
	}
	for _, o := range outs {
		if _, err := formatOf(o); err != nil {
			return nil, "", nil, sarif, false, err
		}
	}
	return outs, format, rest, sarif, verbose, nil
}

// runReport re-renders a saved report: mcp-fuzz report FILE.json -o out.md.
func (a *App) runReport(args []string) int {
	outs, format, files, sarif, verbose, err := outputFlags("report", args)
	if err == nil && len(files) != 1 {
		err = errors.New("usage: mcp-fuzz report FILE.json [-o OUT]... [--format F] [--verbose] [--sarif-location FILE] [--sarif-category NAME]")
	}
	if err == nil && format == "" && len(outs) == 0 {
		format = "text"
	}
	if err == nil && format != "" {
		err = checkFormat(format)
	}
	if err != nil {
		return a.usageError(err)
	}
	rep, err := readReport(files[0])
	if err != nil {
		return a.usageError(err)
	}
	// Replay reproducers of a run that wrote no .json name this one.
	engine.SetReportPath(rep, files[0])
	var opts render.SARIFOptions
	if wantsSARIF(format, outs) {
		if _, err := os.Stat(config.DefaultPath); err == nil {
			sarif.Config = config.DefaultPath
		}
		if opts, err = a.sarifOptions(sarif); err != nil {
			return a.usageError(err)
		}
	}
	dests := openOutputs(outs)
	defer dests.close()
	return a.emit(rep, format, dests, opts, verbose)
}

// emit writes rep to each output file and, in format, to stdout, with
// SARIF results located by sarif. The replay reproducers of every output
// name the first .json output, if any. Each output is written through the
// directory opened for it (see [openOutputs]).
func (a *App) emit(rep *report.Report, format string, outs outputs, sarif render.SARIFOptions, verbose bool) int {
	if wantsSARIF(format, outs.paths()) && sarif.Location.URI == "" && len(rep.Findings) > 0 {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: warning: %s\n", noSARIFLocation)
	}
	for _, path := range outs.paths() {
		if f, _ := formatOf(path); f.Name == "json" {
			engine.SetReportPath(rep, path)
			break
		}
	}
	// One output that cannot be written does not cost the others, nor
	// the report on stdout: each is written, and the failures named last.
	var written, failed []string
	for _, o := range outs {
		if err := writeOutput(o, rep, render.Options{SARIF: sarif}); err != nil {
			fmt.Fprintf(a.Stderr, "mcp-fuzz: writing %s: %v\n", o.path, err)
			failed = append(failed, o.path)
			continue
		}
		written = append(written, o.path)
		if o.moved() {
			fmt.Fprintf(a.Stderr, "mcp-fuzz: warning: %s\n", movedWarning(o.path))
		}
	}
	code := ExitOK
	if format != "" {
		f, err := render.ByName(format)
		var b []byte
		if err == nil {
			b, err = f.Render(rep, render.Options{Colour: useColour(a.Stdout, a.LookupEnv), Width: a.columns(a.Stdout), Verbose: verbose, Outputs: written, SARIF: sarif})
		}
		if err != nil {
			fmt.Fprintf(a.Stderr, "mcp-fuzz: rendering %s: %v\n", format, err)
			code = ExitUsage
		} else {
			_, _ = a.Stdout.Write(b)
		}
	}
	if len(failed) > 0 {
		others := " (the others were)"
		if len(failed) == len(outs) {
			others = ""
		}
		fmt.Fprintf(a.Stderr, "mcp-fuzz: %d of %d outputs not written: %s%s\n", len(failed), len(outs), strings.Join(failed, ", "), others)
		code = ExitUsage
	}
	return code
}

// runMerge combines the reports of several targets (the matrix fan-in):
// mcp-fuzz merge a.json b.json -o combined.md.
func (a *App) runMerge(args []string) int {
	outs, format, files, _, _, err := outputFlags("merge", args)
	if err == nil && len(files) == 0 {
		err = errors.New("usage: mcp-fuzz merge A.json B.json ... [-o combined.md|combined.json]")
	}
	if err == nil && format != "" {
		if _, ferr := render.MergeByName(format); ferr != nil {
			err = fmt.Errorf("merge --format: %w", ferr)
		}
	}
	for _, o := range outs {
		if _, ferr := render.MergeForPath(o); err == nil && ferr != nil {
			err = fmt.Errorf("merge -o %s: %w", o, ferr)
		}
	}
	if err != nil {
		return a.usageError(err)
	}
	var reps []*report.Report
	for _, f := range files {
		// A merged report adds each of its reports.
		got, err := report.ReadFiles(f)
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w (give a JSON report written by -o FILE.json or --json)", err)
		}
		if err != nil {
			return a.usageError(err)
		}
		reps = append(reps, got...)
	}
	dests := openOutputs(outs)
	defer dests.close()
	for _, o := range dests {
		f, _ := render.MergeForPath(o.path)
		b, err := f.Merge(reps)
		if err == nil {
			err = o.write(b, boundedfile.Options{Perm: 0o644})
		}
		if err != nil {
			fmt.Fprintf(a.Stderr, "mcp-fuzz: writing %s: %v\n", o.path, err)
			return ExitUsage
		}
		if o.moved() {
			fmt.Fprintf(a.Stderr, "mcp-fuzz: warning: %s\n", movedWarning(o.path))
		}
	}
	if format == "" && len(outs) == 0 {
		format = "markdown"
	}
	if format != "" {
		f, _ := render.MergeByName(format)
		b, err := f.Merge(reps)
		if err != nil {
			fmt.Fprintf(a.Stderr, "mcp-fuzz: rendering %s: %v\n", format, err)
			return ExitUsage
		}
		_, _ = a.Stdout.Write(b)
	}
	return ExitOK
}

// runReplay re-runs one case of a saved report and prints the old and new
// verdicts: mcp-fuzz replay FILE.json CASE-ID [flags] [-- CMD ARGS...].
// Without a target it uses the one the report recorded.
func (a *App) runReplay(ctx context.Context, args []string) int {
	if len(args) < 2 || strings.HasPrefix(args[0], "-") || strings.HasPrefix(args[1], "-") {
		return a.usageError(errors.New("usage: mcp-fuzz replay FILE.json CASE-ID [flags] [-- COMMAND ARGS...]"))
	}
	rep, err := readReport(args[0])
	if err != nil {
		return a.usageError(err)
	}
	st, code, done := a.parse(args[2:])
	if done {
		return code
	}
	caseID, era := audit.ReplayTarget(args[1])
	if !st.Given.Has("era") {
		st.Given.Set("era", era)
	}
	tool, old, ok := audit.ReplayCase(rep, caseID, st.Given.String("era"))
	if !ok {
		return a.usageError(fmt.Errorf("%s has no case %q", args[0], caseID))
	}
	recorded := len(st.Command) == 0 && !st.Given.Has("url")
	var warnings []string
	if recorded {
		warnings = a.recordedTarget(&st, rep)
	}
	recordedSettings(&st, rep)
	opts, code, ok := a.build(st)
	if !ok {
		return code
	}
	cfg := opts.Engine
	// Compacted arguments are regenerated with the options of the recorded
	// run, whatever the flags say.
	if rep.Seed != 0 {
		cfg.Seed = rep.Seed
	}
	if rep.Config.Cases != 0 {
		cfg.Cases = rep.Config.Cases
	}
	if rep.Config.Profile != "" {
		cfg.Profile = rep.Config.Profile
	}
	// The case is replayed in the era the recorded run spoke, over stdio
	// or HTTP, unless --era says otherwise.
	if !st.Given.Has("era") && (rep.Server.Era == engine.EraModern || rep.Server.Era == engine.EraLegacy) {
		cfg.Era = rep.Server.Era
	}
	cfg.Learned = audit.LearnedArgs(rep, tool)
	if recorded && rep.Target.Bearer && cfg.Bearer == "" {
		warnings = append(warnings, "the recorded run sent a bearer token: set $"+engine.BearerEnv+" (or give --bearer) to send it again")
	}
	for _, w := range warnings {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: warning: %s\n", escape.Terminal(w, 300))
	}
	now, err := engine.Replay(ctx, cfg, tool, old)
	switch {
	case errors.Is(err, engine.ErrConfig):
		return a.usageError(err)
	case errors.Is(err, engine.ErrArgumentsChanged):
		fmt.Fprintf(a.Stderr, "mcp-fuzz: %v\n", err)
		return ExitUsage
	case err != nil:
		a.printError(err)
		return ExitConnect
	}
	fmt.Fprintf(a.Stdout, "case  %s\n", escape.Terminal(caseID, 120))
	with := fmt.Sprintf("--timeout %s", cfg.Timeout)
	if cfg.Era != "" && cfg.Era != engine.EraAuto {
		with += ", era " + cfg.Era
	}
	fmt.Fprintf(a.Stdout, "with  %s\n", with)
	if d := old.ArgumentsDigest; d != nil {
		how := fmt.Sprintf("regenerated from seed %d", cfg.Seed)
		if args, ok := report.ExpandPattern(d.Pattern, d.Bytes); ok && d.Matches(args) {
			how = "spelled out by the report's pattern" // as engine.Replay does first
		}
		fmt.Fprintf(a.Stdout, "args  %s: %d bytes, sha256 %s, as recorded\n", how, d.Bytes, escape.Terminal(d.SHA256, 64))
	}
	fmt.Fprintf(a.Stdout, "was   %s  %s\nnow   %s  %s\n", escape.Terminal(string(old.Verdict), 40), escape.Terminal(old.Detail, 200),
		escape.Terminal(string(now.Verdict), 40), escape.Terminal(now.Detail, 200))
	if now.Verdict == old.Verdict {
		fmt.Fprintln(a.Stdout, "same verdict")
	} else {
		fmt.Fprintln(a.Stdout, "verdict changed")
	}
	if codes := caseFindings(now); len(codes) > 0 {
		fmt.Fprintf(a.Stdout, "still failing: %s\n", strings.Join(codes, ", "))
		return ExitGate
	}
	fmt.Fprintln(a.Stdout, "no failure: fixed")
	return ExitOK
}

// caseFindings are the finding codes case c makes (its verdict's and its
// flags'), as the audit lists them, but for the informational ones (a
// generator gap is mcp-fuzz's, not the server's); none when the case
// passes.
func caseFindings(c report.Case) []string {
	var codes []string
	if code, ok := report.LookupCode(string(c.Verdict)); ok && !code.Flag && !code.Check && code.Severity != report.SeverityInfo {
		codes = append(codes, code.Name)
	}
	for _, f := range c.Flags {
		if code, ok := report.LookupCode(f); ok && code.Flag && code.Severity != report.SeverityInfo {
			codes = append(codes, code.Name)
		}
	}
	return codes
}

// recordedTarget points st at the target rep recorded: its command (or,
// for the demo server, this binary's when the recorded one is gone, as
// after go run), URL and working directory, and asks for its environment
// variables, headers and bearer token again, by name, from this
// environment: the report has their names, never their values. It
// returns what it could not find.
func (a *App) recordedTarget(st *audit.Settings, rep *report.Report) (warnings []string) {
	st.Command = slices.Clone(rep.Target.Args)
	st.Given.Set("url", rep.Target.URL)
	if !st.Given.Has("cwd") {
		st.Given.Set("cwd", rep.Target.Cwd)
	}
	if demoServer(st.Command) {
		if _, err := exec.LookPath(st.Command[0]); err != nil && a.Executable != nil {
			// The demo server is built into every mcp-fuzz binary.
			if self, err := a.Executable(); err == nil {
				st.Command[0] = self
			}
		}
	}
	lookup := func(name string) (string, bool) {
		if a.LookupEnv == nil {
			return "", false
		}
		return a.LookupEnv(name)
	}
	passEnv, env, headers := st.Given.List("pass-env"), st.Given.List("env"), st.Given.List("header")
	for _, name := range rep.Target.Env {
		given := slices.Contains(passEnv, name) || slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, name+"=") })
		if given {
			continue
		}
		if _, ok := lookup(name); ok {
			passEnv = append(passEnv, name)
		} else {
			warnings = append(warnings, fmt.Sprintf("the recorded run gave the server $%s: it is not set here (give --env %s=...)", name, name))
		}
	}
	for _, name := range rep.Target.Headers {
		given := slices.ContainsFunc(headers, func(h string) bool {
			n, _, _ := strings.Cut(h, ":")
			return strings.EqualFold(strings.TrimSpace(n), name)
		})
		if given {
			continue
		}
		env := engine.HeaderEnv(name)
		if v, ok := lookup(env); ok {
			headers = append(headers, name+": "+v)
		} else {
			warnings = append(warnings, fmt.Sprintf("the recorded run sent header %s: set $%s (or give --header) to send it again", name, env))
		}
	}
	st.Given.Set("pass-env", passEnv)
	st.Given.Set("header", headers)
	return warnings
}

// demoServer says whether command is the built-in demo server's.
func demoServer(command []string) bool {
	return len(command) == 2 && command[1] == "demo-server"
}

// recordedSettings fills the settings of st that decide how one case
// runs, where the flags are silent, with those the recorded run used: a
// hang is judged against the run's own --timeout.
func recordedSettings(st *audit.Settings, rep *report.Report) {
	c := rep.Config
	for _, r := range []struct {
		key      string
		value    any
		recorded bool
	}{
		{"timeout", time.Duration(c.TimeoutMs) * time.Millisecond, c.TimeoutMs > 0},
		{"startup-timeout", time.Duration(c.StartupTimeoutMs) * time.Millisecond, c.StartupTimeoutMs > 0},
		{"max-response", strconv.Itoa(c.MaxResponseBytes), c.MaxResponseBytes > 0},
		{"slow-ms", c.SlowMs, c.SlowMs > 0},
		{"bloat-chars", c.BloatChars, c.BloatChars > 0},
	} {
		if r.recorded && !st.Given.Has(r.key) {
			st.Given.Set(r.key, r.value)
		}
	}
}
