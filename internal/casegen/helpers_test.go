package casegen

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestMain(m *testing.M) {
	recoverPanics = false // let tests and fuzzing see panics
	os.Exit(m.Run())
}

// mustCompile compiles a schema that is expected to compile cleanly.
func mustCompile(t testing.TB, raw string) *Schema {
	t.Helper()
	s, probs := Compile(json.RawMessage(raw))
	if !s.Compiled() {
		t.Fatalf("schema did not compile: %v\n%s", probs, raw)
	}
	return s
}

// caseByID returns the case with that id, failing the test when absent.
func caseByID(t testing.TB, p Plan, id string) Case {
	t.Helper()
	for _, c := range p.Cases {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no case %q; have:\n%s", id, ids(p))
	return Case{}
}

func hasCase(p Plan, id string) bool {
	for _, c := range p.Cases {
		if c.ID == id {
			return true
		}
	}
	return false
}

func ids(p Plan) string {
	var b strings.Builder
	for _, c := range p.Cases {
		b.WriteString(c.ID + "\n")
	}
	return b.String()
}

func hasProblem(probs []Problem, code string) bool {
	for _, p := range probs {
		if p.Code == code {
			return true
		}
	}
	return false
}

// decodeArgs decodes a case's arguments with numbers kept as json.Number.
func decodeArgs(t testing.TB, raw json.RawMessage) any {
	t.Helper()
	v, err := normalizeRaw(raw)
	if err != nil {
		t.Fatalf("arguments are not JSON: %v: %s", err, raw)
	}
	return v
}

func normalizeRaw(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(strings.NewReader(string(raw)))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// nested builds a schema whose properties nest depth levels deep.
func nested(depth int) string {
	var b strings.Builder
	for i := 0; i < depth; i++ {
		b.WriteString(`{"type":"object","required":["a"],"properties":{"a":`)
	}
	b.WriteString(`{"type":"string"}`)
	for i := 0; i < depth; i++ {
		b.WriteString(`}}`)
	}
	return b.String()
}

// nestedItems builds a schema whose arrays nest depth levels deep.
func nestedItems(depth int) string {
	return `{"type":"object","properties":{"a":` + strings.Repeat(`{"type":"array","items":`, depth) + `{"type":"string"}` + strings.Repeat(`}`, depth) + `}}`
}
