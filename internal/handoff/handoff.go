// Package handoff writes a session as a new native session of an agent: another agent's
// (`ctxc handoff`), or the same agent's as the conversation stood before one of its compactions
// (`ctxc fork`). The messages are rendered from the message model under fresh ids
// (transcript.RenderSession); a conversation over the target's window goes through ctxc's own
// compaction on the way; the file lands where the agent looks for its sessions, or at -o, in one
// atomic write. The source is only read.
package handoff

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/address"
	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/index"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/ctxc/ctxc/internal/usage"
)

// Options say what to write and where.
type Options struct {
	To     transcript.Format // the target agent's format
	Full   bool              // the whole history, not the effective context
	Output string            // the new file; "": the target's sessions folder for the project
	Window int               // the target's context window in tokens; 0: the registry's default window of the target
	Now    time.Time
	Getenv func(string) string // the agents' home variables (CLAUDE_CONFIG_DIR, CODEX_HOME, PI_CODING_AGENT_DIR, GEMINI_CLI_HOME, QWEN_RUNTIME_DIR, QWEN_HOME, COPILOT_HOME)
	Home   string              // the user's home folder
	Format transcript.Format   // the source's format; FormatUnknown detects
	// Compact is how a conversation over the window is compacted on the way (its summarizer,
	// zones and tiers); Output, Format, Window and Now are set here.
	Compact compact.Options
	// Summarizer puts the summarizer into the compaction's options, asked only when the
	// conversation is over the window (nil: the extractive summarizer).
	Summarizer func(context.Context, *compact.Options) error
}

// Result is the session written.
type Result struct {
	Path      string // the new session file
	Session   string // its id
	Resume    string // the shell command that resumes it
	Messages  int    // messages written (before a compaction)
	Dropped   transcript.Dropped
	Compacted *compact.Outcome // the compaction on the way, nil when the conversation fit
}

// UsageError is a request that cannot be met as asked (exit 2): an unknown target, a fork
// number out of range.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// ParseTarget reads an agent's name as the command line gives it.
func ParseTarget(s string) (transcript.Format, error) {
	for _, f := range transcript.SessionTargets {
		if string(f) == s {
			return f, nil
		}
	}
	var names []string
	for _, f := range transcript.SessionTargets {
		names = append(names, string(f))
	}
	return "", &UsageError{Msg: fmt.Sprintf("unknown target agent %q (one of: %s)", s, strings.Join(names, ", "))}
}

// Session writes the conversation of src as a new session of o.To: its effective context, or
// with o.Full its whole history.
func Session(ctx context.Context, src string, o Options) (*Result, error) {
	if err := checkSource(src, o.Output); err != nil {
		return nil, err
	}
	format, err := detect(src, o.Format)
	if err != nil {
		return nil, err
	}
	var msgs []transcript.Message
	if o.Full {
		msgs, err = History(src, format)
	} else {
		_, msgs, err = transcript.LoadFile(src, transcript.Options{Format: format})
	}
	if err != nil {
		return nil, err
	}
	return write(ctx, src, format, msgs, o)
}

// checkSource refuses a source whose last line is still being written, and an output that is
// the source. A session of an agent's store (STORE#SESSION-ID) is stated as it is exported.
func checkSource(src, out string) error {
	if info, err := transcript.Stat(src); err != nil {
		return err
	} else if info.IsDir() {
		return &UsageError{Msg: src + ": is a directory (give one session file)"}
	} else if !info.Mode().IsRegular() {
		// A pipe or a device: opening it to check its tail would wait for a writer, and every
		// reader refuses it. (The check comes before any open.)
		return fmt.Errorf("%s: not a regular file", src)
	}
	// An archived session (zstd), a store's export and a snapshot (a Continue CLI session, one
	// JSON document) hold complete lines only: their tail is not checked as text.
	if address.Parse(src).Kind == address.File {
		if err := safewrite.CheckTail(src); err != nil {
			return err
		}
	}
	if out != "" {
		if _, err := safewrite.CheckDest(out, []string{src}); err != nil {
			return err
		}
	}
	return nil
}

func detect(src string, f transcript.Format) (transcript.Format, error) {
	if f != transcript.FormatUnknown {
		return f, nil
	}
	file, err := transcript.OpenFile(src)
	if err != nil {
		return "", err
	}
	defer file.Close()
	return transcript.Detect(file, src, transcript.Options{})
}

// History is the whole conversation of a session, every compaction undone: the context before
// each compaction, then the messages each later one added, summaries left out (what they
// summarize is there).
func History(src string, format transcript.Format) ([]transcript.Message, error) {
	res, err := transcript.ScanFile(src, transcript.Options{Format: format})
	if err != nil {
		return nil, err
	}
	recs := res.Stats.Records
	ropts := transcript.Options{Format: format}
	var out []transcript.Message
	prev := 0
	for i := 0; i <= len(recs); i++ {
		var ms []transcript.Message
		if i < len(recs) {
			_, ms, err = transcript.LoadFileUpTo(src, recs[i].Start, ropts)
		} else {
			_, ms, err = transcript.LoadFile(src, ropts)
		}
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if m.Line > prev && !m.Summary {
				out = append(out, m)
			}
		}
		if i < len(recs) {
			prev = recs[i].Line
		}
	}
	return out, nil
}

// write renders msgs as a new session of o.To, its calls as the target's own tools where it has
// their kind, compacts it when it is over the window, and writes it where the agent finds it (or
// at o.Output).
func write(ctx context.Context, src string, format transcript.Format, msgs []transcript.Message, o Options) (*Result, error) {
	cwd := project(src, format)
	msgs = mapTools(msgs, format, o.To)
	w, dropped, err := transcript.RenderSession(o.To, &transcript.NewSession{Messages: msgs, Cwd: cwd, Now: o.Now})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src, err)
	}
	r := &Result{Session: w.Session, Messages: w.Messages, Dropped: dropped}
	data := w.Data
	if over(msgs, o) {
		if data, r.Session, r.Compacted, err = compactOnTheWay(ctx, src, data, o); err != nil {
			return nil, err
		}
	}
	if r.Path, err = destination(o, cwd, r.Session); err != nil {
		return nil, err
	}
	if err := safewrite.CheckOutput(r.Path, []string{src}, false); err != nil {
		return nil, err
	}
	if err := safewrite.WriteAtomic(r.Path, func(wr io.Writer) error {
		_, err := wr.Write(data)
		return err
	}); err != nil {
		return nil, err
	}
	safewrite.RecordOutput(r.Path)
	if abs, err := filepath.Abs(r.Path); err == nil {
		r.Path = abs
	}
	r.Resume = index.ResumeCommand(string(o.To), r.Session, cwd, r.Path)
	return r, nil
}

// project is the folder the source's agent worked in (the current one when it recorded none):
// the new session belongs to the same project.
func project(src string, format transcript.Format) string {
	if s, err := usage.FileSession(src, format); err == nil && s.Project != "" {
		return s.Project
	}
	wd, _ := os.Getwd()
	return wd
}

func window(o Options) int {
	if o.Window > 0 {
		return o.Window
	}
	return o.To.Agent().Handoff.Window
}

// over reports a conversation over the compaction threshold of the target's window.
func over(msgs []transcript.Message, o Options) bool {
	n := 0
	for i := range msgs {
		n += msgs[i].Tokens()
	}
	co := compact.Options{Window: window(o)}
	return n > co.EffectiveThreshold()
}

// compactOnTheWay compacts the rendered session with ctxc's compaction into a new session of
// the same agent (compact -o), in a temporary folder: its text and its session id.
func compactOnTheWay(ctx context.Context, src string, data []byte, o Options) ([]byte, string, *compact.Outcome, error) {
	dir, err := os.MkdirTemp("", "ctxc-handoff-*")
	if err != nil {
		return nil, "", nil, err
	}
	defer os.RemoveAll(dir)
	in, out := filepath.Join(dir, "session.jsonl"), filepath.Join(dir, "compacted.jsonl")
	if err := os.WriteFile(in, data, 0o600); err != nil {
		return nil, "", nil, err
	}
	co := o.Compact
	if o.Summarizer != nil {
		if err := o.Summarizer(ctx, &co); err != nil {
			return nil, "", nil, err
		}
	}
	co.Output, co.OutputFormat, co.Format, co.Window, co.Now, co.Idle = out, "native", o.To, window(o), o.Now, 0
	res, err := compact.File(ctx, in, co)
	if err != nil {
		return nil, "", nil, fmt.Errorf("%s: compacting it for %s's window: %w", src, o.To, err)
	}
	if res.Status != compact.StatusCompacted {
		return nil, "", nil, fmt.Errorf("%s: the conversation is over %s's window of %d tokens and could not be compacted (%s): give a larger --window or another --provider", src, o.To, window(o), res.Reason)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		return nil, "", nil, err
	}
	return b, res.Session, res, nil
}

// destination is o.Output, or the file the target agent looks for the session in, its folder
// made when missing.
func destination(o Options, cwd, session string) (string, error) {
	if o.Output != "" {
		return o.Output, nil
	}
	p := SessionPath(o.To, o.Getenv, o.Home, cwd, session, o.Now)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return "", &safewrite.OutputError{Path: filepath.Dir(p), Msg: "cannot make the agent's sessions folder: " + err.Error()}
	}
	return p, nil
}

// SessionPath is where agent f keeps a new session id started in folder cwd at now, as the
// agent itself names it (the registry's rule; "" for an agent that is no target): its folder
// moved by its environment variable when set.
func SessionPath(f transcript.Format, getenv func(string) string, home, cwd, id string, now time.Time) string {
	if h := f.Agent().Handoff; h != nil {
		return h.SessionPath(getenv, home, cwd, id, now)
	}
	return ""
}
