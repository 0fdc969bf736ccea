package agent

// Kilo Code's CLI (kilo), a descendant of opencode, keeps its sessions in an SQLite store of
// opencode's schema (~/.local/share/kilo/kilo.db), which ctxc reads as STORE#SESSION-ID
// (internal/agent/opencode/opencodestore, its Kilo kind); its TUI resumes one with --session ID. ctxc writes no
// session of it: `compact -o` of one is a ctxc-format file.

// Kilo is the format's name, as --format takes it.
const Kilo = "kilo"

var kilo = Agent{
	Name:        Kilo,
	Description: "Kilo Code CLI sessions (~/.local/share/kilo/kilo.db, as STORE#SESSION-ID)",
	// Its store file alone, as opencode's. (Under another XDG_DATA_HOME, search's defaults find
	// it through opencodestore.Kilo's default path.)
	Homes:       [][]string{{".local", "share", "kilo", "kilo.db"}},
	Resume:      "kilo --session",
	CtxcOutput:  true,
	Tools:       opencode.Tools,
	UsageProbes: opencode.UsageProbes,
	// ctxc's plugin for opencode serves Kilo too (ctxc hooks install kilo), from its own folder.
	CompactNote:    opencode.CompactNote,
	CompactContext: opencode.CompactContext,
}
