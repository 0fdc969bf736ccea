package agent

// cline is the Cline CLI (npm cline, on @cline/core): each session is a folder,
// ~/.cline/data/sessions/<id>/, whose <id>.messages.json holds the whole conversation and whose
// <id>.compaction.json, once Cline compacted it, the messages that stand for its first ones;
// ctxc reads it through its messages file (internal/agent/cline/clinesess). Its TUI resumes one with
// --id ID. ctxc writes nothing into it: `compact -o SESSIONS/<new-id>/<new-id>.messages.json`
// writes a new session of Cline's, ctxc's summary and tail as its compaction state.

// Cline is the format's name, as --format takes it.
const Cline = "cline"

var cline = Agent{
	Name:        Cline,
	Description: "Cline CLI sessions (~/.cline/data/sessions/<id>/<id>.messages.json)",
	Homes:       [][]string{{".cline", "data", "sessions"}},
	Resume:      "cline --id",
	Tools: Tools{
		Read:     []string{"read_files"},
		Edit:     []string{"editor"},
		Patch:    []string{"apply_patch"},
		Shell:    []string{"run_commands"},
		PathKeys: []string{"path", "file_path", "files", "file_paths"},
	},
	// A line of its compaction's messages is wrapped as "cline_compacted".
	CompactionProbe: `"cline_compacted"`,
	// Its compaction names nothing kept: what it sends on resume is what it kept.
	Kept: Kept{Rebuild: true},
	// Its PostToolUse hook's answer is added after the tool's result (ctxc hooks install cline).
	ToolNote: true,
}
