// Package score turns a finished [report.Report] into the six dimension scores,
// the overall score and grade with its caps, and the critical callout (docs/BEHAVIOUR.md#score-grade-gates-and-exit-codes).
// It also checks the CI gates (--fail-under, --fail-on, --baseline with
// --fail-on-new) against a scored report; see [Check].
package score
