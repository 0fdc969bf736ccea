package agent

var claudeCode = Agent{
	Name:        ClaudeCode,
	Description: "Claude Code sessions (~/.claude/projects)",
	Homes:       [][]string{{".claude", "projects"}},
	Resume:      "claude --resume",
	Tools: Tools{
		Edit:     []string{"Edit", "MultiEdit", "Write", "NotebookEdit"},
		Read:     []string{"Read", "NotebookRead"},
		Shell:    []string{"Bash"},
		PathKeys: []string{"file_path", "notebook_path"},
	},
}
