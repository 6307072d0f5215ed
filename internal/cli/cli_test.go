package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcp-fuzz/mcp-fuzz/internal/sarifcheck"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fakegithub"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
)

// TestMain lets testscript run the CLI in-process as the "mcp-fuzz" command,
// with a directory for the fixture servers the scripts start, four scripts
// at a time (see [fixture.Waiting]): they wait on servers' timeouts more
// than on a CPU.
func TestMain(m *testing.M) {
	testscript.Main(fixture.Wrap(fixture.Waiting(4, m)), map[string]func(){
		"mcp-fuzz": func() {
			exe, _ := os.Executable()
			app := &App{
				Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr,
				LookupEnv: os.LookupEnv, Environ: os.Environ, Version: "test",
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
	t.Parallel()
	// Fixture servers the scripts start, as $FIXTURES/<name>; fixture.Build
	// puts every binary in one directory.
	servers := []string{"needs-example", "leak-env", "hostile-secret-echo", "stdout-banner", "clean", "legacy-only", "era-split",
		"hostile-era-tools", "modern-only", "lifecycle-stale", "lifecycle-clean", "prompts-resources", "malformed-tools",
		"concurrency-race", "concurrency-swapped-ids"}
	fixture.Prebuild(t, servers...)
	var bin string
	for _, name := range servers {
		bin = filepath.Dir(fixture.Build(t, name))
	}
	// One fake GitHub API for the comment scripts; each uses pull requests
	// of its own.
	gh := fakegithub.New(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("FIXTURES", bin)
			env.Setenv("GITHUB_API_URL", gh.URL)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"fakegithub": fakeGitHubCmd(gh),
			"sarifcheck": sarifCheck,
		},
	})
}

// fakeGitHubCmd is the script command fakegithub, which looks at and
// changes the fake GitHub API the comment subcommand talks to:
//
//	fakegithub seed [-minimized] OWNER/NAME PR USER FILE  store a comment by USER with FILE's text
//	fakegithub comments OWNER/NAME PR                     print each comment: id, author, characters, first line
//
// comments fails when a body is over GitHub's 65,536 characters.
func fakeGitHubCmd(gh *fakegithub.Server) func(ts *testscript.TestScript, neg bool, args []string) {
	return func(ts *testscript.TestScript, neg bool, args []string) {
		if neg {
			ts.Fatalf("fakegithub does not fail")
		}
		repo := func(s string) (string, string) {
			owner, name, ok := strings.Cut(s, "/")
			if !ok {
				ts.Fatalf("fakegithub: %q is not OWNER/NAME", s)
			}
			return owner, name
		}
		pr := func(s string) int {
			n, err := strconv.Atoi(s)
			ts.Check(err)
			return n
		}
		minimized := len(args) > 1 && args[0] == "seed" && args[1] == "-minimized"
		if minimized {
			args = append(args[:1:1], args[2:]...)
		}
		switch {
		case len(args) == 5 && args[0] == "seed":
			owner, name := repo(args[1])
			id := gh.Seed(owner, name, pr(args[2]), args[3], ts.ReadFile(args[4]))
			if minimized {
				gh.Minimize(id)
			}
		case len(args) == 3 && args[0] == "comments":
			owner, name := repo(args[1])
			for _, c := range gh.Comments(owner, name, pr(args[2])) {
				n := utf8.RuneCountInString(c.Body)
				first, _, _ := strings.Cut(c.Body, "\n")
				fmt.Fprintf(ts.Stdout(), "%d %s %d chars: %s\n", c.ID, c.User, n, first)
				if n > fakegithub.MaxBody {
					ts.Fatalf("comment %d has %d characters, over %d", c.ID, n, fakegithub.MaxBody)
				}
			}
		default:
			ts.Fatalf("usage: fakegithub seed [-minimized] OWNER/NAME PR USER FILE | comments OWNER/NAME PR")
		}
	}
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
