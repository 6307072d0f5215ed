package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/audit"
	"github.com/mcp-fuzz/mcp-fuzz/internal/boundedfile"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/config"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/engine"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/render/escape"
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
	return a.emit(rep, format, outs, opts, verbose)
}

// emit writes rep to each output file and, in format, to stdout, with
// SARIF results located by sarif. The replay reproducers of every output
// name the first .json output, if any.
func (a *App) emit(rep *report.Report, format string, outs []string, sarif render.SARIFOptions, verbose bool) int {
	if wantsSARIF(format, outs) && sarif.Location.URI == "" && len(rep.Findings) > 0 {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: warning: %s\n", noSARIFLocation)
	}
	for _, path := range outs {
		if f, _ := formatOf(path); f.Name == "json" {
			engine.SetReportPath(rep, path)
			break
		}
	}
	for _, path := range outs {
		if err := writeOutput(path, rep, render.Options{SARIF: sarif}); err != nil {
			fmt.Fprintf(a.Stderr, "mcp-fuzz: writing %s: %v\n", path, err)
			return ExitUsage
		}
	}
	if format == "" {
		return ExitOK
	}
	f, err := render.ByName(format)
	var b []byte
	if err == nil {
		b, err = f.Render(rep, render.Options{Colour: useColour(a.Stdout, a.LookupEnv), Width: a.columns(a.Stdout), Verbose: verbose, Outputs: outs, SARIF: sarif})
	}
	if err != nil {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: rendering %s: %v\n", format, err)
		return ExitUsage
	}
	_, _ = a.Stdout.Write(b)
	return ExitOK
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
		rep, err := readReport(f)
		if err != nil {
			return a.usageError(err)
		}
		reps = append(reps, rep)
	}
	for _, o := range outs {
		f, _ := render.MergeForPath(o)
		b, err := f.Merge(reps)
		if err == nil {
			err = boundedfile.Write(o, b, 0o644)
		}
		if err != nil {
			fmt.Fprintf(a.Stderr, "mcp-fuzz: writing %s: %v\n", o, err)
			return ExitUsage
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
	caseID, era := replayTarget(args[1])
	if st.Era == "" {
		st.Era = era
	}
	tool, old, ok := replayCase(rep, caseID, st.Era)
	if !ok {
		return a.usageError(fmt.Errorf("%s has no case %q", args[0], caseID))
	}
	if len(st.Command) == 0 && st.URL == "" {
		st.Command, st.URL = rep.Target.Args, rep.Target.URL
		if st.Cwd == "" {
			st.Cwd = rep.Target.Cwd
		}
	}
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
	// The case is replayed in the era the recorded run spoke, unless
	// --era says otherwise.
	if st.Era == "" && (rep.Server.Era == engine.EraModern || rep.Server.Era == engine.EraLegacy) && len(cfg.Command) > 0 {
		cfg.Era = rep.Server.Era
	}
	cfg.Learned = learnedArgs(rep, tool)
	now, err := engine.Replay(ctx, cfg, tool, old)
	switch {
	case errors.Is(err, engine.ErrConfig):
		return a.usageError(err)
	case errors.Is(err, engine.ErrArgumentsChanged):
		fmt.Fprintf(a.Stderr, "mcp-fuzz: %v\n", err)
		return ExitUsage
	case err != nil:
		fmt.Fprintf(a.Stderr, "mcp-fuzz: %v\n", err)
		return ExitConnect
	}
	fmt.Fprintf(a.Stdout, "case  %s\n", escape.Terminal(caseID, 120))
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
	return ExitOK
}

// replayTarget is the case id that replay's CASE-ID argument names, and
// the era it names: a finding id is taken for its case's
// ("echo/null/q#crash" is case echo/null/q), and that of a failure an
// --era both run saw only in the other era for its era too
// ("echo/null/q#crash@legacy": legacy). The era is "" when it names none.
func replayTarget(id string) (caseID, era string) {
	i := strings.LastIndex(id, "#")
	if i < 0 {
		return id, ""
	}
	code, e, _ := strings.Cut(id[i+1:], "@")
	if _, ok := report.LookupCode(code); !ok {
		// A case id of its own with a "#" in it ("t/oversize/x#string").
		return id, ""
	}
	if e == engine.EraModern || e == engine.EraLegacy {
		era = e
	}
	return id[:i], era
}

// replayCase finds case id in rep: among its own tools' cases, or, for
// the other era of an --era both report, among the failures seen only in
// that era (a tool that era alone lists, or arguments of its own), which
// win when era names that era.
func replayCase(rep *report.Report, id, era string) (tool string, c report.Case, ok bool) {
	tool, c, ok = ownCase(rep, id)
	if cmp := rep.EraComparison; cmp != nil && (era == cmp.Era || !ok) {
		for _, f := range cmp.Failures {
			if f.Case.ID == id {
				return f.Tool, f.Case, true
			}
		}
	}
	return tool, c, ok
}

// ownCase finds case id among the cases rep's own audit ran.
func ownCase(rep *report.Report, id string) (tool string, c report.Case, ok bool) {
	for _, t := range rep.Tools {
		for _, c := range t.Cases {
			if c.ID == id {
				return t.Name, c, true
			}
		}
	}
	return "", report.Case{}, false
}

// learnedArgs returns the learned valid arguments of tool in rep (see
// report.Case.LearnedFrom) for [engine.Config.Learned]; nil when its valid
// call was not learned.
func learnedArgs(rep *report.Report, tool string) map[string]map[string]any {
	for _, t := range rep.Tools {
		if t.Name != tool {
			continue
		}
		for _, c := range t.Cases {
			if c.Kind != report.KindValid || c.LearnedFrom == "" || !c.Verdict.Confirms() || c.Arguments == nil {
				continue
			}
			var args map[string]any
			d := json.NewDecoder(bytes.NewReader(c.Arguments))
			d.UseNumber()
			if d.Decode(&args) == nil && args != nil {
				return map[string]map[string]any{tool: args}
			}
		}
	}
	return nil
}
