// Package score turns a finished [report.Report] into the six dimension scores,
// the overall score and grade with its caps, and the critical callout (SPEC §10).
// It also checks the CI gates (--fail-under, --fail-on, --baseline with
// --fail-on-new) against a scored report; see [Check].
package score
