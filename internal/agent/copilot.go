package agent

var copilot = Agent{
	Name:        Copilot,
	Description: "GitHub Copilot CLI sessions (~/.copilot/session-state)",
	Homes:       [][]string{{".copilot", "session-state"}},
	// The form Copilot CLI itself prints when a session ends.
	Resume: "copilot --resume=",
	Tools: Tools{
		Edit:     []string{"edit", "create"},
		Read:     []string{"view"},
		Shell:    []string{"bash"},
		PathKeys: []string{"path"},
	},
}
