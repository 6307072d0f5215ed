package rawserver

import "encoding/json"

// PoliteTool is a read-only tool with the [OneString] schema whose answers
// (see [PoliteAnswer]) are beyond reproach: fixtures that misbehave on the
// wire around a call use it, so the call itself is not what is judged.
func PoliteTool(name string) map[string]any {
	return Tool(name, "Answer the text q back; a well-behaved tool.", OneString())
}

// PoliteAnswer is the answer of a [PoliteTool]: a text result when the
// arguments are an object whose q is a string, an isError result otherwise.
func PoliteAnswer(p *CallParams) map[string]any {
	var args struct {
		Q *string `json:"q"`
	}
	if json.Unmarshal(p.Arguments, &args) != nil || args.Q == nil {
		r := ErrorText(`"q" is required and must be a string`)
		return r
	}
	return Text("answered " + p.Name)
}

// PoliteMethods returns the handlers of a server whose one tool, name, is a
// [PoliteTool] (tools/list and tools/call), plus extra: the handlers of a
// fixture that misbehaves elsewhere (the handshake, say).
func PoliteMethods(name string, extra map[string]Handler) map[string]Handler {
	m := map[string]Handler{
		"tools/list": func(*Server, *Request) (any, error) {
			return map[string]any{"tools": []any{PoliteTool(name)}}, nil
		},
		"tools/call": func(_ *Server, req *Request) (any, error) {
			p, err := DecodeCall(req)
			if err != nil {
				return nil, err
			}
			return PoliteAnswer(p), nil
		},
	}
	for k, h := range extra {
		m[k] = h
	}
	return m
}
