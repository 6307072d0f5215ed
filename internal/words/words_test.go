package words

import (
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	for _, tc := range []struct {
		name string
		want []string
	}{
		{"", nil},
		{"__", nil},
		{"homepage_url", []string{"homepage", "url"}},
		{"create-entities", []string{"create", "entities"}},
		{"createEntities", []string{"create", "entities"}},
		{"notes.delete", []string{"notes", "delete"}},
		{"delete note", []string{"delete", "note"}},
		{"ownerID", []string{"owner", "id"}},
		{"targetURLPath", []string{"target", "url", "path"}},
		{"HTTPServer", []string{"http", "server"}},
		{"v2API", []string{"v2", "api"}},
		{"oauth2Token", []string{"oauth2", "token"}},
		{"ÉtatCivil", []string{"état", "civil"}},
	} {
		if got := Split(tc.name); !slices.Equal(got, tc.want) {
			t.Errorf("Split(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestPlural(t *testing.T) {
	for n, want := range map[int]string{0: "0 cases", 1: "1 case", 2: "2 cases"} {
		if got := Plural(n, "case", "cases"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}
