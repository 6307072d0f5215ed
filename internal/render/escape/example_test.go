package escape_test

import (
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
)

func ExampleMarkdownInline() {
	fmt.Printf("%q\n", escape.MarkdownInline("a|b <!-- x --> @everyone \x1b[31mred\x1b[0m\nnext", 0))
	fmt.Println(escape.MarkdownInline("a long tool description", 10))
	// Output:
	// "a\\|b &lt;!-- x --&gt; @\u200deveryone red next"
	// a long to…
}

func ExampleMarkdownCode() {
	fmt.Println(escape.MarkdownCode("echo ```", 0))
	// Output:
	// ````
	// echo ```
	// ````
}
