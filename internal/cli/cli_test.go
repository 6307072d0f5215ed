package cli

import (
	"context"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets testscript run the CLI in-process as the "mcp-fuzz" command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
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
	testscript.Run(t, testscript.Params{Dir: "testdata/script"})
}
