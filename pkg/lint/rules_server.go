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
	var msg string
	switch {
	case s.Name == "" && s.Version == "":
		msg = `serverInfo in the initialize result has no "name" and no "version"`
	case s.Name == "":
		msg = `serverInfo in the initialize result has no "name"`
	case s.Version == "":
		msg = `serverInfo in the initialize result has no "version"`
	default:
		return nil
	}
	return []hit{{
		Message: msg,
		Hint:    `set serverInfo "name" and "version" in the initialize result, e.g. the package name and its release version`,
	}}
}

func checkInstructions(s Server, _ []Tool) []hit {
	if s.Instructions != "" {
		return nil
	}
	return []hit{{
		Message: `the initialize result has no "instructions"`,
		Hint:    `set "instructions": a few lines telling the model what the server is for and how its tools fit together`,
	}}
}
