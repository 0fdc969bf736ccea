package agent

// Continue CLI (cn) keeps each session as one JSON document, ~/.continue/sessions/<id>.json,
// rewritten whole as the session grows, listed in sessions.json beside it: ctxc reads a snapshot
// of it. `cn --resume` resumes the newest session; a given one is continued with
// `cn --fork <id>`, which starts a new session from its history.

// ContinueCLI is the format's name, as --format takes it.
const ContinueCLI = "continue-cli"

var continueCLI = Agent{
	Name:        ContinueCLI,
	Description: "Continue CLI sessions (~/.continue/sessions/<id>.json)",
	Homes:       [][]string{{".continue", "sessions"}},
	Resume:      "cn --fork",
	Tools: Tools{
		Edit:     []string{"Edit", "MultiEdit", "Write"},
		Read:     []string{"Read"},
		Shell:    []string{"Bash"},
		PathKeys: []string{"filepath", "file_path"},
	},
	// Its compaction replaces the history with an item holding "conversationSummary".
	CompactionProbe: `"conversationSummary"`,
}
