package demo

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// This file holds the tools whose bad input breaks the server rather than the
// answer: get_weather exits, parse_date panics, slow_lookup hangs and
// debug_status writes to stdout.

// AddGetWeather adds get_weather, which writes "fatal: city missing" to
// stderr and exits the process with status 2 when city is missing or not a
// string (verdict crash, how: exit). Never send it bad input in-process.
func AddGetWeather(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "get_weather",
		Description: "Return the current weather (temperature and sky) for a city.",
		Annotations: readOnly("Get weather"),
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"city": {"type": "string", "description": "City name, e.g. \"Lisbon\"."}
			},
			"required": ["city"]
		}`),
	}, getWeather)
}

func getWeather(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	var in map[string]any
	_ = json.Unmarshal(req.Params.Arguments, &in)
	city, ok := in["city"].(string)
	if !ok {
		fmt.Fprintln(os.Stderr, "fatal: city missing")
		os.Exit(2)
	}
	return text(fmt.Sprintf("Weather in %s: 21°C, clear sky", truncate(city, 60))), nil
}

// AddParseDate adds parse_date, whose handler panics on bad input (a failed
// type assertion or time.Parse error); the panic is recovered and answered as
// JSON-RPC error -32603 with the panic message (verdict crash, how:
// internal_error). Valid input works.
func AddParseDate(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "parse_date",
		Description: "Parse a calendar date and return its weekday and day of the year.",
		Annotations: readOnly("Parse date"),
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"date": {"type": "string", "format": "date", "description": "Calendar date in YYYY-MM-DD form, e.g. \"2024-02-29\"."}
			},
			"required": ["date"]
		}`),
	}, recoverPanics(parseDate))
}

func parseDate(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	// The flaw: no checks, so bad input panics.
	var in map[string]any
	if err := json.Unmarshal(req.Params.Arguments, &in); err != nil {
		panic(err)
	}
	d, err := time.Parse(time.DateOnly, in["date"].(string))
	if err != nil {
		panic(err)
	}
	return text(fmt.Sprintf("%s is a %s, day %d of %d", d.Format(time.DateOnly), d.Weekday(), d.YearDay(), d.Year())), nil
}

// slowKey is the pattern slow_lookup's key must match.
var slowKey = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

// AddSlowLookup adds slow_lookup, which answers valid input at once but
// blocks on bad input, ignoring cancellation, until the server stops
// (verdict hang). Served by [Run], it stops blocking when Run's context ends;
// otherwise it never does.
func AddSlowLookup(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "slow_lookup",
		Description: "Look up a key in the cache and return its value.",
		Annotations: readOnly("Cache lookup"),
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"key": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,31}$", "description": "Cache key: a lowercase letter, then up to 31 lowercase letters, digits or underscores."}
			},
			"required": ["key"],
			"additionalProperties": false
		}`),
	}, slowLookup)
}

func slowLookup(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	a := readArgs("slow_lookup", req.Params.Arguments)
	key := a.pattern("key", slowKey, `e.g. {"key": "session_count"}`)
	a.closed()
	if a.err() != nil {
		// The flaw: wait for a value that never comes, deaf to
		// notifications/cancelled (ctx.Done is not watched).
		<-lifetimeFrom(ctx)
		return nil, fmt.Errorf("slow_lookup: server stopped")
	}
	return text(fmt.Sprintf("%s = %d", key, len(key)*7)), nil
}

// AddDebugStatus adds debug_status, which writes the line
// "DEBUG: status called" to the server's stdout before every answer
// (verdict protocol_violation). The line goes through the writer installed
// by [Run], whole and between frames; served otherwise, nothing is written.
// Bad input is answered with isError.
func AddDebugStatus(s *mcp.Server) {
	s.AddTool(&mcp.Tool{
		Name:        "debug_status",
		Description: "Report the health of one subsystem of the service.",
		Annotations: readOnly("Subsystem status"),
		InputSchema: schema(`{
			"type": "object",
			"properties": {
				"component": {"type": "string", "enum": ["api", "database", "cache"], "description": "Subsystem to report on."}
			},
			"required": ["component"],
			"additionalProperties": false
		}`),
	}, debugStatus)
}

func debugStatus(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	if w := stdoutFrom(ctx); w != nil {
		// The flaw: a debug print on the protocol stream.
		_, _ = io.WriteString(w, "DEBUG: status called\n")
	}
	a := readArgs("debug_status", req.Params.Arguments)
	component := a.enum("component", "api", "database", "cache")
	a.closed()
	if err := a.err(); err != nil {
		return toolError("%v", err), nil
	}
	return text(component + ": ok, uptime 3600s"), nil
}
