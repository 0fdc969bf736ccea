package conv

import "github.com/ctxc/ctxc/internal/agent"

// Format names a transcript format.
type Format string

// Formats (docs/design.md §3).
const (
	FormatUnknown   Format = ""
	FormatOpenAI    Format = agent.OpenAI
	FormatAnthropic Format = agent.Anthropic
	FormatCtxc      Format = agent.Ctxc
	FormatClaude    Format = agent.ClaudeCode
	FormatCodex     Format = agent.Codex
	FormatPi        Format = agent.Pi
	FormatCopilot   Format = agent.Copilot
	FormatDroid     Format = agent.Droid
	FormatGemini    Format = agent.GeminiCLI
	FormatQwen      Format = agent.QwenCode
	FormatOpencode  Format = agent.Opencode
	FormatAider     Format = agent.Aider
	FormatOpenhands Format = agent.Openhands
	FormatContinue  Format = agent.ContinueCLI
	FormatKilo      Format = agent.Kilo
	FormatCline     Format = agent.Cline
	FormatGoose     Format = agent.Goose
	FormatNanocoder Format = agent.Nanocoder
	FormatSWEAgent  Format = agent.SWEAgent
	FormatMiniSWE   Format = agent.MiniSWE
	FormatClineTask Format = agent.ClineTask
	FormatRooCode   Format = agent.RooCode
	FormatOmp       Format = agent.Omp
)

// Agent is the format's descriptor in the registry (the zero Agent for FormatUnknown).
func (f Format) Agent() agent.Agent {
	a, _ := agent.Lookup(string(f))
	return a
}

// IsGeneric reports whether the format is a plain message list that ctxc may append markers to.
func (f Format) IsGeneric() bool {
	return f.Agent().Generic
}

// Native reports whether compaction of this format writes the agent's own records.
func (f Format) Native() bool {
	a, ok := agent.Lookup(string(f))
	return ok && !a.Generic
}

// Snapshot reports whether the format's sessions are read as snapshots (Continue CLI's): their
// text, and the offsets in it, are not the file's bytes.
func (f Format) Snapshot() bool { return f == FormatContinue }
