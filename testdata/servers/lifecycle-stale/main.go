// Command lifecycle-stale is a fixture server for --sequential: get_note
// still answers a note after delete_note deleted it (a stale read), and a
// task stays readable after its project was deleted (an orphan); create_tag
// and add_tag make the tag group ambiguous. See package notestore.
package main

import "github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/notestore"

func main() { notestore.Main("lifecycle-stale", true) }
