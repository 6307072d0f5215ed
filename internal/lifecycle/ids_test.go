package lifecycle

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

func TestFindID(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text, structured string
		args             map[string]any
		want             string
	}{
		{`{"id":"note-1","title":"x"}`, "", nil, "note-1"},
		{`{"note_id":"n-9","id":"other","project_id":"p"}`, "", nil, "n-9"},
		{`{"note":{"id":7}}`, "", nil, "7"},
		{`[{"name":"alice","entityType":"person"}]`, "", nil, "alice"},
		{"text", `{"noteId":"s-1"}`, nil, "s-1"},
		{"Created project 6f1c2e0a-0000-4000-8000-000000000004.", "", nil, "6f1c2e0a-0000-4000-8000-000000000004"},
		{"Saved 'groceries'.", "", map[string]any{"title": "groceries"}, "groceries"},
		{"done", "", map[string]any{"title": "groceries"}, ""},
	} {
		id, _ := findID(tc.text, json.RawMessage(tc.structured), "note", tc.args)
		got := ""
		if id != nil {
			got = fmt.Sprint(id)
		}
		if got != tc.want {
			t.Errorf("findID(%q, %q) = %q, want %q", tc.text, tc.structured, got, tc.want)
		}
	}
}

func TestIDValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		id   any
		arg  idArg
		want string
	}{
		{"n-1", idArg{}, `"n-1"`},
		{"n-1", idArg{array: true}, `["n-1"]`},
		{json.Number("7"), idArg{}, `"7"`},
		{json.Number("7"), idArg{number: true}, `7`},
		{"7", idArg{number: true}, `7`},
	} {
		b, _ := json.Marshal(idValue(tc.id, tc.arg))
		if string(b) != tc.want {
			t.Errorf("idValue(%v, %+v) = %s, want %s", tc.id, tc.arg, b, tc.want)
		}
	}
}

func TestMentions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		text string
		id   any
		want bool
	}{
		{`{"entities":[],"relations":[]}`, "e", false},
		{`{"entities":[{"name":"e"}]}`, "e", true},
		{`note-12 and note-1`, "note-1", true},
		{`note-12`, "note-1", false},
		{`x_note-1`, "note-1", false},
		{`id: 42.`, json.Number("42"), true},
		{`4242`, json.Number("42"), false},
		{`ok`, "", false},
	} {
		if got := mentions(tc.text, tc.id); got != tc.want {
			t.Errorf("mentions(%q, %v) = %v, want %v", tc.text, tc.id, got, tc.want)
		}
	}
}

// An id the server makes up is shown cut: it is the server's text.
func TestIDTextBounded(t *testing.T) {
	t.Parallel()
	if got := idText("note-1"); got != `id "note-1"` {
		t.Errorf("idText(note-1) = %s", got)
	}
	if got := idText(strings.Repeat("x", 10000)); len(got) > 100 {
		t.Errorf("idText of a 10000-byte id is %d bytes", len(got))
	}
}
