// Command crash-exit is a fixture server whose get_weather exits the process
// (status 2, "fatal: city missing" on stderr) when city is missing or not a
// string: verdict crash (exit).
package main

import (
	"github.com/mcp-fuzz/mcp-fuzz/internal/demo"
	"github.com/mcp-fuzz/mcp-fuzz/testdata/servers/internal/sdkserver"
)

func main() {
	sdkserver.Main("crash-exit", "Fixture: get_weather exits the process on a missing city.", demo.AddGetWeather)
}
