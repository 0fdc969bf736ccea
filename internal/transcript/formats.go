package transcript

import (
	"path/filepath"
	"strings"

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
	"github.com/ctxc/ctxc/internal/agent/kimi"
	"github.com/ctxc/ctxc/internal/agent/miniswe"
	"github.com/ctxc/ctxc/internal/agent/nanocoder"
	"github.com/ctxc/ctxc/internal/agent/omp"
	"github.com/ctxc/ctxc/internal/agent/opencode"
	"github.com/ctxc/ctxc/internal/agent/openhands"
	"github.com/ctxc/ctxc/internal/agent/pi"
	"github.com/ctxc/ctxc/internal/agent/qwen"
	"github.com/ctxc/ctxc/internal/agent/sweagent"
	"github.com/ctxc/ctxc/internal/conv"
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
	session func(ms []Message, s *NewSession, r *conv.SessionRender) (Written, Dropped, error)
	// lines tell the format's lines by their "type" (detectLine), wrappers are the texts its
	// reader puts around what a line holds (Wrappers).
	lines    []conv.LineType
	wrappers []conv.Wrapper
}

var agentCodes = []agentCode{
	{format: FormatClaude, reader: claude.NewReader, record: claude.Record, writer: claude.Writer{}, session: claude.Session},
	{format: FormatCodex, reader: codex.NewReader, record: codex.Record, writer: codex.Writer{}, session: codex.Session},
	{format: FormatPi, reader: pi.NewReader, record: pi.Record, writer: pi.Writer{}, session: pi.Session, wrappers: pi.Wrappers},
	{format: FormatGemini, reader: gemini.NewReader, record: gemini.Record, writer: gemini.Writer{}, session: gemini.Session},
	{format: FormatQwen, reader: qwen.NewReader, record: qwen.Record, writer: qwen.Writer{}, session: qwen.Session},
	{format: FormatCopilot, reader: copilot.NewReader, record: copilot.Record, writer: copilot.Writer{}, session: copilot.Session, wrappers: copilot.Wrappers},
	{format: FormatDroid, reader: droid.NewReader, record: droid.Record, writer: droid.Writer{}, wrappers: droid.Wrappers},
	{format: FormatOpencode, reader: opencode.NewReader, record: opencode.Record, writer: documentWriter{readOnlyWriter{FormatOpencode, opencode.ReadOnly}, opencode.Writer{}}, wrappers: opencode.Wrappers},
	{format: FormatKilo, reader: opencode.NewKiloReader, record: opencode.KiloRecord, writer: readOnlyWriter{FormatKilo, opencode.KiloReadOnly}, wrappers: opencode.Wrappers},
	{format: FormatAider, reader: aider.NewReader, record: aider.Record, writer: readOnlyWriter{FormatAider, aider.ReadOnly}, lines: aider.LineTypes},
	{format: FormatOpenhands, reader: openhands.NewReader, record: openhands.Record, writer: readOnlyWriter{FormatOpenhands, openhands.ReadOnly}, lines: openhands.LineTypes},
	{format: FormatContinue, reader: continuecli.NewReader, record: continuecli.Record, writer: continuecli.Writer{}},
	{format: FormatCline, reader: cline.NewReader, record: cline.Record, writer: cline.Writer{}, lines: cline.LineTypes},
	{format: FormatGoose, reader: goose.NewReader, record: goose.Record, writer: readOnlyWriter{FormatGoose, goose.ReadOnly}, lines: goose.LineTypes},
	{format: FormatNanocoder, reader: nanocoder.NewReader, record: nanocoder.Record, writer: readOnlyWriter{FormatNanocoder, nanocoder.ReadOnly}, lines: nanocoder.LineTypes},
	{format: FormatSWEAgent, reader: sweagent.NewReader, record: sweagent.Record, writer: readOnlyWriter{FormatSWEAgent, sweagent.ReadOnly}, lines: sweagent.LineTypes},
	{format: FormatMiniSWE, reader: miniswe.NewReader, record: miniswe.Record, writer: readOnlyWriter{FormatMiniSWE, miniswe.ReadOnly}, lines: miniswe.LineTypes},
	{format: FormatClineTask, reader: clinetask.NewReader, record: clinetask.Record, writer: readOnlyWriter{FormatClineTask, clinetask.ReadOnly}, lines: clinetask.LineTypes},
	{format: FormatRooCode, reader: clinetask.NewReader, record: clinetask.Record, writer: readOnlyWriter{FormatRooCode, clinetask.ReadOnly}, lines: clinetask.RooLineTypes},
	{format: FormatOmp, reader: omp.NewReader, record: omp.Record, writer: omp.Writer{}, lines: omp.LineTypes, wrappers: omp.Wrappers},
	{format: kimi.Format, reader: kimi.NewReader, record: kimi.Record, writer: readOnlyWriter{kimi.Format, kimi.ReadOnly}, lines: kimi.LineTypes, wrappers: kimi.Wrappers},
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

// documentWriter writes for an agent that keeps its sessions in a store ctxc only reads but
// imports a session document (opencode import): -o OUT.json writes that document (doc), any
// other output a ctxc-format file; in place is refused.
type documentWriter struct {
	readOnlyWriter
	doc Writer
}

func (w documentWriter) New(src *Source, c *Compaction) (Written, error) {
	if strings.EqualFold(filepath.Ext(c.Output), ".json") {
		return w.doc.New(src, c)
	}
	return w.readOnlyWriter.New(src, c)
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
