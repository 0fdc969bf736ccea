package agent

// A message list may be written by any client, whose tools are named as it likes: its calls
// are judged by every agent's names and by these, which clients of the APIs commonly use.

// The formats' names, as --format takes them.
const (
	OpenAI    = "openai"
	Anthropic = "anthropic"
	Ctxc      = "ctxc"
)

var listTools = Tools{
	Edit:     []string{"create_file", "write_file", "edit_file", "str_replace"},
	Read:     []string{"read_file", "view"},
	Patch:    []string{"applypatch"},
	Shell:    []string{"run_terminal_cmd", "exec"},
	PathKeys: []string{"file_path", "notebook_path", "path", "filePath", "filename", "file"},
}

// markerProbe is in every ctxc marker line: its "compact" member.
const markerProbe = `"compact"`

var openAI = Agent{
	Name:            OpenAI,
	Description:     "OpenAI Chat Completions messages, one a line",
	Generic:         true,
	Tools:           listTools,
	CompactionProbe: markerProbe,
}

var anthropic = Agent{
	Name:            Anthropic,
	Description:     "Anthropic Messages API messages, one a line",
	Generic:         true,
	Tools:           listTools,
	CompactionProbe: markerProbe,
}

var ctxc = Agent{
	Name:            Ctxc,
	Description:     "message lines with ctxc/crabtalk compaction markers",
	Generic:         true,
	Tools:           listTools,
	CompactionProbe: markerProbe,
}
