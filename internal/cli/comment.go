package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/comment"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
)

const commentUsage = `Usage: mcp-fuzz comment REPORT.json... --pr N [--repo OWNER/NAME] [--key K] [--author LOGIN]

Puts each saved JSON report as a section into the one mcp-fuzz comment of a
pull request, as the Action does: the comment is found by its marker and by
its author (the token's own login), never another's; minimized comments are
left alone; the body is kept under GitHub's 65,536 characters by collapsing
detail; every section is verified after writing, and retried.

  --pr N            the pull request (required)
  --repo OWNER/NAME the repository (default $GITHUB_REPOSITORY)
  --key K           the section the report owns (default: its target's name);
                    with several reports, each owns "K TARGET"
  --author LOGIN    the login the token comments as (default
                    $MCP_FUZZ_COMMENT_AUTHOR, else asked of GitHub)

Environment:
  GITHUB_TOKEN, else GH_TOKEN   the token (needs pull-requests: write)
  GITHUB_API_URL                the REST API (default https://api.github.com;
                                GitHub Enterprise Server: https://HOST/api/v3)
  GITHUB_GRAPHQL_URL            the GraphQL API (default: beside GITHUB_API_URL)

Examples:
  mcp-fuzz comment report.json --pr 12
  mcp-fuzz comment linux.json macos.json --pr 12 --repo owner/name --key nightly

Exit status: 0 commented, 1 GitHub refused or failed, 2 usage error.
`

// commentArgs is what the comment subcommand was asked to do.
type commentArgs struct {
	files  []string
	pr     int
	owner  string
	repo   string
	key    string
	author string
}

// parseCommentArgs reads the comment subcommand's flags, which may follow
// the files, and fills what they leave out from the environment.
func parseCommentArgs(args []string, lookup func(string) (string, bool)) (commentArgs, error) {
	var c commentArgs
	fs := flag.NewFlagSet("comment", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	pr := fs.String("pr", "", "")
	repo := fs.String("repo", "", "")
	fs.StringVar(&c.key, "key", "", "")
	fs.StringVar(&c.author, "author", "", "")
	for {
		if err := fs.Parse(args); err != nil {
			return c, flagError(fs, err)
		}
		if fs.NArg() == 0 {
			break
		}
		c.files = append(c.files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	env := func(k string) string { v, _ := lookup(k); return strings.TrimSpace(v) }
	if len(c.files) == 0 {
		return c, errors.New("comment: no report given")
	}
	n, err := strconv.Atoi(strings.TrimPrefix(*pr, "#"))
	switch {
	case *pr == "":
		return c, errors.New("comment: --pr is required")
	case err != nil || n <= 0:
		return c, fmt.Errorf("comment: --pr %q is not a pull request number", *pr)
	}
	c.pr = n
	if *repo == "" {
		*repo = env("GITHUB_REPOSITORY")
	}
	owner, name, ok := strings.Cut(*repo, "/")
	switch {
	case *repo == "":
		return c, errors.New("comment: --repo OWNER/NAME is required (GITHUB_REPOSITORY is not set)")
	case !ok || owner == "" || name == "" || strings.Contains(name, "/"):
		return c, fmt.Errorf("comment: --repo %q is not OWNER/NAME", *repo)
	}
	c.owner, c.repo = owner, name
	if c.author == "" {
		c.author = env("MCP_FUZZ_COMMENT_AUTHOR")
	}
	return c, nil
}

// runComment upserts the sections of saved reports into the pull request
// comment: mcp-fuzz comment REPORT.json... --pr N.
func (a *App) runComment(ctx context.Context, args []string) int {
	for _, arg := range args {
		if arg == "-h" || arg == "-help" || arg == "--help" {
			fmt.Fprint(a.Stdout, commentUsage)
			return ExitOK
		}
	}
	c, err := parseCommentArgs(args, a.LookupEnv)
	if err != nil {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: %v\nRun 'mcp-fuzz comment --help' for usage.\n", err)
		return ExitUsage
	}
	env := func(k string) string { v, _ := a.LookupEnv(k); return strings.TrimSpace(v) }
	token := env("GITHUB_TOKEN")
	if token == "" {
		token = env("GH_TOKEN")
	}
	if token == "" {
		fmt.Fprintln(a.Stderr, "mcp-fuzz: comment: no token: set GITHUB_TOKEN (or GH_TOKEN) to one that may write pull request comments")
		return ExitUsage
	}
	var sections []comment.Section
	seen := map[string]int{}
	for _, f := range c.files {
		rep, err := readReport(f)
		if err != nil {
			fmt.Fprintf(a.Stderr, "mcp-fuzz: comment: %v\n", err)
			return ExitUsage
		}
		target := render.TargetName(rep)
		key := c.key
		if key == "" || len(c.files) > 1 {
			key = strings.TrimSpace(key + " " + target)
		}
		// Two reports of one target keep a section each.
		if seen[key]++; seen[key] > 1 {
			key = fmt.Sprintf("%s (%d)", key, seen[key])
		}
		sections = append(sections, comment.Section{Key: key, Target: target, Report: rep})
	}
	apiURL := env("GITHUB_API_URL")
	if apiURL == "" {
		apiURL = "https://api.github.com/"
	}
	api, err := comment.Connect(apiURL, env("GITHUB_GRAPHQL_URL"), token, a.HTTPClient)
	if err != nil {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: comment: %v\n", err)
		return ExitUsage
	}
	// A slow or endless API must not hold a CI job: commenting gets a
	// budget, as in the Action.
	ctx, cancel := context.WithTimeout(ctx, commentBudget)
	defer cancel()
	u, err := api.Upserter(ctx, comment.Target{Owner: c.owner, Repo: c.repo, Number: c.pr, Author: c.author})
	if err != nil {
		fmt.Fprintf(a.Stderr, "mcp-fuzz: comment: notice: %s; --author (or MCP_FUZZ_COMMENT_AUTHOR) names the login the token comments as\n", apiText(err))
	}
	where := fmt.Sprintf("%s/%s#%d", c.owner, c.repo, c.pr)
	for _, s := range sections {
		res, err := u.Upsert(ctx, s)
		for _, n := range res.Notices {
			fmt.Fprintf(a.Stderr, "mcp-fuzz: comment: notice: %s\n", apiText(n))
		}
		switch {
		case errors.Is(err, comment.ErrNoAccess):
			// GitHub answers 404 both for a pull request that is not there
			// and for one the token may not see: name both causes.
			fmt.Fprintf(a.Stderr, "mcp-fuzz: comment on %s: %s\nCheck that %s is the pull request meant (--pr, --repo) and that the token may write to it: it needs 'pull-requests: write' on %s (a fork's pull_request run gets a read-only one: comment from a workflow_run workflow).\n",
				where, apiText(err), where, c.owner+"/"+c.repo)
			return 1
		case err != nil:
			fmt.Fprintf(a.Stderr, "mcp-fuzz: comment on %s: %s\n", where, apiText(err))
			return 1
		}
		if res.Author != "" && u.Target.Author == "" {
			// Learned from the comment just created: the next section's
			// round need not create another.
			u.Target.Author = res.Author
		}
		fmt.Fprintf(a.Stdout, "mcp-fuzz: %s comment %d: section %q %s\n", where, res.CommentID, escape.Terminal(s.Key, 120), res)
	}
	return ExitOK
}

// commentBudget bounds the whole of commenting.
const commentBudget = 10 * time.Minute

// apiText is an error or notice that may quote the GitHub API (its
// messages, a login it named) as one line of at most 2,000 characters with
// no terminal escape sequence: a hostile or broken API's "\n::error::" must
// not start a workflow command when this runs in a workflow step.
func apiText(v any) string { return escape.Terminal(fmt.Sprint(v), 2000) }
