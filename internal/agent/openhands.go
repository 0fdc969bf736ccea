package agent

// openhands is OpenHands: its software agent SDK, which the OpenHands CLI runs, keeps each
// conversation in a folder, ~/.openhands/conversations/<id>/ (base_state.json and events/, one
// JSON event a file), which ctxc reads through its base_state.json (internal/agent/openhands/openhandsconv). The
// CLI resumes one with --resume ID. ctxc writes no event into it: `compact -o` of one is a
// ctxc-format file.

// Openhands is the format's name, as --format takes it.
const Openhands = "openhands"

var openhands = Agent{
	Name:        Openhands,
	Description: "OpenHands conversations (~/.openhands/conversations/<id>/events), read only",
	Homes:       [][]string{{".openhands", "conversations"}},
	Resume:      "openhands --resume",
	CtxcOutput:  true,
	Tools: Tools{
		Edit:     []string{"file_editor", "str_replace_editor"},
		Shell:    []string{"terminal", "execute_bash"},
		PathKeys: []string{"path"},
	},
	// Its condenser writes a Condensation event.
	CompactionProbe: `"Condensation"`,
}
