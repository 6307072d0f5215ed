// Command exit-after-answer is a raw fixture server that exits right after
// it answered a call, without reading the next request: the exit belongs to
// the call it answered, not to the next one, which never reached it.
// Requests are read one at a time, so the next request is always left
// unread in the pipe.
//   - status (read-only): answers every call like a polite tool; right after
//     answering its Nth valid call (N is EXIT_AFTER_VALID, default 3: a
//     --repeat 3 run) it exits with code 3.
//   - probe (read-only): answers every call like a polite tool; right after
//     answering a call whose arguments carry a property other than q (an
//     extra_property case) it exits with code 4.
//   - color (read-only): knows the colors teal and plum and says so in the
//     error answer to any other (from which a valid call can be learned);
//     with EXIT_ON_UNKNOWN_COLOR set, it exits with code 5 right after that
//     error answer.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"

	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/rawserver"
)

func main() {
	exitAfter := 3
	if n, err := strconv.Atoi(os.Getenv("EXIT_AFTER_VALID")); err == nil && n > 0 {
		exitAfter = n
	}
	valid := 0
	rawserver.Main(&rawserver.Server{
		Name:    "exit-after-answer",
		Version: "1.0.0",
		Methods: map[string]rawserver.Handler{
			"tools/list": func(*rawserver.Server, *rawserver.Request) (any, error) {
				return map[string]any{"tools": []any{
					rawserver.Tool("status", "Answer the text q back; exits after answering a number of valid calls.", rawserver.OneString()),
					rawserver.Tool("probe", "Answer the text q back; exits after answering a call with an unknown property.", rawserver.OneString()),
					rawserver.Tool("color", "Describe a color.", map[string]any{
						"type":       "object",
						"properties": map[string]any{"color_name": map[string]any{"type": "string", "minLength": 1, "maxLength": 30}},
						"required":   []string{"color_name"},
					}),
				}}, nil
			},
			"tools/call": func(s *rawserver.Server, req *rawserver.Request) (any, error) {
				p, err := rawserver.DecodeCall(req)
				if err != nil {
					return nil, err
				}
				var args map[string]json.RawMessage
				_ = json.Unmarshal(p.Arguments, &args)
				var q *string
				isValid := len(args) == 1 && json.Unmarshal(args["q"], &q) == nil && q != nil
				extra := false
				for k := range args {
					extra = extra || k != "q"
				}
				exit, code := "", 0
				answer := rawserver.PoliteAnswer(p)
				switch p.Name {
				case "color":
					var color string
					_ = json.Unmarshal(args["color_name"], &color)
					if color == "teal" || color == "plum" {
						answer = rawserver.Text(color + " is a color")
						break
					}
					answer = rawserver.ErrorText(fmt.Sprintf("unknown color %q: expected one of: teal, plum", color))
					if os.Getenv("EXIT_ON_UNKNOWN_COLOR") != "" {
						exit, code = "answered an unknown color", 5
					}
				case "status":
					if isValid {
						valid++
						if valid == exitAfter {
							exit, code = fmt.Sprintf("answered valid call %d", valid), 3
						}
					}
				case "probe":
					if extra {
						exit, code = "answered a call with an extra property", 4
					}
				default:
					return nil, rawserver.UnknownTool(p.Name)
				}
				if err := s.Respond(req.ID, answer, nil); err != nil {
					return nil, err
				}
				if exit != "" {
					fmt.Fprintf(os.Stderr, "exit-after-answer: %s, exiting\n", exit)
					os.Exit(code)
				}
				return nil, rawserver.ErrAnswered
			},
		},
	})
}
