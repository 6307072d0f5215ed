package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mcp-fuzz/mcp-fuzz/internal/sarifcheck"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// TestMain lets testscript run the CLI in-process as the "mcp-fuzz" command,
// with a directory for the fixture servers the scripts start.
func TestMain(m *testing.M) {
	testscript.Main(fixture.Wrap(m), map[string]func(){
		"mcp-fuzz": func() {
			exe, _ := os.Executable()
			app := &App{
				Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
				LookupEnv: os.LookupEnv, Version: "test",
				// The demo re-executes this test binary as "mcp-fuzz demo-server".
				Executable: func() (string, error) { return exe, nil },
			}
			os.Exit(app.Run(context.Background(), os.Args[1:]))
		},
	})
}

// TestScripts runs the txtar scripts in testdata/script: each is a CLI
// session with its expected output and exit code.
func TestScripts(t *testing.T) {
	// Fixture servers the scripts start, as $FIXTURES/<name>; fixture.Build
	// puts every binary in one directory.
	bin := filepath.Dir(fixture.Build(t, "needs-example"))
	fixture.Build(t, "leak-env")
	fixture.Build(t, "stdout-banner")
	fixture.Build(t, "clean")
	fixture.Build(t, "legacy-only")
	fixture.Build(t, "era-split")
	fixture.Build(t, "hostile-era-tools")
	fixture.Build(t, "modern-only")
	fixture.Build(t, "lifecycle-stale")
	fixture.Build(t, "lifecycle-clean")
	fixture.Build(t, "prompts-resources")
	fixture.Build(t, "malformed-tools")
	fixture.Build(t, "concurrency-race")
	fixture.Build(t, "concurrency-swapped-ids")
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", bin)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"sarifcheck": sarifCheck,
		},
	})
}

// sarifCheck is the script command "sarifcheck FILE": FILE passes the
// official SARIF 2.1.0 schema and code scanning's requirements, with every
// location a file of the script's work directory (the repository root).
func sarifCheck(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 1 {
		ts.Fatalf("usage: sarifcheck FILE")
	}
	b, err := os.ReadFile(ts.MkAbs(args[0]))
	ts.Check(err)
	err = sarifcheck.Check(b, sarifcheck.Options{Root: ts.Getenv("WORK")})
	switch {
	case neg && err == nil:
		ts.Fatalf("%s passes the SARIF checks", args[0])
	case !neg && err != nil:
		ts.Fatalf("%s fails the SARIF checks: %v", args[0], err)
	}
}
