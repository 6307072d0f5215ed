package casegen

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

func TestDeterministic(t *testing.T) {
	t.Parallel()
	for _, opts := range []Options{{}, {Seed: 7, Budget: 15}, {Aggressive: true, Seed: 3}} {
		a := Generate("create_item", mustCompile(t, createItem), opts)
		b := Generate("create_item", mustCompile(t, createItem), opts)
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%+v: two runs differ", opts)
		}
	}
	// seed 0 means the default seed 1
	if !reflect.DeepEqual(Generate("x", mustCompile(t, createItem), Options{Budget: 10}), Generate("x", mustCompile(t, createItem), Options{Seed: 1, Budget: 10})) {
		t.Error("seed 0 is not seed 1")
	}
}

// The seed changes pattern strings too, but nothing else about the valid call.
func TestSeedChangesOnlyRandomChoices(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["code","n"],"properties":{"code":{"type":"string","pattern":"^[a-z]{8}$"},"n":{"type":"integer"}}}`)
	a, b := Generate("t", s, Options{Seed: 1}), Generate("t", s, Options{Seed: 99})
	if string(a.Cases[0].Arguments) == string(b.Cases[0].Arguments) {
		t.Errorf("pattern string ignores the seed: %s", a.Cases[0].Arguments)
	}
	if len(a.Cases) != len(b.Cases) {
		t.Errorf("the seed changed the number of cases without a budget")
	}
	for i := range a.Cases {
		if a.Cases[i].ID != b.Cases[i].ID {
			t.Errorf("case %d: %s vs %s", i, a.Cases[i].ID, b.Cases[i].ID)
		}
	}
}

func TestBudget(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, createItem)
	windows := map[string]bool{}
	for seed := int64(1); seed <= 8; seed++ {
		full := Generate("c", s, Options{Seed: seed}) // the seed also picks pattern strings
		if full.Dropped != 0 {
			t.Fatalf("dropped %d without a budget", full.Dropped)
		}
		index := map[string]int{}
		var required []string
		for i, c := range full.Cases {
			index[c.ID] = i
			if c.Kind == MissingRequired {
				required = append(required, c.ID)
			}
		}
		const budget = 15
		p := Generate("c", s, Options{Seed: seed, Budget: budget})
		if len(p.Cases) != budget || p.Dropped != len(full.Cases)-budget {
			t.Fatalf("seed %d: %d cases, %d dropped; want %d and %d", seed, len(p.Cases), p.Dropped, budget, len(full.Cases)-budget)
		}
		if p.Cases[0].Kind != Valid {
			t.Errorf("seed %d: valid case not first", seed)
		}
		for _, id := range required {
			if !hasCase(p, id) {
				t.Errorf("seed %d: budget dropped %s", seed, id)
			}
		}
		last := -1
		for _, c := range p.Cases {
			if i, ok := index[c.ID]; !ok || i <= last {
				t.Errorf("seed %d: %s out of order or unknown", seed, c.ID)
			} else {
				last = i
			}
			if !reflect.DeepEqual(c, full.Cases[index[c.ID]]) {
				t.Errorf("seed %d: %s differs from the unbudgeted case", seed, c.ID)
			}
		}
		windows[ids(p)] = true
	}
	if len(windows) < 4 {
		t.Errorf("8 seeds gave only %d distinct windows", len(windows))
	}
}

func TestBudgetWindowIsContiguousWithWrap(t *testing.T) {
	t.Parallel()
	specs := make([]spec, 10)
	specs[0].kind = Valid
	specs[3].kind = MissingRequired
	for seed := int64(0); seed < 50; seed++ {
		keep, dropped, _ := applyBudget(specs, 5, seed)
		if len(keep) != 5 || dropped != 5 || keep[0] != 0 {
			t.Fatalf("seed %d: keep %v dropped %d", seed, keep, dropped)
		}
		rest := map[int]bool{}
		for _, i := range keep {
			if i != 0 && i != 3 {
				rest[i] = true
			}
		}
		// the 3 chosen among the 8 others (1,2,4..9) must be consecutive in that ring
		ring := []int{1, 2, 4, 5, 6, 7, 8, 9}
		ok := false
		for start := range ring {
			if rest[ring[start]] && rest[ring[(start+1)%8]] && rest[ring[(start+2)%8]] {
				ok = true
			}
		}
		if !ok {
			t.Errorf("seed %d: window %v is not contiguous", seed, keep)
		}
	}
	if keep, dropped, _ := applyBudget(specs, 0, 1); len(keep) != 10 || dropped != 0 {
		t.Errorf("budget 0 is not unlimited: %v", keep)
	}
}

// When the missing_required cases alone exceed the budget, the budget still
// holds: the valid case and a seed-dependent contiguous window of them.
func TestBudgetWindowOverMissingRequired(t *testing.T) {
	t.Parallel()
	specs := make([]spec, 10)
	specs[0].kind = Valid
	for _, i := range []int{1, 2, 3, 5, 8} {
		specs[i].kind = MissingRequired
	}
	ring := []int{1, 2, 3, 5, 8}
	windows := map[string]bool{}
	for seed := int64(0); seed < 50; seed++ {
		keep, dropped, droppedRequired := applyBudget(specs, 3, seed)
		if len(keep) != 3 || keep[0] != 0 || dropped != 7 || droppedRequired != 3 {
			t.Fatalf("seed %d: keep %v dropped %d (%d missing_required)", seed, keep, dropped, droppedRequired)
		}
		a, b := keep[1], keep[2]
		ok := false
		for k := range ring {
			x, y := ring[k], ring[(k+1)%len(ring)]
			if (a == x && b == y) || (a == y && b == x) {
				ok = true
			}
		}
		if !ok {
			t.Errorf("seed %d: %v is not a window of the missing_required cases", seed, keep)
		}
		windows[fmt.Sprint(keep)] = true
	}
	if len(windows) < 3 {
		t.Errorf("50 seeds gave %d windows", len(windows))
	}
	if keep, _, _ := applyBudget(specs, 1, 1); !reflect.DeepEqual(keep, []int{0}) {
		t.Errorf("budget 1 keeps %v", keep)
	}
}

func TestValidateRawArguments(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, createItem)
	if err := s.Validate(json.RawMessage(`{"name":"a","owner":{"id":1}}`)); err != nil {
		t.Errorf("valid arguments rejected: %v", err)
	}
	if err := s.Validate(json.RawMessage(`{"name":"a"}`)); err == nil {
		t.Error("missing owner accepted")
	}
	if err := s.Validate(json.RawMessage(`{`)); err == nil {
		t.Error("invalid JSON accepted")
	}
}

func TestGenerateNilSchema(t *testing.T) {
	t.Parallel()
	p := Generate("t", nil, Options{})
	checkPlanShape(t, p)
	if string(p.Cases[0].Arguments) != `{}` {
		t.Errorf("valid = %s", p.Cases[0].Arguments)
	}
}

func TestConcurrentGenerate(t *testing.T) {
	t.Parallel()
	s := mustCompile(t, `{"type":"object","required":["v"],"properties":{"v":{"oneOf":[{"type":"integer","minimum":10},{"type":"string"}]}}}`)
	want := Generate("t", s, Options{})
	done := make(chan Plan)
	for i := 0; i < 8; i++ {
		go func() { done <- Generate("t", s, Options{}) }()
	}
	for i := 0; i < 8; i++ {
		if got := <-done; !reflect.DeepEqual(got, want) {
			t.Error("concurrent Generate differs")
		}
	}
}
