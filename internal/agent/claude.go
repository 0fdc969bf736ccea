package agent

import (
	"path/filepath"
	"time"
)

// ClaudeCode is the format's name, as --format takes it.
const ClaudeCode = "claude-code"

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
	Kept: Kept{IDKey: "uuid", IDs: "compactMetadata.preservedMessages.uuids"},
	Lint: Lint{
		Chain: &Chain{ID: "uuid", Parent: "parentUuid", Side: "isSidechain",
			Cut: "Claude Code's resume stops here and drops everything before"},
		// (Checked with resume.sh, Claude Code 2.1.330.)
		AssistantFirst: true,
		OpenCall:       "Claude Code leaves the call out of the request, so the model never sees it was made",
	},
	UsageProbes: []string{`"usage"`}, // its assistant records
	Handoff: &Handoff{
		Window:      200_000,
		SessionPath: claudeSessionPath,
		Tools: map[CallKind]ToolShape{
			CallShell:  shape("Bash", FieldCommand, "command"),
			CallRead:   shape("Read", FieldPath, "file_path"),
			CallWrite:  shape("Write", FieldPath, "file_path", FieldContent, "content"),
			CallEdit:   shape("Edit", FieldPath, "file_path", FieldOld, "old_string", FieldNew, "new_string"),
			CallSearch: shape("Grep", FieldPattern, "pattern", FieldPath, "path"),
		},
	},
	CompactNote: true,
}

// ClaudeProjectDir is the folder name Claude Code keeps a working directory's sessions in
// (under ~/.claude/projects): every character but an ASCII letter or digit made "-".
func ClaudeProjectDir(cwd string) string { return nonAlnumDashes(cwd) }

// claudeSessionPath: $CLAUDE_CONFIG_DIR (~/.claude) /projects/<ClaudeProjectDir>/<id>.jsonl.
func claudeSessionPath(getenv func(string) string, home, cwd, id string, _ time.Time) string {
	return filepath.Join(homeDir(getenv, home, "CLAUDE_CONFIG_DIR", ".claude"), "projects", ClaudeProjectDir(cwd), id+".jsonl")
}
