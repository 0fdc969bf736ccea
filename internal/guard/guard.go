// Package guard is ctxc inside an agent's own compaction: what `ctxc hook AGENT` does when the
// agent runs it. On SessionStart with source "compact" (Claude Code, and Codex 0.169.0, which
// reads the same answer), it reads the session file and returns as the hook's additionalContext
// a note of facts of the fact ledger (package ledger), verbatim, in the ledger's priority order
// and within a token budget, framed as ctxc's note. The agent stores it after its summary and
// sends it to the model with the next request, so what its summary drops survives.
//
// What the note holds depends on what the file holds when the hook runs. Codex writes its
// compacted record before it runs the hook: the note holds the facts of the context before the
// compaction that the context after it lacks (what its summary lost). Claude Code runs the hook
// before it writes its boundary and summary (and before PostCompact, the only hook given the
// summary): the note holds the whole ledger of the context being compacted.
//
// opencode's compaction takes a plugin's text before it summarizes: ctxc's plugin for it sends a
// PreCompact event first, answered with the ledger of the context about to be summarized, framed
// for the summarizer, and SessionStart(compact) once the summary is written, answered with what
// the summary lost.
//
// A hook must never break its agent: every failure (no or bad input, a missing, huge or
// half-written file, a timeout, a panic) ends in no output and exit status 0, with one line in
// the log (Log). The package imports neither cobra nor viper.
package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/audit"
	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
)

// Defaults.
const (
	DefaultBudget  = 2000             // tokens of the note
	DefaultTimeout = 20 * time.Second // the hook's own bound, under Claude Code's hook timeout
	maxInput       = 1 << 20          // bytes of hook input read from stdin
	// maxLine bounds one line of the session file: the longest real lines are tens of MB, and a
	// file that is one huge run of bytes (a corrupt or sparse file) is refused at once instead
	// of being read to its end.
	maxLine = 256 << 20
)

// Options of one hook call.
type Options struct {
	Budget  int           // tokens; 0: DefaultBudget
	Timeout time.Duration // 0: DefaultTimeout
	// Memory, when set, is a memory file (package memory) that the session's memory is merged
	// into before the note is made; a relative path is taken from the session's folder (the
	// hook input's cwd).
	Memory string
	// Instructions, when not nil, are the compaction's instructions in place of the project's
	// "Compact Instructions" section ("" for none): the terms they name are facts of the note.
	Instructions *string
	// Getenv reads the environment the agent ran the hook with (Cline: where its sessions are);
	// nil: os.Getenv.
	Getenv func(string) string
	// StateDir is where the guard notes which compactions it answered (Cline's hook runs after
	// every tool call: the note is given once per compaction); "": no note is given.
	StateDir string
}

// Input is the part of a hook's JSON input the guard reads.
type Input struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Event          string `json:"hook_event_name"`
	Source         string `json:"source"`
	Trigger        string `json:"trigger"`
	// Compacted: the compaction SessionStart announces is the newest in the file even when
	// messages came after it (ctxc's opencode plugin, whose note may wait until the session is
	// idle): the note holds what it lost.
	Compacted bool `json:"compacted"`
}

// Outcome is what one hook call did, for the log.
type Outcome struct {
	Agent   string
	Input   Input
	Action  string // "note", "skip", "error"
	Detail  string
	Facts   int
	Carried int
	Tokens  int
	Memory  string // what the memory flush did ("" when not asked for)
	Elapsed time.Duration
}

// NotePrefix opens every note: the audit counts what a note restored by it.
const NotePrefix = audit.NotePrefix

// noteFrame says who wrote the note and what it is: facts, not a new request.
const noteFrame = NotePrefix + "This conversation was just compacted. Before it was, ctxc (a tool the user installed) copied " +
	"these facts of it from the session file, so that the summary cannot lose them. They are a record " +
	"of the conversation so far, not a new message from the user.\n\n"

// preFrame opens the ledger given to an agent's summarizer before it summarizes: what the
// summary must keep.
const preFrame = "ctxc (a tool the user installed) copied these facts of the conversation from the session file, " +
	"verbatim. Keep every one of them in the summary, word for word where they are names, paths, commands, " +
	"URLs or ids:\n\n"

// Agents are the agents whose hook ctxc runs (`ctxc hook AGENT`): those whose compaction
// starts a session with a SessionStart(compact) event whose answer adds to the context (the
// registry's CompactNote), and those whose hook after a tool call adds to it (ToolNote: Cline).
func Agents() []string {
	var names []string
	for _, a := range agent.All() {
		if a.CompactNote || a.ToolNote {
			names = append(names, a.Name)
		}
	}
	return names
}

// Run runs one call of the named agent's hook (one of Agents; ok false for another name): in
// is the hook's stdin. It returns what to print on stdout (nil for nothing) and what happened,
// and never fails. (Claude Code and Codex 0.169.0 read the same SessionStart answer; Codex runs
// the hook after it has written its compacted record, so the note holds what its summary lost.)
func Run(ctx context.Context, name string, in io.Reader, o Options) (stdout []byte, out Outcome, ok bool) {
	a, found := agent.Lookup(name)
	switch {
	case found && a.ToolNote:
		stdout, out = runTool(ctx, name, in, o)
		return stdout, out, true
	case !found || !a.CompactNote:
		return nil, Outcome{}, false
	}
	stdout, out = run(ctx, name, a.CompactContext, in, o)
	return stdout, out, true
}

// run answers SessionStart(compact) with the note for the session, PreCompact (for an agent
// whose summarizer takes context: pre) with the ledger for its summarizer, and anything else
// with nothing.
func run(ctx context.Context, agent string, pre bool, in io.Reader, o Options) (stdout []byte, out Outcome) {
	out = Outcome{Agent: agent}
	start := time.Now()
	defer func() { out.Elapsed = time.Since(start) }()
	input, err := readInput(in)
	out.Input = input
	if err != nil {
		return nil, failed(out, err)
	}
	pre = pre && input.Event == "PreCompact"
	if !pre && (input.Event != "SessionStart" || input.Source != "compact") {
		out.Action, out.Detail = "skip", fmt.Sprintf("event %s, source %q: nothing to do", input.Event, input.Source)
		return nil, out
	}
	note, err := flushAndNote(ctx, &out, o, frameFor(pre), pre, input.Compacted)
	if err != nil {
		return nil, failed(out, err)
	}
	if note.carried == 0 {
		out.Action, out.Detail = "skip", "no fact to carry ("+note.basis+")"
		return nil, out
	}
	b, err := json.Marshal(map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": input.Event, "additionalContext": note.text}})
	if err != nil {
		return nil, failed(out, err)
	}
	out.Action = "note"
	return append(b, '\n'), out
}

// flushAndNote merges the session's memory into the memory file first, when asked, then makes
// the note opened by frame, both within the hook's time; out gets what was flushed and counted.
func flushAndNote(ctx context.Context, out *Outcome, o Options, frame string, pre, compacted bool) (note, error) {
	deadline := time.Now().Add(o.timeout())
	input := out.Input
	if o.Memory != "" {
		out.Memory = flushMemory(ctx, input, o)
	}
	instructions := o.instructions(input.Cwd)
	n, err := withTimeout(ctx, time.Until(deadline), func() (note, error) {
		return noteFramed(input.TranscriptPath, instructions, o.budget(), frame, pre, compacted)
	})
	if err != nil {
		return n, err
	}
	out.Facts, out.Carried, out.Tokens, out.Detail = n.facts, n.carried, estimate.Tokens(n.text), n.basis
	return n, nil
}

func (o Options) budget() int {
	if o.Budget > 0 {
		return o.Budget
	}
	return DefaultBudget
}

func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return DefaultTimeout
}

func failed(out Outcome, err error) Outcome {
	out.Action, out.Detail = "error", err.Error()
	return out
}

// readInput reads the hook's JSON object from stdin (at most maxInput bytes).
func readInput(in io.Reader) (Input, error) {
	var input Input
	data, err := readObject(in)
	if err != nil {
		return input, err
	}
	if err := json.Unmarshal(data, &input); err != nil {
		return input, fmt.Errorf("hook input: %w", err)
	}
	if (input.Event == "SessionStart" || input.Event == "PreCompact") && input.TranscriptPath == "" {
		return input, errors.New("hook input has no transcript_path")
	}
	return input, nil
}

// readObject reads the hook's stdin: one JSON object of at most maxInput bytes.
func readObject(in io.Reader) ([]byte, error) {
	if in == nil {
		return nil, errors.New("no hook input on stdin")
	}
	data, err := io.ReadAll(io.LimitReader(in, maxInput+1))
	if err != nil {
		return nil, fmt.Errorf("reading the hook input: %w", err)
	}
	switch {
	case len(data) == 0:
		return nil, errors.New("no hook input on stdin")
	case len(data) > maxInput:
		return nil, fmt.Errorf("hook input over %d bytes", maxInput)
	case !gjson.ValidBytes(data) || !gjson.ParseBytes(data).IsObject():
		return nil, errors.New("hook input is not a JSON object")
	}
	return data, nil
}

// withTimeout runs fn, giving up after d (the work goes on in the background until the
// process exits; nothing it does is written anywhere).
func withTimeout[T any](ctx context.Context, d time.Duration, fn func() (T, error)) (T, error) {
	type result struct {
		v   T
		err error
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				var zero T
				done <- result{zero, fmt.Errorf("internal error: %v", p)}
			}
		}()
		v, err := fn()
		done <- result{v, err}
	}()
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	select {
	case r := <-done:
		return r.v, r.err
	case <-ctx.Done():
		var zero T
		return zero, fmt.Errorf("gave up after %s", d)
	}
}

// note is a rendered note, its counts, and what it was made from.
type note struct {
	text           string
	facts, carried int
	basis          string
}

// Bases of a note.
const (
	basisLost   = "what the newest compaction's summary lost"
	basisLedger = "the ledger of the context being compacted"
)

// noteFor builds the note for the session file at path, within budget tokens. When the file
// ends with the compaction the hook announces (Codex writes its record first), the note holds
// the facts of the context before it that the context after it lacks; when the compaction is
// not written yet (Claude Code writes it after the hook), the note holds the whole ledger of
// the context being compacted, with the facts of ctxc's note at the previous compaction read
// back, so that they survive this one too. Before a compaction (pre), the note is that ledger,
// framed for the summarizer; after one that is written (compacted), what it lost, whatever came
// after it.
func noteFor(path, instructions string, budget int, pre, compacted bool) (note, error) {
	return noteFramed(path, instructions, budget, frameFor(pre), pre, compacted)
}

// frameFor opens the note: for the summarizer before a compaction (pre), else for the model
// after it.
func frameFor(pre bool) string {
	if pre {
		return preFrame
	}
	return noteFrame
}

// noteFramed is noteFor with the note opened by frame.
func noteFramed(path, instructions string, budget int, frame string, pre, compacted bool) (note, error) {
	// Each load reads a Claude Code session from its newest compaction on: the hook's time
	// follows what came since, not the length of the history.
	ropts := transcript.Options{Windowed: true, MaxLine: maxLine, FromNewestCompaction: true}
	res, now, err := transcript.LoadFile(path, ropts)
	if err != nil {
		return note{}, err
	}
	led, basis, err := ledgerFor(path, res.Stats, now, ropts, ledger.Options{Instructions: instructions}, pre, compacted)
	if err != nil {
		return note{}, err
	}
	n := note{facts: led.Len(), basis: basis}
	if led.Len() == 0 {
		return n, nil
	}
	body, rep := ledger.Note(led, budget-estimate.Tokens(frame))
	if rep.Carried > 0 {
		n.text, n.carried = frame+body, rep.Carried
	}
	return n, nil
}

// instructions are the compaction's instructions: those given, else the project's.
func (o Options) instructions(cwd string) string {
	if o.Instructions != nil {
		return *o.Instructions
	}
	return projectInstructions(cwd)
}

// projectInstructions are the compaction instructions of the session's project folder cwd (its
// CLAUDE.md's or AGENTS.md's "Compact Instructions" section): the terms they name are facts of
// the note too. A file that cannot be read gives none: a hook never breaks its agent.
func projectInstructions(cwd string) string {
	if cwd == "" {
		return ""
	}
	text, _, err := compact.ProjectInstructions(cwd)
	if err != nil {
		return ""
	}
	return text
}

// ledgerFor is the ledger the note carries (see noteFor), built with lo; before a compaction
// (pre), always the ledger of the context being compacted; when the newest compaction is the one
// announced (compacted), what it lost.
func ledgerFor(path string, st *transcript.Stats, now []transcript.Message, ropts transcript.Options, lo ledger.Options, pre, compacted bool) (*ledger.Ledger, string, error) {
	if n := len(st.Records); n > 0 && !pre {
		last := st.Records[n-1]
		_, after, err := transcript.LoadFileUpTo(path, last.End, ropts)
		if err != nil {
			return nil, "", err
		}
		if compacted || len(after) == len(now) { // nothing since the newest compaction: it is the one announced
			_, before, err := transcript.LoadFileUpTo(path, last.Start, ropts)
			if err != nil {
				return nil, "", err
			}
			after, _ = audit.SplitNotes(after)
			return ledger.Build(transcript.Flatten(before), lo).Without(audit.Text(after)), basisLost, nil
		}
	}
	// The notes of earlier compactions are read back as summaries: their facts stay in the ledger.
	msgs, notes := audit.SplitNotes(now)
	if n := len(st.Records); n > 0 {
		prev, err := audit.Notes(path, st.Records[n-1])
		if err != nil {
			return nil, "", err
		}
		notes = prev + notes
	}
	items := transcript.Flatten(msgs)
	if notes != "" {
		items = append([]transcript.Item{{Role: "user", Kind: "summary", Text: notes}}, items...)
	}
	return ledger.Build(items, lo), basisLedger, nil
}

// Log appends one line about a hook call to the log file at path (the directory is created);
// a log that cannot be written is left alone: the hook's answer matters more.
func Log(path string, now time.Time, out Outcome) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	line := fmt.Sprintf("%s %s %s/%s session=%s %s", now.UTC().Format(time.RFC3339), out.Agent, out.Input.Event,
		out.Input.Source+out.Input.Trigger, out.Input.SessionID, out.Action)
	if out.Action == "note" {
		line += fmt.Sprintf(" facts=%d carried=%d tokens=%d", out.Facts, out.Carried, out.Tokens)
	}
	if out.Detail != "" {
		line += ": " + out.Detail
	}
	if out.Memory != "" {
		line += "; " + out.Memory
	}
	fmt.Fprintf(f, "%s (%.3fs)\n", line, out.Elapsed.Seconds())
}

// StateDir is ctxc's state folder, the hook log's: $XDG_STATE_HOME/ctxc, else
// ~/.local/state/ctxc ("" when neither is known).
func StateDir(getenv func(string) string) string {
	if p := LogPath(getenv); p != "" {
		return filepath.Dir(p)
	}
	return ""
}

// LogPath is the hook log: $XDG_STATE_HOME/ctxc/hooks.log, else ~/.local/state/ctxc/hooks.log
// ("" when neither is known).
func LogPath(getenv func(string) string) string {
	if x := getenv("XDG_STATE_HOME"); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "ctxc", "hooks.log")
	}
	home := getenv("HOME")
	if home == "" {
		return ""
	}
	return filepath.Join(home, ".local", "state", "ctxc", "hooks.log")
}
