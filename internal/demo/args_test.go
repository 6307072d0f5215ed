package demo

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestArgs(t *testing.T) {
	tests := []struct {
		raw     string
		wantErr string // "" for none
	}{
		{``, `"n" is required`},
		{`{"n": 5}`, ""},
		{`{"n": 5.0}`, ""},
		{`{"n": 5, "s": "héllo"}`, ""},
		{`{"n": 5, "s": "héllo!"}`, `"s" must be 0 to 5 characters long, got 6`},
		{`{"n": 5.5}`, `"n" must be an integer`},
		{`{"n": "5"}`, `got string "5"`},
		{`{"n": null}`, "got null:"},
		{`{"n": 1e308}`, "must be from 1 to 10, got 1e308"},
		{`{"n": -9223372036854775808}`, "must be from 1 to 10"},
		{`{"n": 0}`, "must be from 1 to 10, got 0"},
		{`{"n": 1, "b": "true"}`, `"b" must be true or false`},
		{`{"n": 1, "x": 1}`, `unknown argument "x": t accepts only b, n, s`},
		{`[]`, "must be a JSON object, got array"},
		{`"str"`, "must be a JSON object, got string"},
		{`null`, "must be a JSON object, got null"},
	}
	for _, tt := range tests {
		a := readArgs("t", json.RawMessage(tt.raw))
		a.integer("n", true, 1, 10, "hint")
		a.str("s", false, 0, 5, "hint")
		a.boolean("b", false, "hint")
		a.closed()
		err := a.err()
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: unexpected error %v", tt.raw, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", tt.raw, err, tt.wantErr)
		}
	}
}
