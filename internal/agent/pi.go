package agent

var pi = Agent{
	Name:        Pi,
	Description: "pi and OpenClaw sessions (~/.pi/agent/sessions, OpenClaw's JSONL files and SQLite store)",
	Homes:       [][]string{{".pi", "agent", "sessions"}, {".openclaw", "agents"}},
	// pi opens a session by its file; OpenClaw's store sessions have no file (index's
	// ResumeCommand leaves them out).
	Resume: "pi --session",
	ByPath: true,
	Tools: Tools{
		Edit:     []string{"edit", "write"},
		Read:     []string{"read"},
		Shell:    []string{"bash"},
		PathKeys: []string{"path"},
	},
}
