package session

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mcp-fuzz/mcp-fuzz/internal/mcptool"
	"github.com/mcp-fuzz/mcp-fuzz/internal/textcut"
	"github.com/mcp-fuzz/mcp-fuzz/pkg/report"
)

// Bounds of every paginated listing: its pages, and the bytes of the items
// kept (100 pages of up to --max-response each would be 400 MiB).
const (
	maxPages       = 100
	maxListedBytes = 64 << 20
)

type page struct {
	Items      []json.RawMessage
	NextCursor string
	TTLMs      *int64 // the 2026-07-28 caching hints, when present
	CacheScope string
}

// listAll follows nextCursor through every page of method, reporting
// pagination defects as notes. key is the result member holding the items.
func listAll(ctx context.Context, s *Session, method, key string) (items []json.RawMessage, pages int, notes []string, err error) {
	items, pages, notes, _, err = listAllFirst(ctx, s, method, key)
	return items, pages, notes, err
}

// listAllFirst is [listAll], also returning the first page (its caching
// hints).
func listAllFirst(ctx context.Context, s *Session, method, key string) (items []json.RawMessage, pages int, notes []string, first page, err error) {
	seen := map[string]bool{}
	cursor := ""
	size := 0
	for {
		if size > maxListedBytes {
			notes = append(notes, fmt.Sprintf("%s: stopped after %d pages: the listing passed %d MiB", method, pages, maxListedBytes>>20))
			return items, pages, notes, first, nil
		}
		if pages == maxPages {
			notes = append(notes, fmt.Sprintf("%s: stopped after %d pages (page limit)", method, maxPages))
			return items, pages, notes, first, nil
		}
		var params any = map[string]any{}
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		raw, _, err := s.Call(ctx, method, params)
		if err != nil {
			return items, pages, notes, first, fmt.Errorf("%s: %w", method, err)
		}
		pages++
		p, err := parsePage(raw, key)
		if err != nil {
			return items, pages, notes, first, fmt.Errorf("%s: %v", method, err)
		}
		if pages == 1 {
			first = page{TTLMs: p.TTLMs, CacheScope: p.CacheScope}
		}
		items = append(items, p.Items...)
		size += len(raw)
		if p.NextCursor == "" {
			return items, pages, notes, first, nil
		}
		if len(p.Items) == 0 {
			notes = append(notes, fmt.Sprintf("%s: page %d is empty but has a nextCursor; stopped", method, pages))
			return items, pages, notes, first, nil
		}
		if seen[p.NextCursor] {
			notes = append(notes, fmt.Sprintf("%s: cursor loop: nextCursor %q was already followed; stopped", method, textcut.Excerpt(p.NextCursor, 60)))
			return items, pages, notes, first, nil
		}
		seen[p.NextCursor] = true
		cursor = p.NextCursor
	}
}

func parsePage(raw json.RawMessage, key string) (page, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil { // null decodes to a nil map
		return page{}, fmt.Errorf("result is not an object")
	}
	var p page
	if list, ok := fields[key]; ok {
		if err := json.Unmarshal(list, &p.Items); err != nil {
			return page{}, fmt.Errorf("%q is not an array", key)
		}
	}
	if c, ok := fields["nextCursor"]; ok && string(c) != "null" {
		if err := json.Unmarshal(c, &p.NextCursor); err != nil {
			return page{}, fmt.Errorf("nextCursor is not a string")
		}
	}
	// Caching hints are recorded, not judged: a malformed one is ignored.
	var ttl int64
	if json.Unmarshal(fields["ttlMs"], &ttl) == nil && fields["ttlMs"] != nil && string(fields["ttlMs"]) != "null" {
		p.TTLMs = &ttl
	}
	var scope string
	if json.Unmarshal(fields["cacheScope"], &scope) == nil {
		p.CacheScope = textcut.Excerpt(scope, 40)
	}
	return p, nil
}

// Discover lists tools (and counts resources, templates and prompts when the
// server advertises them). Duplicate and nameless tools are reported and
// dropped from the returned list.
func Discover(ctx context.Context, s *Session) ([]mcptool.Tool, report.Discovery, []report.Lint, error) {
	var d report.Discovery
	var lint []report.Lint
	caps := map[string]json.RawMessage{}
	_ = json.Unmarshal(s.Init.Capabilities, &caps)

	var tools []mcptool.Tool
	if _, ok := caps["tools"]; ok {
		raws, pages, notes, first, err := listAllFirst(ctx, s, "tools/list", "tools")
		d.ToolPages, d.Notes = pages, append(d.Notes, notes...)
		d.ToolsTTLMs, d.ToolsCacheScope = first.TTLMs, first.CacheScope
		if err != nil {
			return nil, d, nil, err
		}
		tools, lint = mcptool.Decode(raws)
		d.Tools = len(tools)
		for _, n := range notes {
			lint = append(lint, report.Lint{Code: "pagination", Severity: report.SeverityError, Message: n, Hint: "nextCursor must lead to the next page and be absent on the last one"})
		}
	} else {
		d.Notes = append(d.Notes, "server does not advertise the tools capability")
	}
	count := func(capability, method, key string) int {
		if _, ok := caps[capability]; !ok {
			return 0
		}
		items, _, notes, err := listAll(ctx, s, method, key)
		d.Notes = append(d.Notes, notes...)
		if err != nil {
			d.Notes = append(d.Notes, err.Error())
		}
		// The first few are kept for the resources and prompts checks.
		s.Listed.keep(method, items)
		return len(items)
	}
	d.Resources = count("resources", "resources/list", "resources")
	d.ResourceTemplates = count("resources", "resources/templates/list", "resourceTemplates")
	d.Prompts = count("prompts", "prompts/list", "prompts")
	return tools, d, lint, nil
}

// ListTools lists the tools again, every page, as [Discover] does: for
// comparing a later listing of the run with the first.
func ListTools(ctx context.Context, s *Session) ([]mcptool.Tool, error) {
	raws, _, _, _, err := listAllFirst(ctx, s, "tools/list", "tools")
	if err != nil {
		return nil, err
	}
	tools, _ := mcptool.Decode(raws)
	return tools, nil
}
