package engine

import (
	"context"
	"encoding/json"
	"maps"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mcp-fuzz/mcp-fuzz/internal/fixture"
	"github.com/mcp-fuzz/mcp-fuzz/internal/render"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// shapeLeakBodies are pieces of the secrets hostile-shape-leak writes (see
// its doc comment), the parts that survive any escaping a format does: none
// may appear in anything written.
var shapeLeakBodies = []string{
	"Nm4xNm4x", "Tt5yTt5y", "NAMEVERSION2QXYZ", "InStRuCtIoNs42abc", "Sp1tSp1t",
	"JwtSignatureBody", "eyJzdWIiOiJJbnN0cnVjdGlvbnMifQ", "Tl7zTl7z", "SyDescriptionKey",
	"Mny8Mny8", "EnumValue0123", "LmX2vRt9KpW4nBc6", "Df6wDf6w", "ExampleKey0123",
	"RESULTVALUE7QXYZ", "Rs9vRs9v", "NpQ8sW2xZ6cK9mT4", "ERRORBODY0123", "St3rSt3r",
	"b3BlbnNzaC1rZXkt",
}

// shapeLeakHealthy is healthy text of the clean twin that must come through
// as it is.
var shapeLeakHealthy = []string{
	"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", // server name
	"da39a3ee5e6b4b0d3255bfef95601890afd80709",                         // version
	"127.0.0.1,localhost,::1",                                          // instructions
	"/usr/local/share/shape-leak/data.json",                            // instructions
	"VGhlIHF1aWNrIGJyb3duIGZveCBqdW1wcyBvdmVyIHRoZSBsYXp5IGRvZw==",     // description
	"AbstractSingletonProxyFactoryBean2Impl",                           // description
	"9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", // results
}

// renderAll renders rep in every format, the text format both as the
// summary and verbose, and the JSON of the report itself.
func renderAll(t *testing.T, rep *report.Report) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range render.Formats() {
		for _, verbose := range []bool{false, true} {
			b, err := f.Render(rep, render.Options{Verbose: verbose, Width: 100})
			if err != nil {
				t.Fatalf("render %s: %v", f.Name, err)
			}
			name := f.Name
			if verbose {
				name += " (verbose)"
			}
			out[name] = string(b)
		}
	}
	js, err := json.Marshal(rep)
	if err != nil {
		t.Fatal(err)
	}
	out["report"] = string(js)
	return out
}

func caseVerdicts(rep *report.Report) map[string]report.Verdict {
	out := map[string]report.Verdict{}
	for _, tl := range rep.Tools {
		for _, c := range tl.Cases {
			out[tl.Name+"/"+c.ID] = c.Verdict
		}
	}
	return out
}

// A server writes secrets mcp-fuzz was never given, by shape only, into
// its metadata, schema, results, errors and stderr: none reaches any
// format nor the progress events, the leak in its results is still a finding, and its clean twin
// has the same verdicts and nothing redacted.
func TestShapeRedactionEverywhere(t *testing.T) {
	parallel(t)
	var dirty, clean *report.Report
	t.Run("hostile", func(t *testing.T) {
		parallel(t)
		var mu sync.Mutex
		var events strings.Builder
		dirty = runFixture(t, "hostile-shape-leak", func(c *Config) {
			c.Progress = func(e Event) {
				b, _ := json.Marshal(e)
				mu.Lock()
				events.Write(b)
				mu.Unlock()
			}
		})
		outputs := renderAll(t, dirty)
		outputs["progress events"] = events.String()
		if !strings.Contains(outputs["progress events"], `"verdict"`) {
			t.Error("no progress event carried a case")
		}
		for format, text := range outputs {
			for _, body := range shapeLeakBodies {
				if strings.Contains(text, body) {
					i := strings.Index(text, body)
					t.Errorf("%s holds the secret piece %q: …%s…", format, body, text[max(0, i-80):min(len(text), i+80)])
				}
			}
		}
		for what, s := range map[string]string{"server name": dirty.Server.Name, "version": dirty.Server.Version, "instructions": dirty.Server.Instructions} {
			if !strings.Contains(s, "***") {
				t.Errorf("%s %q: nothing redacted", what, s)
			}
		}
		if names := []string{dirty.Tools[0].Name, dirty.Tools[1].Name}; !strings.Contains(strings.Join(names, " "), "lookup") {
			t.Errorf("tool names changed: %v", names)
		}
		leaks, stderr := 0, false
		for _, c := range cases(dirty) {
			for _, f := range c.Flags {
				if f == report.FlagLeak {
					leaks++
				}
			}
			if c.Crash != nil && strings.Contains(c.Crash.Stderr, "***") {
				stderr = true
			}
		}
		if leaks == 0 {
			t.Error("no case is flagged as a leak: redaction hid the finding")
		}
		if !stderr {
			t.Error("no crash's stderr tail shows a redaction")
		}
	})
	t.Run("clean twin", func(t *testing.T) {
		parallel(t)
		clean = runFixture(t, "hostile-shape-leak", func(c *Config) { c.Command = append(c.Command, "-clean") })
		out := renderAll(t, clean)
		for format, text := range out {
			if strings.Contains(text, "***") {
				i := strings.Index(text, "***")
				t.Errorf("%s of the clean twin has a redaction: …%s…", format, text[max(0, i-80):min(len(text), i+80)])
			}
		}
		for _, s := range shapeLeakHealthy {
			if !strings.Contains(out["report"], s) {
				t.Errorf("the clean twin's report lacks %q", s)
			}
		}
		for _, c := range cases(clean) {
			for _, f := range c.Flags {
				if f == report.FlagLeak {
					t.Errorf("case %s of the clean twin is flagged as a leak", c.ID)
				}
			}
		}
	})
	t.Cleanup(func() {
		if dirty == nil || clean == nil || t.Failed() {
			return
		}
		if d, c := caseVerdicts(dirty), caseVerdicts(clean); !maps.Equal(d, c) {
			t.Errorf("the verdicts differ:\nhostile %v\nclean   %v", d, c)
		}
	})
}

// Plan's preview (the schemas as listed, the cases it would send, the
// valid call kept for example skeletons) is redacted too.
func TestShapeRedactionInPlan(t *testing.T) {
	parallel(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	p, err := Plan(ctx, Config{Command: []string{fixture.Build(t, "hostile-shape-leak")}, Timeout: 2 * time.Second, StartupTimeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	js, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	text := string(js)
	for _, tl := range p.Tools {
		text += string(tl.Valid)
	}
	for _, body := range shapeLeakBodies {
		if strings.Contains(text, body) {
			t.Errorf("the preview holds the secret piece %q", body)
		}
	}
}
