package agent

import (
	"path/filepath"
	"time"
)

// Copilot is the format's name, as --format takes it.
const Copilot = "copilot"

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
	// The 128K Copilot serves its default model with.
	Handoff: &Handoff{
		Window:      128_000,
		SessionPath: copilotSessionPath,
		Tools: map[CallKind]ToolShape{
			CallShell:  shape("bash", FieldCommand, "command"),
			CallRead:   shape("view", FieldPath, "path"),
			CallWrite:  shape("create", FieldPath, "path", FieldContent, "file_text"),
			CallEdit:   shape("edit", FieldPath, "path", FieldOld, "old_str", FieldNew, "new_str"),
			CallSearch: shape("grep", FieldPattern, "pattern", FieldPath, "path"),
		},
	},
	// Its compaction records name nothing kept: its summary stands for everything before it.
	Kept: Kept{Rebuild: true},
}

// copilotSessionPath: $COPILOT_HOME (~/.copilot) /session-state/<id>/events.jsonl.
func copilotSessionPath(getenv func(string) string, home, _, id string, _ time.Time) string {
	return filepath.Join(homeDir(getenv, home, "COPILOT_HOME", ".copilot"), "session-state", id, "events.jsonl")
}
