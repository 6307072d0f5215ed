package casegen

import (
	"bytes"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// wideRequired is an object schema with n required string properties.
func wideRequired(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `":{"type":"string"}`)
	}
	b.WriteString(`},"required":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"p` + strconv.Itoa(i) + `"`)
	}
	b.WriteString(`]}`)
	return b.String()
}

// bigEnumRequired is a schema whose one required property has an n-value enum.
func bigEnumRequired(n int) string {
	var b strings.Builder
	b.WriteString(`{"type":"object","required":["e"],"properties":{"e":{"type":"string","enum":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"v` + strconv.Itoa(i) + `"`)
	}
	b.WriteString(`]}}}`)
	return b.String()
}

// allocated returns the bytes the heap allocated while f ran. Allocation is
// deterministic enough to bound; wall time is not.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// checkBounded asserts the plan-level bounds: the budget, the argument cap,
// and that Dropped accounts for its parts.
func checkBounded(t *testing.T, p Plan, opts Options) {
	t.Helper()
	checkPlanShape(t, p)
	if opts.Budget > 0 && len(p.Cases) > opts.Budget {
		t.Errorf("%d cases over the budget of %d", len(p.Cases), opts.Budget)
	}
	for _, c := range p.Cases {
		if len(c.Arguments) > argumentCap(opts) {
			t.Errorf("%s: %d bytes of arguments, over the cap", c.ID, len(c.Arguments))
		}
	}
	if p.TooLarge > p.Dropped || p.DroppedRequired > p.Dropped {
		t.Errorf("dropped %d, of which too large %d, missing_required %d", p.Dropped, p.TooLarge, p.DroppedRequired)
	}
}

// 100,000 required properties: the budget holds although missing_required
// cases alone exceed it, and the whole Generate allocates a bounded amount
// (it allocated 3.2 GiB when every missing_required case was kept).
func TestHugeRequiredStaysInBudget(t *testing.T) {
	s, _ := Compile([]byte(wideRequired(100000)))
	opts := Options{Budget: 40}
	var p Plan
	n := allocated(func() { p = Generate("t", s, opts) })
	checkBounded(t, p, opts)
	t.Logf("%d cases, %d dropped (%d missing_required), %d MiB allocated, gap: %s", len(p.Cases), p.Dropped, p.DroppedRequired, n>>20, p.GeneratorGap)
	if len(p.Cases) != 40 {
		t.Errorf("%d cases, want the budget of 40", len(p.Cases))
	}
	for _, c := range p.Cases[1:] {
		if c.Kind != MissingRequired {
			t.Errorf("%s kept although missing_required cases exceed the budget", c.ID)
		}
	}
	if p.DroppedRequired == 0 {
		t.Error("dropped missing_required cases not counted")
	}
	if !strings.Contains(p.GeneratorGap, "100,000 required properties") {
		t.Errorf("gap %q does not name the requirement the generator could not meet", p.GeneratorGap)
	}
	if n > 200<<20 {
		t.Errorf("Generate allocated %d MiB", n>>20)
	}
	other := Generate("t", s, Options{Budget: 40, Seed: 2})
	if ids(other) == ids(p) {
		t.Error("the window of missing_required cases does not depend on the seed")
	}
}

// Schemas whose bounds would make giant values stay within the argument cap
// and allocate a bounded amount; the valid call is built or is a gap that says why.
func TestGiantBoundsAreBounded(t *testing.T) {
	tests := []struct {
		name, schema string
		gap          string // substring of the expected gap; "" for none
	}{
		{"1,000,000-value enum", bigEnumRequired(1000000), ""},
		{"maxLength 1e18", `{"type":"object","required":["s"],"properties":{"s":{"type":"string","maxLength":1e18}}}`, ""},
		{"minLength 1e9", `{"type":"object","required":["s"],"properties":{"s":{"type":"string","minLength":1000000000}}}`, "minLength 1000000000"},
		{"minItems 1e9", `{"type":"object","required":["a"],"properties":{"a":{"type":"array","minItems":1000000000,"items":{"type":"string"}}}}`, "minItems 1000000000"},
		{"multipleOf 1e-300", `{"type":"object","required":["x"],"properties":{"x":{"type":"number","multipleOf":1e-300}}}`, ""},
		{"minimum 1e308", `{"type":"object","required":["x"],"properties":{"x":{"type":"number","minimum":1e308}}}`, ""},
		{"minLength over the aggressive cap", `{"type":"object","required":["s"],"properties":{"s":{"type":"string","minLength":4194305}}}`, "minLength 4194305"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, probs := Compile([]byte(tt.schema))
			if !s.Compiled() {
				t.Fatalf("did not compile: %v", probs)
			}
			for _, opts := range []Options{{Budget: 40}, {Budget: 40, Aggressive: true}, {}} {
				var p Plan
				n := allocated(func() { p = Generate("t", s, opts) })
				checkBounded(t, p, opts)
				if n > 200<<20 {
					t.Errorf("%+v: Generate allocated %d MiB", opts, n>>20)
				}
				if tt.gap == "" && p.GeneratorGap != "" || !strings.Contains(p.GeneratorGap, tt.gap) {
					t.Errorf("%+v: gap %q, want one containing %q", opts, p.GeneratorGap, tt.gap)
				}
			}
		})
	}
}

// A mutation whose arguments would exceed the cap is not built but counted;
// its neighbours that fit are kept. The aggressive cap keeps it.
func TestTooLargeCasesAreDroppedAndCounted(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["a","b"],"properties":{"a":{"type":"string","minLength":600000},"b":{"type":"string","minLength":1,"maxLength":600000}}}`)
	p := Generate("t", s, Options{})
	checkBounded(t, p, Options{})
	if p.GeneratorGap != "" {
		t.Fatalf("gap: %s", p.GeneratorGap)
	}
	if hasCase(p, "t/out_of_range/b#maxLength") || p.TooLarge != 1 || p.Dropped != 1 {
		t.Errorf("b#maxLength (1.2 MB) kept or not counted: too large %d, dropped %d", p.TooLarge, p.Dropped)
	}
	caseByID(t, p, "t/out_of_range/a#minLength") // replaces a: 600 KB
	caseByID(t, p, "t/oversize/a#string")        // replaces a: 64 KiB
	a := Generate("t", s, Options{Aggressive: true})
	checkBounded(t, a, Options{Aggressive: true})
	if c := caseByID(t, a, "t/out_of_range/b#maxLength"); !c.Forbidden || a.TooLarge != 0 {
		t.Errorf("aggressive: forbidden %v, too large %d", c.Forbidden, a.TooLarge)
	}
}

// A valid call over the cap (here a user example) is not built: a gap. Only
// the mutations that replace the huge value are.
func TestTooLargeValidCallIsAGap(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["a"],"properties":{"a":{"type":"string"}}}`)
	opts := Options{Example: map[string]any{"a": strings.Repeat("x", MaxArgumentBytes)}}
	p := Generate("t", s, opts)
	checkBounded(t, p, opts)
	if !strings.Contains(p.GeneratorGap, "more than the 1 MiB") || string(p.Cases[0].Arguments) != "{}" {
		t.Errorf("gap %q, valid %.40s", p.GeneratorGap, p.Cases[0].Arguments)
	}
	for _, id := range []string{"t/missing_required/a", "t/wrong_type/a", "t/oversize/a#string"} {
		caseByID(t, p, id)
	}
	if hasCase(p, "t/extra_property") || p.TooLarge != 1 {
		t.Errorf("extra_property (over 1 MiB) kept or not counted: too large %d", p.TooLarge)
	}
}

func TestSizeOfBoundsTheEncoding(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{
		`null`, `true`, `false`, `0`, `-1.5e300`, `""`, `"plain"`, `"quote\" back\\ slash"`, `"\u0000\u001f\n\t"`,
		`"Ωé漢字😀\u200b"`, `"\u2028\u2029"`, `"<&>"`, `[]`, `{}`, `[1,"a",[{}],{"k":null}]`,
		`{"a":{"b":[1,2,3],"c":"d"},"e\"f":true}`,
	} {
		v, err := normalizeRaw(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		v, _ = normalize(v)
		got, enc := sizeOf(v), encode(v)
		if got < len(enc) {
			t.Errorf("%s: sizeOf %d < %d", enc, got, len(enc))
		}
		if !bytes.ContainsAny(enc, "\\") && got != len(enc) {
			t.Errorf("%s: sizeOf %d, encoded %d", enc, got, len(enc))
		}
	}
	if got := sizeOf("\xff\xfe"); got < len(encode("\xff\xfe")) {
		t.Errorf("invalid UTF-8: sizeOf %d < %d", got, len(encode("\xff\xfe")))
	}
}

// The size bound of every enumerated case is an upper bound of its real size.
func TestSpecSizeIsAnUpperBound(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{createItem, searchIssues,
		`{"type":"object","properties":{"o":{"type":"object","properties":{"s":{"type":"string","maxLength":5000}}},"a":{"type":"array","items":{"type":"string","minLength":30},"maxItems":900,"uniqueItems":true}}}`} {
		s := mustCompile(t, raw)
		for _, opts := range []Options{{}, {Aggressive: true}} {
			e := enumerate("t", s, opts)
			for k, i := range e.keep {
				c, _ := s.materialize(e.ids[k], "t", e.specs[i])
				if sp := e.specs[i]; sp.kind != Valid && sp.size < len(c.Arguments) {
					t.Errorf("%s: size bound %d < %d", c.ID, sp.size, len(c.Arguments))
				}
			}
		}
	}
}
