package agent

// nanocoder is Nanocoder (npm @nanocollective/nanocoder): each session is one JSON document,
// <data>/nanocoder/sessions/<id>.json (<data>: ~/.local/share, $XDG_DATA_HOME, or
// $NANOCODER_DATA_DIR in place of <data>/nanocoder; nanocoder.sessions.directory in its
// agents.config.json moves the folder), written whole as the session grows, beside the index of
// its sessions, sessions.json. ctxc reads it through its export (internal/agent/nanocoder/nanocodersess). Its
// TUI resumes one with `nanocoder --resume ID` (`/resume` inside it). ctxc writes nothing into
// it: `compact -o` of one is a ctxc-format file.

// Nanocoder is the format's name, as --format takes it.
const Nanocoder = "nanocoder"

var nanocoder = Agent{
	Name:        Nanocoder,
	Description: "Nanocoder sessions (~/.local/share/nanocoder/sessions/<id>.json)",
	Homes:       [][]string{{".local", "share", "nanocoder", "sessions"}},
	Resume:      "nanocoder --resume",
	CtxcOutput:  true,
	Tools: Tools{
		Read:     []string{"read_file"},
		Edit:     []string{"write_file", "string_replace", "diff_edit", "file_op"},
		Shell:    []string{"execute_bash"},
		PathKeys: []string{"path", "file_path"},
	},
	// Its compaction replaces the messages it summarized with a user message that holds the
	// summary in <conversation-summary>.
	CompactionProbe: `<conversation-summary>`,
	// What it sends on resume is what the session holds: the summary and the messages it kept.
	Kept: Kept{Rebuild: true},
}
