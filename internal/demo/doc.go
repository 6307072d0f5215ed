// Package demo is a deliberately flawed MCP server that ships inside the
// mcp-fuzz binary (`mcp-fuzz demo-server`), so that a first run has something
// to find. Every tool except lookup_user misbehaves in exactly one named way,
// and each is exported as a constructor ([AddGetWeather], [AddParseDate], …)
// so that the fixture servers under testdata/servers can register just one.
package demo
