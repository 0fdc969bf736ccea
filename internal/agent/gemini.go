package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// GeminiCLI is the format's name, as --format takes it.
const GeminiCLI = "gemini-cli"

var geminiCLI = Agent{
	Name:        GeminiCLI,
	Description: "Gemini CLI chats (~/.gemini/tmp/<project>/chats)",
	Homes:       [][]string{{".gemini", "tmp"}},
	// Gemini CLI keeps a project's sessions under a hash of its folder, which the session does
	// not name: it is resumed from that folder.
	Resume: "gemini --resume",
	Tools: Tools{
		Edit:     []string{"write_file", "replace"},
		Read:     []string{"read_file"},
		Shell:    []string{"run_shell_command"},
		PathKeys: []string{"file_path"},
	},
	// Its compression rewrites the chat with a {"$set":{"messages":[...]}} line.
	CompactionProbe: `"$set"`,
	// Gemini 2.5 Pro's million tokens.
	Handoff: &Handoff{
		Window:      1_048_576,
		SessionPath: geminiSessionPath,
		Tools: map[CallKind]ToolShape{
			CallShell:  shape("run_shell_command", FieldCommand, "command"),
			CallRead:   shape("read_file", FieldPath, "file_path"),
			CallWrite:  shape("write_file", FieldPath, "file_path", FieldContent, "content"),
			CallEdit:   shape("replace", FieldPath, "file_path", FieldOld, "old_string", FieldNew, "new_string"),
			CallSearch: shape("grep_search", FieldPattern, "pattern", FieldPath, "dir_path"),
		},
	},
}

// GeminiProjectHash is the projectHash Gemini CLI records for project folder cwd (and the name of
// the folder under ~/.gemini/tmp it kept the project's chats in before its project registry).
func GeminiProjectHash(cwd string) string {
	sum := sha256.Sum256([]byte(cwd))
	return hex.EncodeToString(sum[:])
}

// geminiSessionPath: $GEMINI_CLI_HOME (~) /.gemini/tmp/<project>/chats/session-<UTC minute>-<the
// id's first 8 characters>.jsonl.
func geminiSessionPath(getenv func(string) string, home, cwd, id string, now time.Time) string {
	tmp := filepath.Join(homeDir(getenv, home, "GEMINI_CLI_HOME"), ".gemini", "tmp")
	return filepath.Join(tmp, geminiProject(tmp, cwd), "chats", "session-"+now.UTC().Format("2006-01-02T15-04")+"-"+id[:min(8, len(id))]+".jsonl")
}

// geminiProject is the folder under Gemini CLI's tmp folder that holds project cwd's chats, found
// as Gemini CLI finds it: the short name its registry (projects.json, beside tmp) gives the
// folder, unless that folder's .project_root names another project; else the folder whose
// .project_root names cwd. A project Gemini CLI has never run in has none: its chats go to the
// folder named by the project's hash, which Gemini CLI moves to the project's new short name the
// first time it runs there.
func geminiProject(tmp, cwd string) string {
	owns := func(name string) bool {
		b, err := os.ReadFile(filepath.Join(tmp, name, ".project_root"))
		return err == nil && strings.TrimSpace(string(b)) == cwd
	}
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if b, err := os.ReadFile(filepath.Join(filepath.Dir(tmp), "projects.json")); err == nil && json.Unmarshal(b, &reg) == nil {
		if name := reg.Projects[cwd]; name != "" && filepath.Base(name) == name {
			if _, err := os.Stat(filepath.Join(tmp, name, ".project_root")); err != nil || owns(name) {
				return name
			}
		}
	}
	if ents, err := os.ReadDir(tmp); err == nil {
		for _, e := range ents {
			if e.IsDir() && owns(e.Name()) {
				return e.Name()
			}
		}
	}
	return GeminiProjectHash(cwd)
}
