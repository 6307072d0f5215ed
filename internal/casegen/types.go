package casegen

import (
	"encoding/json"

	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Kind names one family of test cases (docs/BEHAVIOUR.md#case-generation).
type Kind string

// The case kinds, in the order [Generate] lists them; their names are the
// report's (report.Kind*).
const (
	Valid           Kind = report.KindValid
	MissingRequired Kind = report.KindMissingRequired
	WrongType       Kind = report.KindWrongType
	Null            Kind = report.KindNull
	OutOfEnum       Kind = report.KindOutOfEnum
	OutOfRange      Kind = report.KindOutOfRange
	ExtraProperty   Kind = report.KindExtraProperty
	Oversize        Kind = report.KindOversize
	Structural      Kind = report.KindStructural
	Probe           Kind = report.KindProbe // only with Options.Aggressive
	// Security cases are made by internal/security, not by [Generate].
	Security Kind = report.KindSecurity
)

// kindOrder is the order in which mutation kinds appear in a [Plan].
var kindOrder = []Kind{MissingRequired, WrongType, Null, OutOfEnum, OutOfRange, ExtraProperty, Oversize, Structural, Probe}

// Case is one call to make.
type Case struct {
	// ID is "TOOL/KIND[/POINTER-without-leading-slash][#variant]", unique within a tool.
	// Kinds that can yield several cases at one pointer (out_of_range, oversize,
	// structural, probe) always carry a variant, so ids stay stable when a schema
	// gains a keyword.
	ID   string
	Tool string
	Kind Kind
	// Pointer is the JSON pointer of the mutated location: "" for the root,
	// e.g. "/owner/id" or "/items/0/name". For extra_property it is the object
	// that received the unknown key.
	Pointer string
	// Nested reports that the mutated value sits at depth >= 2 (inside a nested
	// object or an array item).
	Nested bool
	// Arguments is the exact value to send as params.arguments (not an object
	// for structural cases).
	Arguments json.RawMessage
	// Forbidden reports that the schema rejects Arguments. It comes from the real
	// validator when the schema compiled, from a conservative judgement otherwise,
	// and is always true for structural cases.
	Forbidden   bool
	Description string // one human line, e.g. `drop required property "owner.id"`
}

// Problem is a lint-style finding about the schema itself.
type Problem struct {
	Code     string          // stable, e.g. "properties_not_object"
	Severity report.Severity // error, warning or info
	Pointer  string          // JSON pointer into the inputSchema
	Message  string
}

// Problem severities.
const (
	SevError   = report.SeverityError
	SevWarning = report.SeverityWarning
	SevInfo    = report.SeverityInfo
)

// Options tune [Generate].
type Options struct {
	Seed       int64          // default 1
	Budget     int            // per-tool case budget, a hard cap on len(Plan.Cases); <= 0 means no limit
	Example    map[string]any // user-supplied valid arguments: the valid call and the base of all mutations
	Aggressive bool           // add Probe cases for string properties; 1 MiB / 100,000-item oversize values; a 4 MiB argument cap
}

// Plan is the ordered list of cases for one tool.
type Plan struct {
	Cases []Case // the first element is always the valid case
	// GeneratorGap is non-empty when the valid arguments do not validate against
	// the schema: the validator's one-line message. The valid case is still the
	// first of Cases.
	GeneratorGap string
	// Dropped counts the enumerated cases that are not in Cases: the ones the
	// budget removed and the TooLarge ones.
	Dropped int
	// TooLarge counts the cases (of Dropped) whose arguments would exceed
	// [MaxArgumentBytes] ([MaxArgumentBytesAggressive] with
	// Options.Aggressive); they are never built.
	TooLarge int
	// DroppedRequired counts the missing_required cases among Dropped. The
	// budget keeps every missing_required case when they fit; when they alone
	// exceed it, it keeps a seed-dependent window of them.
	DroppedRequired int
}
