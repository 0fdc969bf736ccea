package agent

// sweAgent is SWE-agent (github.com/SWE-agent/SWE-agent): a batch agent that works one task (an
// issue, a benchmark instance) and writes its run as one JSON document, <instance>.traj, in its
// output folder (by default <checkout>/trajectories/<user>/<run>/, $SWE_AGENT_TRAJECTORY_DIR in
// place of <checkout>/trajectories; --output_dir moves it), rewritten whole after each step.
// ctxc reads it through its export (internal/agent/sweagent/sweagenttraj). SWE-agent takes no session back to
// continue it: `sweagent run-replay --traj_path FILE` runs its actions again. ctxc writes
// nothing into it: `compact -o` of one is a ctxc-format file.

// SWEAgent is the format's name, as --format takes it.
const SWEAgent = "swe-agent"

var sweAgent = Agent{
	Name:        SWEAgent,
	Description: "SWE-agent trajectories (trajectories/<user>/<run>/<instance>/<instance>.traj), read only",
	Homes:       [][]string{{"SWE-agent", "trajectories"}},
	Resume:      "sweagent run-replay --traj_path",
	ByPath:      true,
	CtxcOutput:  true,
	Tools: Tools{
		Read:     []string{"open", "goto", "scroll_up", "scroll_down", "find_file", "search_file", "search_dir"},
		Edit:     []string{"str_replace_editor", "edit", "create", "insert", "append"},
		Shell:    []string{"bash"},
		PathKeys: []string{"path", "file_name", "filename"},
	},
}
