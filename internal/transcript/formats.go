package transcript

import (
	"github.com/ctxc/ctxc/internal/agent/aider"
	"github.com/ctxc/ctxc/internal/agent/claude"
	"github.com/ctxc/ctxc/internal/agent/cline"
	"github.com/ctxc/ctxc/internal/agent/clinetask"
	"github.com/ctxc/ctxc/internal/agent/codex"
	"github.com/ctxc/ctxc/internal/agent/continuecli"
	"github.com/ctxc/ctxc/internal/agent/copilot"
	"github.com/ctxc/ctxc/internal/agent/droid"
	"github.com/ctxc/ctxc/internal/agent/gemini"
	"github.com/ctxc/ctxc/internal/agent/goose"
	"github.com/ctxc/ctxc/internal/agent/miniswe"
	"github.com/ctxc/ctxc/internal/agent/nanocoder"
	"github.com/ctxc/ctxc/internal/agent/omp"
	"github.com/ctxc/ctxc/internal/agent/opencode"
	"github.com/ctxc/ctxc/internal/agent/openhands"
	"github.com/ctxc/ctxc/internal/agent/pi"
	"github.com/ctxc/ctxc/internal/agent/qwen"
	"github.com/ctxc/ctxc/internal/agent/sweagent"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// agentCode is the code transcript runs for an agent's format, one entry per agent: its reader
// of a whole file, its decoder of one line, its writer of compaction records and its writer of
// a new session. The facts
// about the format (its name, its resume command, its tools...) are its descriptor in the
// registry (internal/agent, Format.Agent). The message lists (openai, anthropic, ctxc) have no
// entry: they share the generic reader and a ctxc marker.
type agentCode struct {
	format Format
	reader func() formatReader
	record func(jsonl.Value) Record
	writer Writer
	// session writes a new session of the agent from a conversation (RenderSession; nil: ctxc
	// writes none, the agent is no handoff target). Its order here is SessionTargets'.
	session func(ms []Message, s *NewSession, r *sessionRender) (Written, Dropped, error)
}

var agentCodes = []agentCode{
	{FormatClaude, claude.NewReader, claude.Record, claude.Writer{}, claudeSession},
	{FormatCodex, codex.NewReader, codex.Record, codex.Writer{}, codexSession},
	{FormatPi, pi.NewReader, pi.Record, pi.Writer{}, piSession},
	{FormatGemini, gemini.NewReader, gemini.Record, gemini.Writer{}, geminiSession},
	{FormatQwen, qwen.NewReader, qwen.Record, qwen.Writer{}, qwenSession},
	{FormatCopilot, copilot.NewReader, copilot.Record, copilot.Writer{}, copilotSession},
	{FormatDroid, droid.NewReader, droid.Record, droid.Writer{}, nil},
	{FormatOpencode, opencode.NewReader, opencode.Record, readOnlyWriter{FormatOpencode, opencode.ReadOnly}, nil},
	{FormatKilo, opencode.NewKiloReader, opencode.KiloRecord, readOnlyWriter{FormatKilo, opencode.KiloReadOnly}, nil},
	{FormatAider, aider.NewReader, aider.Record, readOnlyWriter{FormatAider, aider.ReadOnly}, nil},
	{FormatOpenhands, openhands.NewReader, openhands.Record, readOnlyWriter{FormatOpenhands, openhands.ReadOnly}, nil},
	{FormatContinue, continuecli.NewReader, continuecli.Record, continuecli.Writer{}, nil},
	{FormatCline, cline.NewReader, cline.Record, cline.Writer{}, nil},
	{FormatGoose, goose.NewReader, goose.Record, readOnlyWriter{FormatGoose, goose.ReadOnly}, nil},
	{FormatNanocoder, nanocoder.NewReader, nanocoder.Record, readOnlyWriter{FormatNanocoder, nanocoder.ReadOnly}, nil},
	{FormatSWEAgent, sweagent.NewReader, sweagent.Record, readOnlyWriter{FormatSWEAgent, sweagent.ReadOnly}, nil},
	{FormatMiniSWE, miniswe.NewReader, miniswe.Record, readOnlyWriter{FormatMiniSWE, miniswe.ReadOnly}, nil},
	{FormatClineTask, clinetask.NewReader, clinetask.Record, readOnlyWriter{FormatClineTask, clinetask.ReadOnly}, nil},
	{FormatRooCode, clinetask.NewReader, clinetask.Record, readOnlyWriter{FormatRooCode, clinetask.ReadOnly}, nil},
	{FormatOmp, omp.NewReader, omp.Record, ompWriter{}, nil},
}

// readOnlyWriter writes for an agent whose sessions ctxc only reads: never into them (Append
// refuses, with why: reason); a compaction is written with -o as a ctxc-format file.
type readOnlyWriter struct {
	source Format
	reason string
}

func (w readOnlyWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	return Written{}, &safewrite.ReadOnlyError{Path: src.Path, Reason: w.reason,
		Hint: "give -o OUT to write the result as a new ctxc-format session"}
}

func (w readOnlyWriter) New(src *Source, c *Compaction) (Written, error) {
	return markerWriter{source: w.source}.New(src, c)
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
