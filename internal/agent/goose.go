package agent

// goose is Block's Goose agent (1.x): its sessions are rows of one SQLite store,
// ~/.local/share/goose/sessions/sessions.db (tables sessions and messages), which ctxc reads as
// STORE#SESSION-ID (internal/agent/goose/goosestore); `goose session --resume --session-id ID` resumes one.
// ctxc writes no session of it: `compact -o` of one is a ctxc-format file.

// Goose is the format's name, as --format takes it.
const Goose = "goose"

var goose = Agent{
	Name:        Goose,
	Description: "Goose sessions (~/.local/share/goose/sessions/sessions.db, as STORE#SESSION-ID)",
	Homes:       [][]string{{".local", "share", "goose", "sessions", "sessions.db"}},
	Resume:      "goose session --resume --session-id",
	CtxcOutput:  true,
	Tools: Tools{
		Read:     []string{"tree", "analyze"},
		Edit:     []string{"edit", "write"},
		Shell:    []string{"shell"},
		PathKeys: []string{"path", "file_path"},
	},
	// Each answer of the model records its usage in the message's metadata.
	UsageProbes: []string{`"inputTokens"`},
	// Its compaction's summary is a user message hidden from the user.
	CompactionProbe: `"userVisible":false`,
	// Goose's compaction hides the messages it summarized (agentVisible false): what it sends on
	// resume is what it kept.
	Kept: Kept{Rebuild: true},
}
