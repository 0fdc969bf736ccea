// Package compact orchestrates one compaction: read the effective context, plan the zones,
// summarize the middle, write the marker (append in place, or a new file with -o), reload and
// verify. cmd/ calls it; it imports neither cobra nor viper.
package compact

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"runtime/debug"
	"time"

	"github.com/ctxc/ctxc/estimate"
	"github.com/ctxc/ctxc/ledger"
	"github.com/ctxc/ctxc/summarize"
	"github.com/ctxc/ctxc/transcript"
)

// Defaults (design.md §9; each has a seed in docs/anchors.md).
const (
	DefaultThreshold  = 100_000 // tokens of effective context (Crabtalk)
	DefaultWindowFrac = 0.75    // of --window when one is given (seahorse)
	DefaultTarget     = 2_000   // summary tokens (seahorse's condensed target)
	DefaultKeepTail   = 6       // messages
	DefaultIdle       = 60 * time.Second
)

// Options for one compaction.
type Options struct {
	Threshold     int // tokens; 0 = default
	Window        int // model window in tokens for the threshold percentage; 0 = none
	Target        int
	Zones         transcript.ZoneOptions
	Output        string // "" = append in place; "-" = stdout; else a new file
	DryRun        bool
	Check         bool
	Force         bool
	Idle          time.Duration
	Now           time.Time
	Format        transcript.Format
	Strict        bool
	Redact        bool                // replace secret-looking strings before sending text to the summarizer
	Completer     summarize.Completer // nil: the extractive summarizer
	SummarizeOpts summarize.Options
	Stdout        io.Writer // for Output "-"
	Warn          func(transcript.Warning)
}

// EffectiveThreshold is the threshold in force.
func (o *Options) EffectiveThreshold() int {
	switch {
	case o.Threshold > 0:
		return o.Threshold
	case o.Window > 0:
		return int(float64(o.Window) * DefaultWindowFrac)
	}
	return DefaultThreshold
}

func (o *Options) target() int {
	if o.Target > 0 {
		return o.Target
	}
	return DefaultTarget
}

// Status of a file after a compaction run.
type Status string

// Statuses.
const (
	StatusCompacted Status = "compacted"
	StatusSkipped   Status = "skipped"
	StatusPlanned   Status = "planned" // --dry-run
	StatusOver      Status = "over"    // --check: over threshold
	StatusOK        Status = "ok"      // --check: within threshold
)

// Skip reasons.
const (
	ReasonUnderThreshold = "under threshold"
	ReasonEmptyMiddle    = "nothing to summarize between the protected head and tail"
	ReasonNoGain         = "head + tail + summary would still be over the threshold"
	ReasonEmpty          = "no messages"
)

// Zone describes one zone of the plan.
type Zone struct {
	Messages int `json:"messages"`
	Tokens   int `json:"tokens"`
	FromLine int `json:"from_line"`
	ToLine   int `json:"to_line"`
}

// Plan is what a compaction would do (--dry-run prints it).
type Plan struct {
	Path             string            `json:"path"`
	Format           transcript.Format `json:"format"`
	TokensBefore     int               `json:"tokens_before"`
	Threshold        int               `json:"threshold"`
	Head             Zone              `json:"head"`
	Middle           Zone              `json:"middle"`
	Tail             Zone              `json:"tail"`
	Target           int               `json:"target"`
	PredictedAfter   int               `json:"predicted_tokens_after"`
	SummarizerInput  int               `json:"summarizer_input_tokens"`
	SummarizerWindow int               `json:"summarizer_window,omitempty"`
	Fits             bool              `json:"fits_window"`
	Chunks           int               `json:"chunks"`
	Compact          bool              `json:"compact"`
	Reason           string            `json:"reason,omitempty"`
}

// Outcome is the result for one file (the --json object).
type Outcome struct {
	Type         string            `json:"type"`
	Path         string            `json:"path"`
	Status       Status            `json:"status"`
	Reason       string            `json:"reason,omitempty"`
	Format       transcript.Format `json:"format,omitempty"`
	Provider     string            `json:"provider,omitempty"`
	Model        string            `json:"model,omitempty"`
	Fallback     string            `json:"fallback,omitempty"`
	Chunks       int               `json:"chunks,omitempty"`
	Summarized   int               `json:"summarized_messages,omitempty"`
	TokensBefore int               `json:"tokens_before"`
	TokensAfter  int               `json:"tokens_after,omitempty"`
	Output       string            `json:"output,omitempty"`
	Redacted     int               `json:"redacted,omitempty"`
	Plan         *Plan             `json:"plan,omitempty"`
	// Ledger is the audit of the summary against the fact ledger (package ledger).
	Ledger *ledger.Report `json:"ledger,omitempty"`
	// Facts is the ledger itself (for ctxc eval).
	Facts *ledger.Ledger `json:"-"`
}

// UnsupportedError: in-place compaction of an agent's own file (design.md §6).
type UnsupportedError struct {
	Path   string
	Format transcript.Format
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("%s: %s transcripts are not compacted in place (the agent could not reload a foreign marker line); use -o FILE to write a compacted ctxc file", e.Path, e.Format)
}

// VerifyError: the file reloaded after writing did not come out as planned; the append was
// undone.
type VerifyError struct {
	Path string
	Msg  string
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("%s: verification after writing failed: %s", e.Path, e.Msg)
}

// File compacts one transcript.
func File(ctx context.Context, path string, o Options) (*Outcome, error) {
	out := &Outcome{Type: "file", Path: path}
	if info, err := os.Stat(path); err != nil {
		return out, err
	} else if !info.Mode().IsRegular() {
		return out, fmt.Errorf("%s: not a regular file", path)
	}
	inPlace := o.Output == "" && !o.DryRun && !o.Check
	ropts := transcript.Options{Format: o.Format, Strict: o.Strict, Warn: o.Warn}

	var unlock func()
	var before transcript.FileState
	if inPlace {
		var err error
		if unlock, err = transcript.Lock(path); err != nil {
			return out, err
		}
		defer unlock()
		if before, err = transcript.StatFile(path); err != nil {
			return out, err
		}
	}
	// Large tool results are decoded only at their ends: the summarizers read no more of them
	// (the head and the tail, which are written out, are decoded whole below).
	lopts := ropts
	lopts.Windowed = true
	// The source hash starts while the file is read, from where the middle will likely start.
	var spec *specHash
	if !o.DryRun && !o.Check {
		spec = newSpecHash(path)
		defer spec.stop()
		lopts.Observe = transcript.NewHeadWatch(o.Zones, spec.guess).Observe
	}
	res, msgs, err := transcript.LoadFile(path, lopts)
	if err != nil {
		return out, err
	}
	format := res.Stats.Format
	out.Format = format
	if inPlace && !format.IsGeneric() {
		return out, &UnsupportedError{Path: path, Format: format}
	}
	plan, z := makePlan(path, format, msgs, &o)
	out.TokensBefore = plan.TokensBefore
	if o.DryRun || o.Check {
		out.Plan = plan
		if o.Check {
			out.Status = StatusOK
			if plan.TokensBefore > plan.Threshold {
				out.Status = StatusOver
			}
			return out, nil
		}
		out.Status = StatusPlanned
		if !plan.Compact {
			out.Reason = plan.Reason
		}
		if err := fillWindow(ctx, plan, msgs, z, &o); err != nil {
			return out, err
		}
		return out, nil
	}
	if !plan.Compact {
		out.Status, out.Reason = StatusSkipped, plan.Reason
		return out, nil
	}
	// The live-file guard applies only when there is something to write: a file under the
	// threshold is just that, whether or not its agent is writing it (and a file ctxc compacted a
	// moment ago is not reported as live on the next run).
	if inPlace && !o.Force && o.Idle > 0 && time.Since(before.ModTime) < o.Idle { // wall clock, not --now
		return out, &transcript.BusyError{Path: path, Reason: "live"}
	}
	middle := msgs[z.HeadEnd:z.TailStart]
	req := summarize.Request{Items: Items(middle), TargetTokens: plan.Target}
	if o.Redact {
		out.Redacted = RedactItems(req.Items)
	}
	// The source hash of the marker is computed while the summary is being written.
	tailLine := 0
	if z.TailStart < len(msgs) {
		tailLine = msgs[z.TailStart].Line
	}
	hashDone := make(chan middleHash, 1)
	go func() { hashDone <- hashSpan(path, res, plan.Middle.FromLine, tailLine, spec) }()
	var sum summarize.Result
	if o.Completer == nil {
		sum = summarize.Extractive(req)
	} else {
		if sum, err = summarize.Summarize(ctx, o.Completer, req, o.SummarizeOpts); err != nil {
			<-hashDone
			return out, err
		}
	}
	mh := <-hashDone
	if mh.err != nil {
		return out, mh.err
	}
	if err := ctx.Err(); err != nil {
		return out, err // interrupted: write nothing
	}
	// The fact ledger: facts missing from the summary are carried verbatim (compact/ledger.go).
	out.Facts, out.Ledger = auditSummary(&sum, req.Items, plan.Target)
	out.Provider, out.Model, out.Fallback, out.Chunks = sum.Provider, sum.Model, sum.Fallback, sum.Chunks
	out.Summarized = len(middle)

	head, tail := msgs[:z.HeadEnd], msgs[z.TailStart:]
	if err := materialize(path, head, tail); err != nil {
		return out, err
	}
	summaryMsg := transcript.SummaryMessage(sum.Text, 0)
	after := tokens(head) + summaryMsg.Tokens() + tokens(tail)
	out.TokensAfter = after
	mk, err := buildMarker(sum, head, mh, plan, after, &o, format, out.Redacted > 0)
	if err != nil {
		return out, err
	}
	mk.Ctxc.Ledger = markerLedger(out.Ledger)
	tailLines, err := rawLines(tail)
	if err != nil {
		return out, err
	}
	// render writes marker + tail copies (+ copies of lines that arrived meanwhile, with --force).
	extra := 0
	render := func(grown [][]byte) ([]byte, error) {
		lines := tailLines
		extra = 0
		for _, l := range grown {
			if transcript.IsMessageLine(l) {
				lines = append(lines[:len(lines):len(lines)], l)
				extra++
			}
		}
		// Copies of lines earlier in the same file; in a new file (-o) they are its own.
		mk.Ctxc.TailLines = 0
		if inPlace {
			mk.Ctxc.TailLines = len(lines)
		}
		marker, err := mk.Encode()
		if err != nil {
			return nil, err
		}
		var data bytes.Buffer
		data.Write(marker)
		for _, l := range lines {
			data.Write(l)
			data.WriteByte('\n')
		}
		return data.Bytes(), nil
	}

	if !inPlace {
		out.Output = o.Output
		data, err := render(nil)
		if err != nil {
			return out, err
		}
		// The new file holds the compacted context only: the marker (with the head) and the
		// tail. The history stays in the source, which is not touched.
		write := func(w io.Writer) error {
			_, err := w.Write(data)
			return err
		}
		if o.Output == "-" {
			w := o.Stdout
			if w == nil {
				w = os.Stdout
			}
			if err := write(w); err != nil {
				return out, err
			}
		} else {
			if err := transcript.WriteFileAtomic(o.Output, write); err != nil {
				return out, err
			}
			if err := verify(o.Output, -1, ropts, len(mk.Head)+1+len(tailLines), plan.TokensBefore); err != nil {
				os.Remove(o.Output)
				return out, err
			}
		}
		out.Status = StatusCompacted
		return out, nil
	}
	ar, err := transcript.AppendCompaction(path, before, render, o.Force)
	if err != nil {
		if ar.Bytes > 0 {
			transcript.UndoAppend(path, ar)
		}
		return out, err
	}
	extra += ar.Late
	if extra == 0 {
		// Lines that arrived meanwhile may make the context larger than before: only check the
		// shape then, the agent's own growth is not ctxc's to verify.
		if err := verify(path, ar.Offset+int64(ar.Bytes), ropts, len(mk.Head)+1+len(tailLines), plan.TokensBefore); err != nil {
			if uerr := transcript.UndoAppend(path, ar); uerr != nil {
				return out, fmt.Errorf("%w (and %v)", err, uerr)
			}
			return out, err
		}
	} else if err := verify(path, ar.Offset+int64(ar.Bytes), ropts, len(mk.Head)+1+len(tailLines)+extra, -1); err != nil {
		if uerr := transcript.UndoAppend(path, ar); uerr != nil {
			return out, fmt.Errorf("%w (and %v)", err, uerr)
		}
		return out, err
	}
	out.Status = StatusCompacted
	return out, nil
}

func tokens(ms []transcript.Message) int {
	n := 0
	for i := range ms {
		n += ms[i].Tokens()
	}
	return n
}

func makePlan(path string, format transcript.Format, msgs []transcript.Message, o *Options) (*Plan, transcript.Zones) {
	p := &Plan{Path: path, Format: format, Threshold: o.EffectiveThreshold(), Target: o.target()}
	p.TokensBefore = tokens(msgs)
	z := transcript.PlanZones(msgs, o.Zones)
	p.Head = zone(msgs[:z.HeadEnd])
	p.Middle = zone(msgs[z.HeadEnd:z.TailStart])
	p.Tail = zone(msgs[z.TailStart:])
	p.PredictedAfter = p.Head.Tokens + p.Target + estimate.Tokens(transcript.SummaryPreamble) + p.Tail.Tokens
	switch {
	case len(msgs) == 0:
		p.Reason = ReasonEmpty
	case p.TokensBefore <= p.Threshold:
		p.Reason = ReasonUnderThreshold
	case z.MiddleLen() == 0:
		p.Reason = ReasonEmptyMiddle
	case p.PredictedAfter >= p.Threshold:
		p.Reason = ReasonNoGain
	default:
		p.Compact = true
	}
	return p, z
}

func zone(ms []transcript.Message) Zone {
	z := Zone{Messages: len(ms), Tokens: tokens(ms)}
	for _, m := range ms {
		if m.Line <= 0 {
			continue
		}
		if z.FromLine == 0 || m.Line < z.FromLine {
			z.FromLine = m.Line
		}
		if m.Line > z.ToLine {
			z.ToLine = m.Line
		}
	}
	return z
}

// fillWindow adds to a dry-run plan how the summarizer request would be sent.
func fillWindow(ctx context.Context, p *Plan, msgs []transcript.Message, z transcript.Zones, o *Options) error {
	req := summarize.Request{Items: Items(msgs[z.HeadEnd:z.TailStart]), TargetTokens: p.Target}
	window := o.SummarizeOpts.Window
	if window == 0 && o.Completer != nil {
		w, err := o.Completer.Window(ctx)
		if err != nil {
			return err
		}
		window = w
	}
	if window == 0 {
		p.SummarizerInput = summarize.Plan(req, 1<<30).InputTokens
		p.Fits, p.Chunks = true, 0
		return nil
	}
	info := summarize.Plan(req, window)
	p.SummarizerWindow = window
	p.SummarizerInput, p.Fits, p.Chunks = info.InputTokens, info.Fits, info.Chunks
	return nil
}

// Items turns the middle zone into summarizer input; a tool call and its results share a group
// so that chunking never separates them.
func Items(ms []transcript.Message) []summarize.Item {
	n := 0
	for i := range ms {
		n += len(ms[i].Blocks)
	}
	items := make([]summarize.Item, 0, n)
	callGroup := map[string]int{}
	for i := range ms {
		m := &ms[i]
		group := i + 1
		for _, b := range m.Blocks {
			if b.Kind == transcript.BlockToolResult {
				if g, ok := callGroup[b.ID]; ok {
					group = g
				}
			}
		}
		for _, b := range m.Blocks {
			it := summarize.Item{Role: string(m.Role), Line: m.Line, Group: group, Name: b.Name, Chars: b.Chars}
			switch b.Kind {
			case transcript.BlockText:
				it.Kind, it.Text = "text", b.Text
				if m.Summary {
					it.Kind = "summary"
				}
			case transcript.BlockThinking:
				it.Kind, it.Text = "thinking", b.Text
			case transcript.BlockToolCall:
				it.Kind, it.Text = "tool_call", b.Args
				if b.ID != "" {
					callGroup[b.ID] = group
				}
			case transcript.BlockToolResult:
				it.Kind, it.Text, it.Tail, it.IsError = "tool_result", b.Text, b.Tail, b.IsError
			case transcript.BlockImage:
				it.Kind, it.Text, it.Chars = "text", "[image]", 0
			default:
				continue
			}
			items = append(items, it)
		}
	}
	return items
}

// rawLines renders messages as lines for copying: the bytes as written when available.
func rawLines(ms []transcript.Message) ([][]byte, error) {
	var out [][]byte
	for _, m := range ms {
		if m.Raw != nil {
			out = append(out, m.Raw)
			continue
		}
		ls, err := transcript.OpenAILine(m)
		if err != nil {
			return nil, err
		}
		out = append(out, ls...)
	}
	return out, nil
}

// materialize reads back what the windowed load left out of the messages that are written.
func materialize(path string, zones ...[]transcript.Message) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	for _, ms := range zones {
		if err := transcript.Materialize(f, ms); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	return nil
}

type middleHash struct {
	from, to int
	sum      string
	err      error
}

// hashSpan is the SHA-256 of the file lines the middle spans: from its first line to the last
// context line before the tail (design.md §6 "source"), read back from the file.
func hashSpan(path string, res *transcript.Result, from, tailLine int, spec *specHash) middleHash {
	start, end, last, ok := res.LineSpan(from, tailLine)
	if !ok { // no line of the file (the middle is only what ctxc synthesized): an empty span
		return middleHash{from: from, to: from, sum: hex.EncodeToString(sha256.New().Sum(nil))}
	}
	if spec != nil {
		sum, ok, err := spec.finish(start, end)
		if err != nil {
			return middleHash{err: err}
		}
		if ok {
			return middleHash{from: from, to: last, sum: sum}
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return middleHash{err: err}
	}
	defer f.Close()
	h := sha256.New()
	if err := hashRange(h, f, start, end); err != nil {
		return middleHash{err: err}
	}
	return middleHash{from: from, to: last, sum: hex.EncodeToString(h.Sum(nil))}
}

// hashRange writes bytes [start, end) of f to h. Where it can, the file is mapped rather than
// read (openView): the middle of a session is most of the file, and hashing it in place in the
// page cache saves copying it all once more. A file cut short meanwhile faults; that becomes an
// error, not a crash.
func hashRange(h hash.Hash, f *os.File, start, end int64) error {
	view, release, err := openView(f, start, end)
	if err != nil {
		return err
	}
	defer release()
	return faultsAsErrors(f.Name(), func() error {
		for off := start; off < end; {
			n := min(int64(snapshotEvery), end-off)
			b, err := view(off, n)
			if err != nil {
				return err
			}
			h.Write(b)
			off += n
		}
		return nil
	})
}

// faultsAsErrors runs fn, which reads a mapped file: a file cut short while mapped faults,
// and the fault becomes an error instead of a crash.
func faultsAsErrors(name string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: the file changed while it was being read: %v", name, r)
		}
	}()
	return fn()
}

// buildMarker makes the marker; its TailLines is set when the tail is written (render).
func buildMarker(sum summarize.Result, head []transcript.Message, src middleHash, p *Plan, after int, o *Options, format transcript.Format, redacted bool) (*transcript.Marker, error) {
	headLines, err := rawLines(head)
	if err != nil {
		return nil, err
	}
	mk := transcript.Marker{Compact: sum.Text, Head: make([]json.RawMessage, len(headLines))}
	for i, l := range headLines {
		mk.Head[i] = json.RawMessage(l)
	}
	fallback := sum.Fallback
	if fallback == "" {
		fallback = "none"
	}
	mk.Ctxc = &transcript.MarkerMeta{
		V: 1, Created: o.Now.UTC().Format(time.RFC3339), Provider: sum.Provider, Model: sum.Model,
		Prompt:       sum.Prompt,
		Source:       transcript.MarkerSource{FromLine: src.from, ToLine: src.to, SHA256: src.sum},
		TokensBefore: p.TokensBefore, TokensAfter: after, Estimator: estimate.Name, Fallback: fallback,
		Chunks: sum.Chunks, Redacted: redacted,
	}
	if !format.IsGeneric() {
		mk.Ctxc.SourceFormat = string(format)
	}
	return &mk, nil
}

// verify reloads the written file and checks that the context came out as planned: the head
// lines of the marker, the summary, the tail copies, and fewer tokens than before.
func verify(path string, upTo int64, ropts transcript.Options, want, before int) error {
	ropts.Warn = nil
	ropts.Unnumbered = true
	_, msgs, err := transcript.LoadFileUpTo(path, upTo, ropts)
	if err != nil {
		return &VerifyError{Path: path, Msg: err.Error()}
	}
	if len(msgs) != want {
		return &VerifyError{Path: path, Msg: fmt.Sprintf("reloaded %d messages, want %d (head + summary + tail)", len(msgs), want)}
	}
	if after := tokens(msgs); before >= 0 && after >= before {
		return &VerifyError{Path: path, Msg: fmt.Sprintf("tokens after (%d) not below tokens before (%d)", after, before)}
	}
	return nil
}

// IsBusy reports whether err means "retry later" (locked or live file).
func IsBusy(err error) bool {
	var be *transcript.BusyError
	return errors.As(err, &be)
}

// readView reads what openView would map, through a buffer.
func readView(f *os.File) (func(off, n int64) ([]byte, error), func(), error) {
	var buf []byte
	return func(off, n int64) ([]byte, error) {
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		m, err := f.ReadAt(buf[:n], off)
		if int64(m) < n {
			if err == nil {
				err = io.ErrUnexpectedEOF
			}
			return nil, fmt.Errorf("%s: the file changed while it was being read: %w", f.Name(), err)
		}
		return buf[:n], nil
	}, func() {}, nil
}
