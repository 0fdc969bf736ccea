package agent

import "path/filepath"

// kimiCode is Kimi Code CLI (Moonshot AI, npm @moonshot-ai/kimi-code): each session is a folder,
// $KIMI_CODE_HOME (~/.kimi-code)/sessions/<workspace>/session_<uuid>/, whose agents/main/
// wire.jsonl is the main agent's log (a subagent's, agents/<id>/wire.jsonl, beside it), one
// record a line, beside the session's state.json. It replays the log's context records on resume:
// `kimi -S session_<uuid>` (-r, --resume), the id its path names (its records name none). Its own
// compaction is a context.apply_compaction record; ctxc writes nothing into the log: `compact -o`
// of one is a ctxc-format file. Its usage records (usage.record) name a model alias, not the
// model: stats counts them, `stats --cost` prices none.

// KimiCode is the format's name, as --format takes it.
const KimiCode = "kimi-code"

var kimiCode = Agent{
	Name:        KimiCode,
	Description: "Kimi Code CLI logs (~/.kimi-code/sessions/<workspace>/<session>/agents/main/wire.jsonl)",
	Homes:       [][]string{{".kimi-code", "sessions"}},
	Resume:      "kimi -S",
	SessionOf:   kimiSession,
	CtxcOutput:  true,
	Tools: Tools{
		Edit:     []string{"Edit", "Write"},
		Read:     []string{"Read"},
		Shell:    []string{"Bash"},
		PathKeys: []string{"path"},
	},
	CompactionProbe: "context.apply_compaction",
	// What it resumes after a compaction is rebuilt from the record: the user's own messages, the
	// summary, a note to continue.
	Kept: Kept{Rebuild: true},
	Lint: Lint{OpenCall: "Kimi Code CLI sends a result saying the call was interrupted"},
}

// kimiSession is the session a log's path names: the folder session_<uuid> above
// agents/<agent>/wire.jsonl ("" for another path).
func kimiSession(path string) string {
	agents := filepath.Dir(filepath.Dir(path))
	if filepath.Base(path) != "wire.jsonl" || filepath.Base(agents) != "agents" {
		return ""
	}
	return filepath.Base(filepath.Dir(agents))
}
