package render

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// JSON renders rep as the JSON report (docs/BEHAVIOUR.md#outputs-and-the-report), ending in a newline, with
// the control characters encoding/json leaves raw escaped (see
// [escape.JSON]). The layout keeps the report small yet readable: the
// top-level object, its tools and their case lists are indented, while each
// case, finding, lint entry and every other value sits on one line.
func JSON(rep *report.Report) ([]byte, error) { return layoutJSON(rep, reportExpanded) }

// MergedJSON renders several reports (the legs of a matrix) as one JSON
// array of reports, each laid out and escaped as [JSON] does.
func MergedJSON(reps []*report.Report) ([]byte, error) {
	return layoutJSON(reps, func(path []string) bool {
		return len(path) == 0 || reportExpanded(path[1:])
	})
}

// reportExpanded says which containers of a report are spread over lines,
// by their path from the root ("*" for any array element).
func reportExpanded(path []string) bool {
	switch len(path) {
	case 0:
		return true
	case 1:
		switch path[0] {
		case "tools", "findings", "lint", "caps", "dimensions":
			return true
		}
	case 2:
		return path[0] == "tools"
	case 3:
		return path[0] == "tools" && path[2] == "cases"
	}
	return false
}

func layoutJSON(v any, expanded func(path []string) bool) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding report: %w", err)
	}
	return append(layout(escape.JSON(b), expanded), '\n'), nil
}

// layout re-indents compact JSON (as encoding/json writes it): a container
// for which expanded(path) is true has one member per line, indented by two
// spaces a level; every other container stays on one line. The result
// decodes to the same value.
func layout(src []byte, expanded func(path []string) bool) []byte {
	type frame struct {
		expanded bool
		object   bool
		key      string // the member being written, in an object
	}
	var (
		out     = make([]byte, 0, len(src)+len(src)/8)
		stack   []frame
		path    []string
		wantKey bool // the next string in an object is a key
	)
	newline := func(depth int) {
		out = append(out, '\n')
		out = append(out, bytes.Repeat([]byte("  "), depth)...)
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		switch c {
		case '"':
			j := i + 1
			for ; j < len(src) && src[j] != '"'; j++ {
				if src[j] == '\\' {
					j++
				}
			}
			if wantKey {
				// Keys are plain in the report; decoding keeps the path exact.
				var k string
				_ = json.Unmarshal(src[i:j+1], &k)
				stack[len(stack)-1].key = k
				wantKey = false
			}
			out = append(out, src[i:j+1]...)
			i = j
		case '{', '[':
			if n := len(stack); n > 0 {
				if stack[n-1].object {
					path = append(path, stack[n-1].key)
				} else {
					path = append(path, "*")
				}
			}
			f := frame{expanded: expanded(path), object: c == '{'}
			stack = append(stack, f)
			out = append(out, c)
			wantKey = f.object
			if f.expanded && i+1 < len(src) && src[i+1] != '}' && src[i+1] != ']' {
				newline(len(stack))
			}
		case '}', ']':
			f := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if f.expanded && src[i-1] != '{' && src[i-1] != '[' {
				newline(len(stack))
			}
			out = append(out, c)
			if len(path) > 0 && len(stack) > 0 {
				path = path[:len(path)-1]
			}
			wantKey = false
		case ',':
			out = append(out, c)
			f := stack[len(stack)-1]
			if f.expanded {
				newline(len(stack))
			}
			wantKey = f.object
		case ':':
			out = append(out, c)
			if stack[len(stack)-1].expanded {
				out = append(out, ' ')
			}
		default:
			out = append(out, c)
		}
	}
	return out
}
