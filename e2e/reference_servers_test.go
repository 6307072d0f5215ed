//go:build e2e

package e2e

import (
	"context"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// smokeTimeout bounds connect + discovery of one server in the smoke test.
const smokeTimeout = 30 * time.Second

// Tool names each server lists to the go-sdk client with its default options
// (capabilities {"roots":{"listChanged":true}}, no sampling or elicitation
// handler). A version bump that changes them fails TestReferenceServersStart;
// update NOTES.md with them.
var (
	// server-everything registers its conditional tools after
	// notifications/initialized, from the client's capabilities: roots gives
	// get-roots-list; simulate-research-query (execution.taskSupport
	// "required") is always added; trigger-sampling-request,
	// trigger-elicitation-request, trigger-url-elicitation and the -async
	// variants need sampling / elicitation / tasks capabilities and are absent.
	everythingTools = []string{
		"echo",
		"get-annotated-message",
		"get-env",
		"get-resource-links",
		"get-resource-reference",
		"get-roots-list",
		"get-structured-content",
		"get-sum",
		"get-tiny-image",
		"gzip-file-as-resource",
		"simulate-research-query",
		"toggle-simulated-logging",
		"toggle-subscriber-updates",
		"trigger-long-running-operation",
	}
	memoryTools = []string{
		"add_observations",
		"create_entities",
		"create_relations",
		"delete_entities",
		"delete_observations",
		"delete_relations",
		"open_nodes",
		"read_graph",
		"search_nodes",
	}
	filesystemTools = []string{
		"create_directory",
		"directory_tree",
		"edit_file",
		"get_file_info",
		"list_allowed_directories",
		"list_directory",
		"list_directory_with_sizes",
		"move_file",
		"read_file",
		"read_media_file",
		"read_multiple_files",
		"read_text_file",
		"search_files",
		"write_file",
	}
	sequentialThinkingTools = []string{"sequentialthinking"}
)

// TestReferenceServersStart starts every reference server, initializes a
// go-sdk client session, lists the tools and checks the negotiated protocol
// version, the server's name and version and the tool names. It calls no
// tool. Every server must leave no process behind.
func TestReferenceServersStart(t *testing.T) {
	requireNode(t)
	tests := []struct {
		name        string
		connect     func(t *testing.T, ctx context.Context) *mcp.ClientSession
		wantServer  string
		wantVersion string
		wantTools   []string
	}{
		{
			name: "everything-stdio",
			connect: func(t *testing.T, ctx context.Context) *mcp.ClientSession {
				return connectStdio(t, ctx, serverCommand{Args: everythingStdio(t), Env: everythingEnv})
			},
			wantServer: "mcp-servers/everything", wantVersion: "2.0.0",
			wantTools: everythingTools,
		},
		{
			name: "everything-http",
			connect: func(t *testing.T, ctx context.Context) *mcp.ClientSession {
				return connectHTTP(t, ctx, everythingHTTP(t))
			},
			wantServer: "mcp-servers/everything", wantVersion: "2.0.0",
			wantTools: everythingTools,
		},
		{
			name: "memory",
			connect: func(t *testing.T, ctx context.Context) *mcp.ClientSession {
				return connectStdio(t, ctx, memoryStdio(t))
			},
			wantServer: "memory-server", wantVersion: "0.6.3",
			wantTools: memoryTools,
		},
		{
			name: "filesystem",
			connect: func(t *testing.T, ctx context.Context) *mcp.ClientSession {
				return connectStdio(t, ctx, filesystemStdio(t))
			},
			wantServer: "secure-filesystem-server", wantVersion: "0.2.0",
			wantTools: filesystemTools,
		},
		{
			name: "sequential-thinking",
			connect: func(t *testing.T, ctx context.Context) *mcp.ClientSession {
				return connectStdio(t, ctx, sequentialThinkingStdio(t))
			},
			wantServer: "sequential-thinking-server", wantVersion: pinnedServers["server-sequential-thinking"],
			wantTools: sequentialThinkingTools,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), smokeTimeout)
			defer cancel()
			start := time.Now()
			cs := tt.connect(t, ctx)
			init := cs.InitializeResult()
			// The go-sdk client first sends server/discover (protocol
			// 2026-07-28); these TypeScript-SDK servers refuse it (-32601 over
			// stdio, HTTP 400 over HTTP), and the client falls back to
			// initialize with 2025-11-25, which they accept.
			if got, want := init.ProtocolVersion, "2025-11-25"; got != want {
				t.Errorf("protocol version = %q, want %q", got, want)
			}
			if init.ServerInfo == nil {
				t.Fatalf("no serverInfo in the initialize result")
			}
			if init.ServerInfo.Name != tt.wantServer || init.ServerInfo.Version != tt.wantVersion {
				t.Errorf("serverInfo = %s %s, want %s %s", init.ServerInfo.Name, init.ServerInfo.Version, tt.wantServer, tt.wantVersion)
			}
			if init.Capabilities == nil || init.Capabilities.Tools == nil {
				t.Errorf("server does not advertise the tools capability: %+v", init.Capabilities)
			}
			var names []string
			for tool, err := range cs.Tools(ctx, nil) {
				if err != nil {
					t.Fatalf("tools/list: %v", err)
				}
				names = append(names, tool.Name)
			}
			slices.Sort(names)
			if !slices.Equal(names, tt.wantTools) {
				t.Errorf("tools = %q\nwant    %q", names, tt.wantTools)
			}
			t.Logf("%s %s: protocol %s, %d tools, connect+list %v",
				init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion, len(names), time.Since(start).Round(time.Millisecond))
		})
	}
}

// connectStdio starts sc in its own process group, with a minimal
// environment plus sc.Env and a temporary working directory, and connects a
// go-sdk client to it over stdio. A t.Cleanup closes the session, kills what
// is left of the group and checks that no process remains.
func connectStdio(t *testing.T, ctx context.Context, sc serverCommand) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(sc.Args[0], sc.Args[1:]...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(minimalEnv(), sc.Env...)
	stderr := newTailBuffer(64 << 10)
	cmd.Stderr = stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Cleanup(func() {
		if cmd.Process != nil {
			pgid := cmd.Process.Pid
			_ = syscall.Kill(-pgid, syscall.SIGKILL) // ESRCH once the group is gone
			checkNoOrphans(t, pgid)
		}
		if t.Failed() {
			t.Logf("server stderr:\n%s", stderr)
		}
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-fuzz-e2e", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	if err != nil {
		t.Fatalf("connect to %q: %v", sc.Args, err)
	}
	closeOnCleanup(t, cs)
	return cs
}

// connectHTTP connects a go-sdk client to a Streamable HTTP endpoint; a
// t.Cleanup closes the session.
func connectHTTP(t *testing.T, ctx context.Context, url string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-fuzz-e2e", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatalf("connect to %s: %v", url, err)
	}
	closeOnCleanup(t, cs)
	return cs
}

func closeOnCleanup(t *testing.T, cs *mcp.ClientSession) {
	t.Cleanup(func() {
		start := time.Now()
		if err := cs.Close(); err != nil {
			t.Logf("closing the session: %v", err)
		}
		t.Logf("session closed in %v", time.Since(start).Round(time.Millisecond))
	})
}
