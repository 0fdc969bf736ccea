package agent

import (
	"path/filepath"
	"time"
)

// QwenCode is the format's name, as --format takes it.
const QwenCode = "qwen-code"

var qwenCode = Agent{
	Name:        QwenCode,
	Description: "Qwen Code chats (~/.qwen/projects/<project>/chats)",
	Homes:       [][]string{{".qwen", "projects"}},
	Resume:      "qwen --resume",
	Tools: Tools{
		Edit:     []string{"write_file", "edit"},
		Read:     []string{"read_file"},
		Shell:    []string{"run_shell_command"},
		PathKeys: []string{"file_path"},
	},
	CompactionProbe: "chat_compression",
	// Qwen3-Coder's native 256K window.
	Handoff: &Handoff{
		Window:      262_144,
		SessionPath: qwenSessionPath,
		Tools: map[CallKind]ToolShape{
			CallShell:  shape("run_shell_command", FieldCommand, "command"),
			CallRead:   shape("read_file", FieldPath, "file_path"),
			CallWrite:  shape("write_file", FieldPath, "file_path", FieldContent, "content"),
			CallEdit:   shape("edit", FieldPath, "file_path", FieldOld, "old_string", FieldNew, "new_string"),
			CallSearch: shape("grep_search", FieldPattern, "pattern", FieldPath, "path"),
		},
	},
}

// qwenSessionPath: $QWEN_RUNTIME_DIR, else $QWEN_HOME (~/.qwen), /projects/<cwd, every character
// but a letter or digit a "-">/chats/<id>.jsonl.
func qwenSessionPath(getenv func(string) string, home, cwd, id string, _ time.Time) string {
	root := getenv("QWEN_RUNTIME_DIR")
	if root == "" {
		root = homeDir(getenv, home, "QWEN_HOME", ".qwen")
	}
	return filepath.Join(root, "projects", nonAlnumDashes(cwd), "chats", id+".jsonl")
}
