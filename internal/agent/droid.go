package agent

// Droid is the format's name, as --format takes it.
const Droid = "droid"

var droid = Agent{
	Name:        Droid,
	Description: "Factory droid sessions (~/.factory/sessions)",
	Homes:       [][]string{{".factory", "sessions"}},
	Resume:      "droid --resume",
	Tools: Tools{
		Edit:     []string{"Edit", "MultiEdit", "Create"},
		Read:     []string{"Read"},
		Patch:    []string{"ApplyPatch"},
		Shell:    []string{"Execute"},
		PathKeys: []string{"file_path"},
	},
	// Its compaction records name nothing kept: it keeps the messages after its anchor.
	Kept: Kept{Rebuild: true},
}
