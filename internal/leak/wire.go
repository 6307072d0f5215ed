package leak

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Sources returns the names of the given secrets that occur in text, in any of
// their forms, in any ASCII letter case and with invisible characters inside,
// in the order they were given to [NewDetector] (sorted by name). Unlike
// [Detector.Find] it looks at the whole text.
func (d *Detector) Sources(text string) []string {
	in := make([]bool, len(d.secrets))
	d.valueHits(text, false, func(n *needle, _ span) {
		for _, i := range n.secrets {
			in[i] = true
		}
	})
	var out []string
	for i, s := range d.secrets {
		if in[i] {
			out = append(out, s.name)
		}
	}
	return out
}

// Empty reports whether the detector was given no secret to redact.
func (d *Detector) Empty() bool { return len(d.secrets) == 0 }

// RedactJSON returns raw, a JSON value as a server sent it, with every given
// secret replaced by "***" in every string and key, and the names of the
// secrets it carried. The result is valid JSON whenever raw is: when replacing
// in the text would break its structure (a secret spanning a quote, say), the
// value is decoded, redacted string by string and encoded again. Invalid JSON
// is redacted as text. A secret written with escapes of the server's
// choosing is found in the decoded text, and then redacted string by string.
// Secret-shaped strings are left alone here: the run
// works on the server's text, and what a report writes is redacted by shape
// too (see [Detector.Redact] and [Detector.RedactReport]).
func (d *Detector) RedactJSON(raw json.RawMessage) (json.RawMessage, []string) {
	if len(d.secrets) == 0 || len(raw) == 0 {
		return raw, nil
	}
	text := string(raw)
	found := d.Sources(text)
	escaped := false // the secrets are in text only once it is decoded
	if len(found) == 0 {
		// A secret spelled with \u escapes of the server's choosing
		// (sekrit\u002dcanary) is the secret once decoded; the other
		// escapes are among the forms looked for already.
		if !strings.Contains(text, `\u`) {
			return raw, nil
		}
		decoded := UnescapeJSON(text)
		if found = d.Sources(decoded); len(found) == 0 {
			return raw, nil
		}
		text, escaped = decoded, true
	}
	// A form without a quote matches inside one string or outside all of
	// them, where "***" cannot form valid JSON: the text replacement is
	// safe exactly when its result is valid and no form has a quote.
	out := d.redactValues(text)
	if !json.Valid(raw) || !escaped && json.Valid([]byte(out)) && !d.quoted {
		return json.RawMessage(out), found
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return json.RawMessage(out), found
	}
	b, err := json.Marshal(d.redactTree(v))
	if err != nil {
		return json.RawMessage(`"***"`), found
	}
	return b, found
}

// redactTree redacts every string and key of a decoded JSON value.
func (d *Detector) redactTree(v any) any {
	switch x := v.(type) {
	case string:
		return d.redactValues(x)
	case []any:
		for i := range x {
			x[i] = d.redactTree(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[d.redactValues(k)] = d.redactTree(e)
		}
		return out
	}
	return v
}

// RedactText is [Detector.RedactJSON] for plain text: the given secrets
// replaced by "***", and the names of those it carried.
func (d *Detector) RedactText(text string) (string, []string) {
	if len(d.secrets) == 0 {
		return text, nil
	}
	found := d.Sources(text)
	if len(found) == 0 {
		return text, nil
	}
	return d.redactValues(text), found
}

// RedactReport is [Detector.Redact] for a JSON value that a report
// writes (arguments, capabilities, a schema): the given secrets and every
// secret shape replaced by "***" in its strings and keys. The result is
// valid JSON whenever raw is: when redacting the text would break its
// structure (a private key that runs past its string), the value is decoded,
// redacted string by string and encoded again. Invalid JSON is redacted as
// text.
func (d *Detector) RedactReport(raw json.RawMessage) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	out := d.Redact(string(raw))
	if out == string(raw) {
		return raw
	}
	if !json.Valid(raw) || json.Valid([]byte(out)) {
		return json.RawMessage(out)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return json.RawMessage(out)
	}
	b, err := json.Marshal(d.redactAll(v))
	if err != nil {
		return json.RawMessage(`"***"`)
	}
	return b
}

// redactAll is [Detector.redactTree] with [Detector.Redact].
func (d *Detector) redactAll(v any) any {
	switch x := v.(type) {
	case string:
		return d.Redact(x)
	case []any:
		for i := range x {
			x[i] = d.redactAll(x[i])
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[d.Redact(k)] = d.redactAll(e)
		}
		return out
	}
	return v
}
