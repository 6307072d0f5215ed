// Command lifecycle-clean is the clean twin of lifecycle-stale: a deleted
// note is gone, and deleting a project deletes its tasks. See package
// notestore.
package main

import "github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/notestore"

func main() { notestore.Main("lifecycle-clean", false) }
