package lint

func checkToolsCapability(s Server, tools []Tool) []hit {
	if !s.ToolsCapability || len(tools) > 0 {
		return nil
	}
	return []hit{{
		Message: `the server advertises the "tools" capability but tools/list returned no tools`,
		Hint:    `register at least one tool, or stop advertising the "tools" capability`,
	}}
}

func checkServerInfo(s Server, _ []Tool) []hit {
	var missing string
	switch {
	case s.Name == "" && s.Version == "":
		missing = `no "name" and no "version"`
	case s.Name == "":
		missing = `no "name"`
	case s.Version == "":
		missing = `no "version"`
	default:
		return nil
	}
	where := s.serverInfoPlace()
	return []hit{{
		Message: where + " has " + missing,
		Hint:    `set "name" and "version" in ` + where + `, e.g. the package name and its release version`,
	}}
}

// serverInfoPlace names where the server describes itself.
func (s Server) serverInfoPlace() string {
	switch s.Source {
	case SourceInitialize:
		return "serverInfo in the initialize result"
	case SourceDiscover:
		return `the server info in the server/discover result (_meta "io.modelcontextprotocol/serverInfo")`
	}
	return "the server info (serverInfo of initialize, or the serverInfo _meta of server/discover)"
}

func checkInstructions(s Server, _ []Tool) []hit {
	if s.Instructions != "" {
		return nil
	}
	msg := `the server gives no "instructions" (in its initialize or server/discover result)`
	if s.Source != "" {
		msg = `the ` + s.Source + ` result has no "instructions"`
	}
	return []hit{{
		Message: msg,
		Hint:    `set "instructions": a few lines telling the model what the server is for and how its tools fit together`,
	}}
}
