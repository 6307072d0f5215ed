package leak_test

import (
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/internal/leak"
)

func ExampleDetector() {
	d := leak.NewDetector(map[string]string{"--env API_KEY": "s3cr3t-value"})
	text := "Error: boom\n    at handler (/app/server.js:10:5)\nkey=s3cr3t-value"
	for _, m := range d.Find(text) {
		fmt.Printf("%s (%s): %s\n", m.Kind, m.Detail, m.Excerpt)
	}
	fmt.Println(d.Redact(text))
	// Output:
	// stack_trace (Node stack frame): Error: boom at handler (/app/server.js:10:5) key=***
	// source_path (absolute source path): Error: boom at handler (/app/server.js:10:5) key=***
	// secret_value (value of --env API_KEY): Error: boom at handler (/app/server.js:10:5) key=***
	// Error: boom
	//     at handler (/app/server.js:10:5)
	// key=***
}
