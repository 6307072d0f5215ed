package render

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/mcp-fuzz/mcp-fuzz/internal/render/escape"
	"github.com/mcp-fuzz/mcp-fuzz/internal/score"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// badgeLabel is the left half of the badge.
const badgeLabel = "mcp-fuzz"

// gradeColours maps grades to shields.io colour names.
var gradeColours = map[string]string{
	"A": "brightgreen",
	"B": "green",
	"C": "yellow",
	"D": "orange",
	"F": "red",
}

// svgColours are the hex values shields.io uses for those names.
var svgColours = map[string]string{
	"brightgreen": "#4c1",
	"green":       "#97ca00",
	"yellow":      "#dfb317",
	"orange":      "#fe7d37",
	"red":         "#e05d44",
	"lightgrey":   "#9f9f9f",
}

// GradeColour is the shields.io colour name of grade: "brightgreen" for A
// down to "red" for F, and "lightgrey" for "" (not graded) or any other
// text. The PR comment's badge uses it too, so both badges agree.
func GradeColour(grade string) string {
	if c, ok := gradeColours[grade]; ok {
		return c
	}
	return "lightgrey"
}

// badgeColour is the shields.io colour name of rep's grade.
func badgeColour(rep *report.Report) string {
	if rep.Graded && rep.Score != nil && rep.Grade != nil {
		return GradeColour(*rep.Grade)
	}
	return "lightgrey"
}

// badgeMessage is the right half of the badge: "A 93" or "not graded",
// followed by " (6/9 untested)" when some tools were not called, or by
// " static" for a static audit (--no-calls), graded on Schema alone.
func badgeMessage(rep *report.Report) string {
	msg := score.NotGraded
	if rep.Graded && rep.Score != nil && rep.Grade != nil {
		if _, ok := gradeColours[*rep.Grade]; ok {
			msg = fmt.Sprintf("%s %d", *rep.Grade, *rep.Score)
		}
	}
	if rep.Static {
		return msg + " static"
	}
	if untested, listed := score.UntestedCount(rep); untested > 0 {
		msg += fmt.Sprintf(" (%d/%d untested)", untested, listed)
	}
	return msg
}

// BadgeURL returns a shields.io static badge URL for rep, such as
// https://img.shields.io/badge/mcp--fuzz-A%2093-brightgreen. PR comments
// cannot show inline SVG, so they use this; see [BadgeSVG] for a file.
func BadgeURL(rep *report.Report) string {
	return ShieldsURL(badgeMessage(rep), badgeColour(rep))
}

// ShieldsURL is the shields.io static badge labelled mcp-fuzz with message
// and colour (a name [GradeColour] returns).
func ShieldsURL(message, colour string) string {
	return "https://img.shields.io/badge/" + shieldsPart(badgeLabel) + "-" + shieldsPart(message) + "-" + shieldsPart(colour)
}

// shieldsPart escapes one part of a static badge path: "-" → "--",
// "_" → "__", then as a URL path segment (" " → "%20"), so that a hostile
// report's grade cannot end the URL or the Markdown link around it.
func shieldsPart(s string) string {
	return url.PathEscape(strings.NewReplacer("-", "--", "_", "__").Replace(s))
}

// BadgeSVG returns a self-contained flat badge (no fonts or images fetched)
// with label "mcp-fuzz" and the grade and score, or "not graded". Text
// widths are estimated from Verdana's metrics at 11px.
func BadgeSVG(rep *report.Report) []byte {
	msg := badgeMessage(rep)
	colour := svgColours[badgeColour(rep)]
	lw := int(textWidth(badgeLabel)) + 10
	mw := int(textWidth(msg)) + 10
	w := lw + mw
	label, message := escape.XMLText(badgeLabel, 0), escape.XMLText(msg, 0)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="20" role="img" aria-label="%s: %s">`, w, label, message)
	fmt.Fprintf(&b, "\n<title>%s: %s</title>\n", label, message)
	b.WriteString(`<linearGradient id="s" x2="0" y2="100%"><stop offset="0" stop-color="#bbb" stop-opacity=".1"/><stop offset="1" stop-opacity=".1"/></linearGradient>` + "\n")
	fmt.Fprintf(&b, `<clipPath id="r"><rect width="%d" height="20" rx="3" fill="#fff"/></clipPath>`+"\n", w)
	fmt.Fprintf(&b, `<g clip-path="url(#r)"><rect width="%d" height="20" fill="#555"/><rect x="%d" width="%d" height="20" fill="%s"/><rect width="%d" height="20" fill="url(#s)"/></g>`+"\n", lw, lw, mw, colour, w)
	b.WriteString(`<g fill="#fff" text-anchor="middle" font-family="Verdana,Geneva,DejaVu Sans,sans-serif" text-rendering="geometricPrecision" font-size="11">` + "\n")
	text := func(x int, s string) {
		fmt.Fprintf(&b, `<text x="%d" y="15" fill="#010101" fill-opacity=".3">%s</text><text x="%d" y="14">%s</text>`+"\n", x, s, x, s)
	}
	text(lw/2, label)
	text(lw+mw/2, message)
	b.WriteString("</g>\n</svg>\n")
	return []byte(b.String())
}

// textWidth estimates the width in pixels of s in Verdana 11px.
func textWidth(s string) float64 {
	w := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("iljI.,:;'!|", r):
			w += 3.4
		case strings.ContainsRune("frt()[]- ", r):
			w += 4.6
		case strings.ContainsRune("mwMW", r):
			w += 10.7
		case r >= 'A' && r <= 'Z':
			w += 7.5
		case r >= '0' && r <= '9':
			w += 7.0
		default:
			w += 6.6
		}
	}
	return w
}
