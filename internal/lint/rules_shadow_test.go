package lint

import (
	"strings"
	"testing"
)

// named returns one clean tool per name, in order.
func named(names ...string) []Tool {
	tools := make([]Tool, len(names))
	for i, n := range names {
		tools[i] = tool(func(t *Tool) { t.Name = n })
	}
	return tools
}

// Names spelled to look like a well-known tool's, or like another tool of
// the same server, and their clean twins: the well-known name itself, a
// change of case or separators, a name that only shares letters.
func TestShadowedName(t *testing.T) {
	t.Parallel()
	runRule(t, "shadowed_name", []ruleCase{
		{name: "capital I for l", tools: named("read_fiIe"), want: 1, pointer: "/name", contains: `imitates the well-known tool name "read_file": 'I' where read_file has 'l'`},
		{name: "Cyrillic e", tools: named("rеad_file"), want: 1, contains: "U+0435 CYRILLIC SMALL LETTER IE where read_file has 'e'"},
		{name: "digit one for l", tools: named("read_fi1e"), want: 1, contains: "'1' where read_file has 'l'"},
		{name: "digit zero for o", tools: named("ech0"), want: 1, contains: `"echo": '0' where echo has 'o'`},
		{name: "rn for m", tools: named("execute_cornrnand"), want: 1, contains: "'rnrn' where execute_command has 'mm'"},
		{name: "Greek omicron and a separator", tools: named("Run-Cοmmand"), want: 1, contains: "U+03BF GREEK SMALL LETTER OMICRON where run_command has 'o'"},
		{name: "Cyrillic capitals", tools: named("ВАЅН"), want: 1, contains: `"bash"`},
		{name: "fullwidth", tools: named("ｆｅｔｃｈ"), want: 1, contains: "U+FF46 FULLWIDTH LATIN SMALL LETTER F, U+FF45 FULLWIDTH LATIN SMALL LETTER E, U+FF54 FULLWIDTH LATIN SMALL LETTER T, U+FF43 FULLWIDTH LATIN SMALL LETTER C, … where fetch has 'fetch'"},
		{name: "ligature", tools: named("read_ﬁle"), want: 1, contains: "U+FB01 (a form of 'fi') where read_file has 'fi'"},
		{name: "a letter twice", tools: named("sеnd_mеssаgе"), want: 1, contains: `"send_message": U+0435 CYRILLIC SMALL LETTER IE where send_message has 'e'; U+0430 CYRILLIC SMALL LETTER A where send_message has 'a'`},
		{name: "many places", tools: named("list_аllоwеd_dirесtоriеs"), want: 1, contains: "; …"},
		{name: "same server, case", tools: named("get_user", "Get_User"), want: 1, contains: `tool name "Get_User" looks like the name of tool "get_user" at position 1 of the same server: 'G' where "get_user" has 'g'`},
		{name: "same server, look-alike", tools: named("search_issues", "search_issue5", "seаrch_issues"), want: 1, contains: `"seаrch_issues" looks like the name of tool "search_issues" at position 1`},
		{name: "same server, separator", tools: named("get.user", "get_user"), want: 1, contains: "'.'"},
		{name: "look-alike of a listed well-known name", tools: named("read_file", "reаd_file"), want: 1, contains: `tool "read_file" at position 1`},
		{name: "the well-known name", tools: named("read_file", "bash", "send_email"), want: 0},
		{name: "case and separators only", tools: named("Read-File"), want: 0},
		{name: "style only, capitals", tools: named("READ_FILE", "Sequential.Thinking", "GET-ENV"), want: 0},
		{name: "the same name twice", tools: named("get_user", "get_user"), want: 0},
		{name: "sharing letters", tools: named("read_files", "readfile", "read_file_2", "bash2", "add1", "echo_note", "fetcher"), want: 0},
		{name: "i is not l", tools: named("tail", "tall", "list", "iist"), want: 0},
		{name: "longer than a valid name", tools: named(strings.Repeat("get_user", 65), strings.Repeat("Get_User", 65)), want: 0},
		{name: "clean", want: 0},
	})
}

// The reference servers' tool names, and the well-known names listed
// together, raise nothing: a server may use the names it is known by.
func TestShadowedNameReferenceServers(t *testing.T) {
	t.Parallel()
	servers := map[string][]string{
		"everything": {"echo", "get-annotated-message", "get-env", "get-resource-links", "get-resource-reference", "get-roots-list",
			"get-structured-content", "get-sum", "get-tiny-image", "gzip-file-as-resource", "simulate-research-query",
			"toggle-simulated-logging", "toggle-subscriber-updates", "trigger-long-running-operation"},
		"memory": {"add_observations", "create_entities", "create_relations", "delete_entities", "delete_observations",
			"delete_relations", "open_nodes", "read_graph", "search_nodes"},
		"filesystem": {"create_directory", "directory_tree", "edit_file", "get_file_info", "list_allowed_directories",
			"list_directory", "list_directory_with_sizes", "move_file", "read_file", "read_media_file",
			"read_multiple_files", "read_text_file", "search_files", "write_file"},
		"sequential-thinking": {"sequentialthinking"},
		"well-known":          wellKnownTools,
	}
	for name, tools := range servers {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			for _, l := range Check(cleanServer, named(tools...)) {
				if l.Code == "shadowed_name" {
					t.Errorf("%s: %s", l.Tool, l.Message)
				}
			}
		})
	}
}

// No two well-known names look alike, or one of them would be flagged for
// being itself.
func TestWellKnownNamesFoldApart(t *testing.T) {
	t.Parallel()
	if len(wellKnownFolds) != len(wellKnownTools) {
		t.Fatalf("%d well-known names fold to %d identities", len(wellKnownTools), len(wellKnownFolds))
	}
	for _, n := range wellKnownTools {
		if n != strings.ToLower(n) || nameFold(n, 'l') != nameFold(n, 'i') {
			t.Errorf("%q is not lower case", n)
		}
	}
}

// FuzzShadowedName feeds pairs of arbitrary names: the rule must never
// panic, and whatever it reports names the tool.
func FuzzShadowedName(f *testing.F) {
	for _, s := range [][2]string{
		{"read_file", "rеad_file"}, {"ｆｅｔｃｈ", "fetch"}, {"read_ﬁle", "Read_FiIe"}, {"rnrn", "mm"},
		{"a\xffb", "a\xfeb"}, {"", "I"}, {"ǅ", "dž"}, {"\u0301e", "é"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, l := range Check(cleanServer, named(a, b)) {
			if l.Code == "shadowed_name" && (l.Message == "" || !strings.Contains(l.Message, " where ")) {
				t.Fatalf("bad finding: %+v", l)
			}
		}
	})
}
