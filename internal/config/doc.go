// Package config reads the .mcp-fuzz.yml configuration file: realistic
// example arguments per tool (the cure for synthetic-input false positives),
// per-tool skip, include and timeouts, expected findings with reasons, and
// defaults for every flag. Unknown keys and wrong types are errors that name
// the key and the line.
package config
