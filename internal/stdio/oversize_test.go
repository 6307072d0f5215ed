package stdio

import (
	"context"
	"errors"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/rpc"
)

// bigLine is a shell command that writes a line of n MiB: pre, n MiB of x, post.
func bigLine(pre string, mib int, post string) string {
	return `printf '%s' '` + pre + `'; head -c ` + strconv.Itoa(mib<<20) + ` /dev/zero | tr '\0' x; printf '%s\n' '` + post + `'`
}

// allocated returns how many bytes f allocated.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A 64 MiB answer, its id last as the TypeScript SDK writes it, answers its
// call with an Oversize, without being held.
func TestOversizeAnswer(t *testing.T) {
	var v violations
	cfg := sh(`read req
` + bigLine(`{"result":{"content":[{"type":"text","text":"`, 64, `"}],"isError":true},"jsonrpc":"2.0","id":1}`) + `
read req
echo '{"jsonrpc":"2.0","id":2,"result":{}}'
cat >/dev/null`)
	cfg.OnViolation = v.add
	p := start(t, cfg)
	c := rpc.New(p.Connection(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var err error
	alloc := allocated(func() { _, err = c.Call(ctx, "tools/call", nil) })
	var o *rpc.Oversize
	if !errors.As(err, &o) {
		t.Fatalf("Call = %v, want an Oversize", err)
	}
	if !o.Ended || o.IsErrorAnswer || o.IsError == nil || !*o.IsError || o.Bytes < 64<<20 || !strings.HasPrefix(o.Head, `{"result":{"content":[{"type":"text","text":"xxx`) || len(o.Head) != rpc.HeadLen {
		t.Errorf("Oversize = %+v", o)
	}
	if alloc > 32<<20 {
		t.Errorf("reading a 64 MiB answer allocated %d MiB", alloc>>20)
	}
	if raw, err := c.Call(ctx, "ping", nil); err != nil || string(raw) != "{}" {
		t.Errorf("the call after the oversize answer = %s, %v", raw, err)
	}
	if vs := v.get(); len(vs) != 0 {
		t.Errorf("violations = %+v", vs)
	}
}

// A 64 MiB line with no id is a line_too_long violation, and does not hold
// up the answer after it.
func TestOversizeLineWithoutID(t *testing.T) {
	var v violations
	cfg := sh(`read req
` + bigLine(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"`, 64, `"}}`) + `
echo '{"jsonrpc":"2.0","id":1,"result":{}}'
cat >/dev/null`)
	cfg.OnViolation = v.add
	p := start(t, cfg)
	c := rpc.New(p.Connection(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if raw, err := c.Call(ctx, "ping", nil); err != nil || string(raw) != "{}" {
		t.Fatalf("Call = %s, %v", raw, err)
	}
	vs := v.get()
	if len(vs) != 1 || vs[0].Kind != KindLineTooLong || !strings.HasPrefix(vs[0].Excerpt, `{"jsonrpc":"2.0","method"`) {
		t.Errorf("violations = %+v, want one line_too_long", vs)
	}
}

// An answer that never ends shows in PendingLine after the call timed out.
func TestPendingLine(t *testing.T) {
	cfg := sh(`read req
printf '{"jsonrpc":"2.0","id":1,"result":{"x":"'
head -c 1000000 /dev/zero | tr '\0' x
sleep 30`)
	p := start(t, cfg)
	if n := p.PendingLine(); n != 0 {
		t.Fatalf("PendingLine before any output = %d", n)
	}
	c := rpc.New(p.Connection(), nil)
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if _, err := c.Call(ctx, "tools/call", nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call = %v, want a timeout", err)
	}
	if n := p.PendingLine(); n < 1000000 {
		t.Fatalf("PendingLine = %d, want the 1 MB written", n)
	}
}

// A malformed answer padded past the cap is still malformed: the Oversize
// says why.
func TestOversizeMalformed(t *testing.T) {
	for _, tc := range []struct{ pre, post, want string }{
		{`{"jsonrpc":"1.0","id":1,"result":{"content":[{"type":"text","text":"`, `"}]}}`, `"jsonrpc" is not "2.0"`},
		{`{"jsonrpc":"2.0","id":1,"result":"`, `"}`, `"result" is not an object`},
		{`{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"`, `"}]}}`, ""},
	} {
		cfg := sh(`read req
` + bigLine(tc.pre, 1, tc.post) + `
cat >/dev/null`)
		cfg.MaxLine = 64 << 10
		p := start(t, cfg)
		c := rpc.New(p.Connection(), nil)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := c.Call(ctx, "tools/call", nil)
		cancel()
		var o *rpc.Oversize
		if !errors.As(err, &o) || o.Malformed != tc.want {
			t.Errorf("%s...%s: Call = %v, want an Oversize malformed %q", tc.pre, tc.post, err, tc.want)
		}
		c.Close()
	}
}
