package agent

var qwenCode = Agent{
	Name:        QwenCode,
	Description: "Qwen Code chats (~/.qwen/projects/<project>/chats)",
	Homes:       [][]string{{".qwen", "projects"}},
	Resume:      "qwen --resume",
	Tools: Tools{
		Edit:     []string{"write_file", "edit"},
		Read:     []string{"read_file"},
		Shell:    []string{"run_shell_command"},
		PathKeys: []string{"file_path"},
	},
	CompactionProbe: "chat_compression",
}
