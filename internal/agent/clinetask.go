package agent

// clineTask is Cline's extension (VS Code and its forks), the Cline CLI 2.x (which runs the
// extension's core) and Kilo Code's extension, Cline's descendant: each task is a folder,
// <storage>/tasks/<task-id>/, whose api_conversation_history.json holds the messages it sends
// its model (internal/agent/clinetask/clinetask reads it with the deleted range its task list keeps and its
// context_history.json edits). The CLI 2.x resumes one with -T ID; the extensions from their
// history panel. ctxc writes nothing into it: `compact -o` of one is a ctxc-format file.

// The formats' names, as --format takes them.
const (
	ClineTask = "cline-task"
	RooCode   = "roo-code"
)

var clineTask = Agent{
	Name:        ClineTask,
	Description: "Cline extension, Cline CLI 2.x and Kilo Code extension tasks (<storage>/tasks/<id>/api_conversation_history.json), read only",
	Homes:       extensionHomes([]string{".cline", "data", "tasks"}, "saoudrizwan.claude-dev", "kilocode.kilo-code"),
	Resume:      "cline task -T",
	CtxcOutput:  true,
	Tools:       clineTaskTools,
	// Its summarize_task (automatic) and condense (/smol) calls carry its summary.
	CompactionProbe: `summarize_task`,
	// It truncates a range of messages named in its task list: what it sends is what it kept.
	Kept: Kept{Rebuild: true},
	Lint: Lint{OpenCall: `Cline answers a call without a result "result missing"`},
}

// rooCode is Roo Code, Cline's descendant: its tasks are Cline's folders, in its extension's
// storage, <storage>/rooveterinaryinc.roo-cline/tasks/<task-id>/api_conversation_history.json,
// whose messages carry its own condense summaries (isSummary) and the marks of the messages
// they and its truncation stand for (condenseParent, truncationParent). It resumes a task from
// its history panel. ctxc writes nothing into it: `compact -o` of one is a ctxc-format file.
var rooCode = Agent{
	Name:        RooCode,
	Description: "Roo Code tasks (<storage>/rooveterinaryinc.roo-cline/tasks/<id>/api_conversation_history.json), read only",
	Homes:       extensionHomes(nil, "rooveterinaryinc.roo-cline"),
	ResumeIn:    "Roo Code's task history panel",
	CtxcOutput:  true,
	Tools:       clineTaskTools,
	// A summary is marked "isSummary".
	CompactionProbe: `"isSummary"`,
	Kept:            Kept{Rebuild: true},
}

// clineTaskTools are the tools of Cline's extension and its descendants.
var clineTaskTools = Tools{
	Read:     []string{"read_file"},
	Edit:     []string{"write_to_file", "replace_in_file", "apply_diff", "edit_file", "search_and_replace"},
	Patch:    []string{"apply_patch"},
	Shell:    []string{"execute_command"},
	PathKeys: []string{"path", "file_path"},
}

// extensionHomes are the task folders of VS Code extensions (by their ids) in every editor's
// global storage, on Linux and on macOS, after the extra folders.
func extensionHomes(extra []string, ids ...string) [][]string {
	var out [][]string
	if extra != nil {
		out = append(out, extra)
	}
	for _, base := range [][]string{{".config"}, {"Library", "Application Support"}} {
		for _, editor := range []string{"Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"} {
			for _, id := range ids {
				h := append(append([]string{}, base...), editor, "User", "globalStorage", id, "tasks")
				out = append(out, h)
			}
		}
	}
	return out
}
