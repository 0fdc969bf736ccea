package agent

// opencode keeps its sessions in SQLite (~/.local/share/opencode/opencode.db), which ctxc reads
// as STORE#SESSION-ID (internal/agent/opencode/opencodestore); its TUI resumes one with --session ID. ctxc
// never writes into the store: `compact -o OUT.json` of a session writes the document `opencode
// import` takes in as a new session, any other `-o OUT` a ctxc-format file.

// Opencode is the format's name, as --format takes it.
const Opencode = "opencode"

var opencode = Agent{
	Name:        Opencode,
	Description: "opencode sessions (~/.local/share/opencode/opencode.db, as STORE#SESSION-ID)",
	// Its store file alone: the data folder also holds clones of repositories. (Under another
	// XDG_DATA_HOME, search's defaults find it through its store package, sessionstore.DefaultPaths.)
	Homes:      [][]string{{".local", "share", "opencode", "opencode.db"}},
	Resume:     "opencode --session",
	CtxcOutput: true,
	Tools: Tools{
		Edit:     []string{"edit", "write", "multiedit"},
		Read:     []string{"read"},
		Patch:    []string{"apply_patch", "patch"},
		Shell:    []string{"bash"},
		PathKeys: []string{"filePath"},
	},
	// Its step-finish parts hold a step's usage (the export ctxc reads of its store keeps them).
	UsageProbes: []string{`"step-finish"`},
	// Its compaction records name nothing kept: it keeps the tail its compaction chose.
	Kept: Kept{Rebuild: true},
	// ctxc's plugin (ctxc hooks install opencode) runs `ctxc hook opencode` before its
	// compaction (PreCompact: the ledger goes to its summarizer) and after it (SessionStart,
	// source compact: what the summary lost goes back as a message after it).
	CompactNote:    true,
	CompactContext: true,
}
