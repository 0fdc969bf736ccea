package agent

import (
	"path/filepath"
	"strings"
	"time"
)

// Pi is the format's name, as --format takes it.
const Pi = "pi"

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
	Kept:        Kept{IDKey: "id", FirstID: "firstKeptEntryId", FirstIndex: "firstKeptEntryIndex"},
	Lint:        Lint{OpenCall: `pi sends "No result provided" as its result`}, // (resume.sh, pi 0.73.1)
	UsageProbes: []string{`"usage"`},                                           // its assistant message entries
	Handoff: &Handoff{
		Window:      128_000,
		SessionPath: piSessionPath,
		Tools: map[CallKind]ToolShape{
			CallShell:  shape("bash", FieldCommand, "command"),
			CallRead:   shape("read", FieldPath, "path"),
			CallWrite:  shape("write", FieldPath, "path", FieldContent, "content"),
			CallEdit:   shape("edit", FieldPath, "path", FieldOld, "oldText", FieldNew, "newText"),
			CallSearch: shape("grep", FieldPattern, "pattern", FieldPath, "path"),
		},
	},
}

// piSessionPath: $PI_CODING_AGENT_DIR (~/.pi/agent) /sessions/--<cwd, separators as "-">--/
// <UTC time>_<id>.jsonl.
func piSessionPath(getenv func(string) string, home, cwd, id string, now time.Time) string {
	folder := "--" + strings.NewReplacer("/", "-", "\\", "-", ":", "-").Replace(strings.TrimLeft(cwd, "/\\")) + "--"
	stamp := strings.NewReplacer(":", "-", ".", "-").Replace(now.UTC().Format("2006-01-02T15:04:05.000Z"))
	return filepath.Join(homeDir(getenv, home, "PI_CODING_AGENT_DIR", ".pi", "agent"), "sessions", folder, stamp+"_"+id+".jsonl")
}
