package engine

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/casegen"
	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// The per-call overhead of the engine is BenchmarkEngineCall minus
// BenchmarkRawRoundTrip: both send the same tools/call to the same fixture
// process, one through a bare pipe and bufio, the other through the engine's
// session, JSON-RPC client, oracle and leak checks.

const benchArgs = `{"id":7}`

func BenchmarkRawRoundTrip(b *testing.B) {
	cmd := exec.Command(fixture.Build(b, "clean"))
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	r := bufio.NewReaderSize(stdout, 1<<20)
	send := func(line string) {
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			b.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"bench","version":"0"}}}`)
	if _, err := r.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"lookup_user","arguments":` + benchArgs + `}}`
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		send(call)
		line, err := r.ReadBytes('\n')
		if err != nil {
			b.Fatal(err)
		}
		if !json.Valid(line) {
			b.Fatalf("bad answer %s", line)
		}
	}
}

func BenchmarkEngineCall(b *testing.B) {
	cfg := Config{Command: []string{fixture.Build(b, "clean")}, Timeout: 5 * time.Second}.withDefaults()
	cn, err := newDialer(cfg)
	if err != nil {
		b.Fatal(err)
	}
	s, err := cn.Connect(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	r := &runner{cfg: cfg, cn: cn, s: s, leak: leak.NewDetector(map[string]string{"--env TOKEN": "bench-secret-value"})}
	defer r.closeSession()
	t := tool{Name: "lookup_user"}
	c := casegen.Case{ID: "lookup_user/valid", Kind: casegen.Valid, Arguments: json.RawMessage(benchArgs)}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var rc report.Case
		r.runCase(context.Background(), t, c, &rc, false, nil)
		if rc.Verdict != report.OK {
			b.Fatalf("verdict %s: %s", rc.Verdict, rc.Detail)
		}
	}
}

// BenchmarkFullRun is a whole audit of the clean fixture (2 tools, 33 cases):
// spawn, initialize, list, lint, generate, call, judge, score.
func BenchmarkFullRun(b *testing.B) {
	cfg := Config{Command: []string{fixture.Build(b, "clean")}, Timeout: 5 * time.Second}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, err := Run(context.Background(), cfg)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Summary.Cases == 0 {
			b.Fatal("no cases ran")
		}
	}
}
