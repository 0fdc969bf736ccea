package agent

var geminiCLI = Agent{
	Name:        GeminiCLI,
	Description: "Gemini CLI chats (~/.gemini/tmp/<project>/chats)",
	Homes:       [][]string{{".gemini", "tmp"}},
	// Gemini CLI keeps a project's sessions under a hash of its folder, which the session does
	// not name: it is resumed from that folder.
	Resume: "gemini --resume",
	Tools: Tools{
		Edit:     []string{"write_file", "replace"},
		Read:     []string{"read_file"},
		Shell:    []string{"run_shell_command"},
		PathKeys: []string{"file_path"},
	},
	// Its compression rewrites the chat with a {"$set":{"messages":[...]}} line.
	CompactionProbe: `"$set"`,
}
