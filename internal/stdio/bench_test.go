package stdio

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
)

func init() { helpers["answer"] = runAnswerer }

// runAnswerer answers each request line with an empty result for its id.
func runAnswerer() {
	in := bufio.NewReader(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			return
		}
		i := bytes.Index(line, []byte(`"id":`))
		if i < 0 {
			continue // a notification
		}
		id := line[i+5:]
		id = id[:bytes.IndexAny(id, ",}")]
		out.WriteString(`{"jsonrpc":"2.0","id":`)
		out.Write(id)
		out.WriteString(`,"result":{}}` + "\n")
		out.Flush()
	}
}

func answerer() Config {
	return Config{Path: os.Args[0], Env: []string{helperEnv + "=answer"}}
}

// BenchmarkCallRoundTrip is one rpc call through Process and rpc.Client.
// Compare with BenchmarkRawRoundTrip, the same line written and its answer
// read straight from the pipes: the difference is mcp-fuzz's overhead.
func BenchmarkCallRoundTrip(b *testing.B) {
	p, err := Start(answerer())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Stop()
	c := rpc.New(p.Connection(), nil)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Call(ctx, "ping", nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRawRoundTrip(b *testing.B) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = answerer().Env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	out := bufio.NewReader(stdout)
	line := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
	b.ResetTimer()
	for b.Loop() {
		if _, err := stdin.Write(line); err != nil {
			b.Fatal(err)
		}
		if _, err := out.ReadSlice('\n'); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCallRoundTripRead is BenchmarkCallRoundTrip through Read, as
// before the stdout reader pushed answers to the client.
func BenchmarkCallRoundTripRead(b *testing.B) {
	p, err := Start(answerer())
	if err != nil {
		b.Fatal(err)
	}
	defer p.Stop()
	c := rpc.New(struct{ mcp.Connection }{p.Connection()}, nil) // hides Push
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := c.Call(ctx, "ping", nil); err != nil {
			b.Fatal(err)
		}
	}
}
