// Package render turns a finished [report.Report] into the formats people and
// tools read: Markdown (job summary, PR comment), JUnit XML, SARIF 2.1.0, a
// JSON Lines trace, a shields.io badge (URL and self-contained SVG) and the
// terminal output. Every renderer is a pure function of the report; all
// server-supplied text goes through package [escape] first.
package render
