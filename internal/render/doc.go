// Package render turns a finished [report.Report] into the formats people and
// tools read: the terminal summary (and its --verbose listing), Markdown (job summary, PR comment), JUnit
// XML, SARIF 2.1.0, a JSON Lines trace, a shields.io badge (URL and
// self-contained SVG) and the JSON report. Every renderer is a pure function
// of the report; all server-supplied text goes through package [escape] first.
// [Formats], [ByName] and [ForPath] are the registry the command line and the
// Action pick a format from.
//
// The two terminal outputs and Markdown draw the same sections: each walks
// one model of the report, in which server text is a text.Untrusted that
// only the escaper of a medium can write out.
package render
