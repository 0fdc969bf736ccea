package transcript

import "github.com/ctxc/ctxc/internal/jsonl"

// agentCode is the code transcript runs for an agent's format, one entry per agent: its reader
// of a whole file, its decoder of one line, and its writer of compaction records. The facts
// about the format (its name, its resume command, its tools...) are its descriptor in the
// registry (internal/agent, Format.Agent). The message lists (openai, anthropic, ctxc) have no
// entry: they share the generic reader and a ctxc marker.
type agentCode struct {
	format Format
	reader func() formatReader
	record func(jsonl.Value) Record
	writer Writer
}

var agentCodes = []agentCode{
	{FormatClaude, func() formatReader { return newClaudeReader() }, claudeRecord, claudeWriter{}},
	{FormatCodex, func() formatReader { return newCodexReader() }, codexRecord, codexWriter{}},
	{FormatPi, func() formatReader { return newPiReader() }, piRecord, piWriter{}},
	{FormatCopilot, func() formatReader { return newCopilotReader() }, copilotRecord, copilotWriter{}},
	{FormatDroid, func() formatReader { return newDroidReader() }, droidRecord, droidWriter{}},
	{FormatGemini, func() formatReader { return newGeminiReader() }, geminiRecord, geminiWriter{}},
	{FormatQwen, func() formatReader { return newQwenReader() }, qwenRecord, qwenWriter{}},
	{FormatOpencode, func() formatReader { return newOpencodeReader(FormatOpencode) }, opencodeRecord, opencodeWriter{FormatOpencode}},
	{FormatKilo, func() formatReader { return newOpencodeReader(FormatKilo) }, kiloRecord, opencodeWriter{FormatKilo}},
	{FormatAider, func() formatReader { return newAiderReader() }, aiderRecord, aiderWriter{}},
	{FormatOpenhands, func() formatReader { return newOpenhandsReader() }, openhandsRecord, openhandsWriter{}},
	{FormatContinue, func() formatReader { return newContinueReader() }, continueRecord, continueWriter{}},
	{FormatCline, func() formatReader { return newClineReader() }, clineRecord, clineWriter{}},
}

// codeOf is the agent code of a format (ok false for a message list or an unknown format).
func codeOf(f Format) (agentCode, bool) {
	for _, c := range agentCodes {
		if c.format == f {
			return c, true
		}
	}
	return agentCode{}, false
}
