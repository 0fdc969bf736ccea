package agent

// omp is Oh My Pi (npm @oh-my-pi/pi-coding-agent, a fork of pi that runs on Bun): its sessions
// are JSONL files, $PI_CODING_AGENT_DIR (~/.omp/agent; ~/.omp/profiles/<profile>/agent with
// --profile or $OMP_PROFILE; $PI_CONFIG_DIR names the folder in place of .omp)
// /sessions/<cwd>/<UTC time>_<id>.jsonl, <cwd> the working folder's path (relative to the
// home folder when it is below it) with its separators as "-". Their entries are pi's v3 tree after a title slot
// line; its summaries reach the model in wrappers of its own (internal/agent/omp). It resumes
// one by its file: `omp --resume FILE` (an id prefix also works). Its compaction entries are
// pi's: ctxc appends one in place, which omp resumes.

// Omp is the format's name, as --format takes it.
const Omp = "omp"

var omp = Agent{
	Name:        Omp,
	Description: "Oh My Pi sessions (~/.omp/agent/sessions)",
	Homes:       [][]string{{".omp", "agent", "sessions"}},
	Resume:      "omp --resume",
	ByPath:      true,
	Tools: Tools{
		Edit:     []string{"edit", "write"},
		Read:     []string{"read"},
		Shell:    []string{"bash"},
		PathKeys: []string{"path"},
	},
	Kept:        Kept{IDKey: "id", FirstID: "firstKeptEntryId"},
	UsageProbes: []string{`"usage"`}, // its assistant message entries, as pi's
}
