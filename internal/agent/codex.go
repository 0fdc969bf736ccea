package agent

var codex = Agent{
	Name:        Codex,
	Description: "Codex CLI rollouts (~/.codex/sessions)",
	Homes:       [][]string{{".codex", "sessions"}},
	Resume:      "codex resume",
	Tools: Tools{
		// Codex edits files with patches, as a tool of their own or through its shell.
		Patch: []string{"apply_patch"},
		Shell: []string{"shell", "exec_command", "local_shell", "container.exec", "shell_command"},
	},
}
