package agent

// miniSWE is mini-swe-agent (github.com/SWE-agent/mini-swe-agent): a batch agent that works one
// task and writes its run as one JSON document, <instance>.traj.json (its `mini` command's last
// run: ~/.config/mini-swe-agent/last_mini_run.traj.json, $MSWEA_GLOBAL_CONFIG_DIR in place of
// the folder; a benchmark run's: <output>/<instance>/<instance>.traj.json), rewritten whole
// after each step. ctxc reads it through its export (internal/agent/miniswe/miniswetraj). mini-swe-agent takes
// no trajectory back to continue it: `mini-extra inspector FILE` shows one. ctxc writes nothing
// into it: `compact -o` of one is a ctxc-format file.

// MiniSWE is the format's name, as --format takes it.
const MiniSWE = "mini-swe-agent"

var miniSWE = Agent{
	Name:        MiniSWE,
	Description: "mini-swe-agent trajectories (<instance>.traj.json; ~/.config/mini-swe-agent), read only",
	Homes:       [][]string{{".config", "mini-swe-agent"}},
	Resume:      "mini-extra inspector",
	ByPath:      true,
	CtxcOutput:  true,
	// Its one tool runs a shell command.
	Tools: Tools{Shell: []string{"bash"}},
}
