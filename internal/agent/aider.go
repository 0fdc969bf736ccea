package agent

// aider is Aider's chat history, the Markdown file it appends to as it runs
// (.aider.chat.history.md in the git root of the folder it runs in, or --chat-history-file): one
// file of all the sessions run there, which ctxc reads as one transcript
// (internal/agent/aider/aiderhist). Aider restores it with --restore-chat-history, the file named by
// --chat-history-file. ctxc writes no session of it: `compact -o` of one is a ctxc-format file.

// Aider is the format's name, as --format takes it.
const Aider = "aider"

var aider = Agent{
	Name:        Aider,
	Description: "Aider chat histories (.aider.chat.history.md in each project), read only",
	// Aider keeps one history in the git root of each project (search's defaults add the
	// current one's through aiderhist.DefaultPaths); outside a repository, in the folder it runs
	// in: the home folder's.
	Homes:      [][]string{{".aider.chat.history.md"}},
	Resume:     "aider --restore-chat-history --chat-history-file",
	ByPath:     true,
	CtxcOutput: true,
	// Aider calls no tools: its edits are blocks in the model's replies, its commands' output
	// its own "> " lines.
	Tools: Tools{},
}
