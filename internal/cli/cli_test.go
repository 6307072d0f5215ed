package cli

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
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
	// Fixture servers the scripts start; built once for all of them.
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin, "./testdata/servers/needs-example", "./testdata/servers/leak-env")
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building fixtures: %v\n%s", err, out)
	}
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", bin)
			return nil
		},
	})
}
