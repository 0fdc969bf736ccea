package agent

import (
	"path/filepath"
	"time"
)

// Codex is the format's name, as --format takes it.
const Codex = "codex"

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
	// Its turn contexts name the model, its token counts the usage.
	UsageProbes: []string{`"turn_context"`, `"token_count"`},
	// Codex has a shell only: its edits are patches (apply_patch), which no other agent's call is.
	Handoff: &Handoff{
		Window:      272_000,
		SessionPath: codexSessionPath,
		Tools:       map[CallKind]ToolShape{CallShell: {Name: "shell", Keys: map[string]string{FieldCommand: "command"}, Argv: true}},
	},
	// Its compaction records name nothing kept: a legacy compaction keeps the initial messages and the recent user messages.
	Kept: Kept{Rebuild: true},
	// Codex 0.169.0 runs SessionStart hooks after it writes its compacted record.
	CompactNote: true,
}

// codexSessionPath: $CODEX_HOME (~/.codex) /sessions/YYYY/MM/DD/rollout-<local time>-<id>.jsonl.
func codexSessionPath(getenv func(string) string, home, _, id string, now time.Time) string {
	t := now.Local()
	return filepath.Join(homeDir(getenv, home, "CODEX_HOME", ".codex"), "sessions", t.Format("2006"), t.Format("01"), t.Format("02"),
		"rollout-"+t.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
}
