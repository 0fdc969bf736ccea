package agent

// opencode keeps its sessions in SQLite (~/.local/share/opencode/opencode.db), which ctxc reads
// as STORE#SESSION-ID (internal/opencodestore); its TUI resumes one with --session ID.
var opencode = Agent{
	Name:        Opencode,
	Description: "opencode sessions (~/.local/share/opencode/opencode.db, as STORE#SESSION-ID)",
	Resume:      "opencode --session",
	Tools: Tools{
		Edit:     []string{"edit", "write", "multiedit"},
		Read:     []string{"read"},
		Patch:    []string{"apply_patch", "patch"},
		Shell:    []string{"bash"},
		PathKeys: []string{"filePath"},
	},
}
