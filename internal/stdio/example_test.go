//go:build unix

package stdio_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/stdio"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

func ExampleStart() {
	env, err := stdio.MinimalEnv(os.LookupEnv, []string{"MODE=demo"}, nil)
	if err != nil {
		panic(err)
	}
	p, err := stdio.Start(stdio.Config{
		Path: "sh",
		Args: []string{"-c", `echo "server starting"; echo '{"jsonrpc":"2.0","id":1,"result":{}}'; exit 3`},
		Env:  env,
		OnViolation: func(v stdio.Violation) {
			fmt.Printf("violation %s: %s\n", v.Kind, v.Excerpt)
		},
	})
	if err != nil {
		panic(err)
	}
	defer p.Stop()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg, err := p.Connection().Read(ctx)
	if err != nil {
		panic(err)
	}
	if resp, ok := msg.(*jsonrpc.Response); ok {
		fmt.Println("response to request", resp.ID.Raw())
	}
	_, err = p.Connection().Read(ctx)
	fmt.Println("then:", err)
	<-p.Done()
	fmt.Println("status:", p.ExitStatus())
	// Output:
	// violation non_jsonrpc_line: server starting
	// response to request 1
	// then: server connection closed: EOF
	// status: exit code 3
}
