// Package compact orchestrates one compaction: read the effective context, plan the zones
// (and, in the last tier, shrink the tail and cut large tool results: zones.go, emergency.go),
// summarize the middle, write the agent's records or a ctxc marker (append in place, or a new
// file with -o), reload and verify. cmd/ calls it; it imports neither cobra nor viper.
package compact

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/address"
	"github.com/ctxc/ctxc/internal/agent/cline/clinesess"
	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/ledger"
	"github.com/ctxc/ctxc/internal/llm"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/summarize"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Defaults (docs/design.md §9), each after a system that compacts in practice.
const (
	DefaultThreshold  = 100_000 // tokens of effective context (Crabtalk)
	DefaultWindowFrac = 0.75    // of --window when one is given (seahorse)
	DefaultTarget     = 2_000   // summary tokens (seahorse's condensed target)
	DefaultKeepTail   = 6       // messages
	DefaultIdle       = 60 * time.Second
)

// Tiers are the fractions of the window at which compaction gets more aggressive (design:
// Spacebot's 80/85/95%). Without --window the threshold stands for the normal fraction.
type Tiers struct {
	Normal, Aggressive, Emergency float64
}

// DefaultTiers are 80/85/95% of the window.
var DefaultTiers = Tiers{Normal: 0.80, Aggressive: 0.85, Emergency: 0.95}

// Tier names.
const (
	TierNormal     = "normal"
	TierAggressive = "aggressive"
	TierEmergency  = "emergency"
)

// MinGain is the least share of the context a compaction must remove; a smaller gain is refused
// (no thrashing).
const MinGain = 0.10

// Options for one compaction.
type Options struct {
	Tiers         Tiers // zero: DefaultTiers
	Threshold     int   // tokens; 0 = default
	Window        int   // model window in tokens for the threshold percentage; 0 = none
	Target        int
	Zones         ZoneOptions
	Output        string // "" = append in place; "-" = stdout; else a new file
	OutputFormat  string // "" or "native": the format's own records; "ctxc": a ctxc file (with Output)
	DryRun        bool
	Check         bool
	Force         bool
	RepairTail    bool // move a cut last line aside (safewrite.SetAsideTail) instead of refusing
	Idle          time.Duration
	Now           time.Time
	Format        transcript.Format
	Strict        bool
	Redact        bool       // replace secret-looking strings before sending text to the summarizer
	Client        llm.Client // nil: the extractive summarizer
	SummarizeOpts summarize.Options
	// Instructions are the user's instructions for the compaction: sent to the model, and the
	// terms they name that occur in the middle are kept by the fact ledger.
	Instructions string
	Stdout       io.Writer // for Output "-"
	Warn         func(transcript.Warning)

	sourceName string // with Output: the source the new file names (the file read is its copy)
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
	ReasonLittleGain     = "the compaction would remove less than 10% of the context"
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
	Tier             string            `json:"tier,omitempty"`
	TierReason       string            `json:"tier_reason,omitempty"`
	Cuts             []transcript.Cut  `json:"cuts,omitempty"`
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
	Tier         string            `json:"tier,omitempty"`
	Cuts         int               `json:"cuts,omitempty"`
	Session      string            `json:"session,omitempty"`    // -o of an agent file: the new session's id
	Resume       string            `json:"resume,omitempty"`     // how to resume it in its agent
	TailAside    string            `json:"tail_aside,omitempty"` // --repair-tail: the file the cut last line was moved into
	Plan         *Plan             `json:"plan,omitempty"`
	// Ledger is the audit of the summary against the fact ledger (package ledger).
	Ledger *ledger.Report `json:"ledger,omitempty"`
	// Facts is the ledger itself (for ctxc eval).
	Facts *ledger.Ledger `json:"-"`
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

// File compacts one transcript. It reads as the steps of a compaction; each format's records
// are written by that format's transcript.Writer, so a new format never changes this function.
func File(ctx context.Context, path string, o Options) (_ *Outcome, err error) {
	a := address.Parse(path)
	if a.Exported() {
		return exportedSession(ctx, a, o)
	}
	j, err := newJob(a, o)
	if err != nil {
		return j.out, err
	}
	defer j.release()
	defer j.restoreTail(&err)
	for _, step := range []func(context.Context) (done bool, err error){
		j.lockFile,        // serialize ctxc runs on the file; note its size and time
		j.loadContext,     // the effective context, large tool results read at their ends
		j.planZones,       // zones; --dry-run, --check and refusals end here
		j.summarizeMiddle, // the middle, while its source span is hashed
		j.renderRecords,   // head and tail read back whole; the format's records
		j.writeRecords,    // one append (or a new file), then reload and verify, undone on failure
	} {
		var done bool
		if done, err = step(ctx); done || err != nil {
			return j.out, err
		}
	}
	return j.out, nil
}

// restoreTail puts back a cut last line moved aside when the compaction failed after it:
// the file is then as it was.
func (j *job) restoreTail(err *error) {
	if j.aside == nil || *err == nil {
		return
	}
	if rerr := j.aside.Restore(); rerr != nil {
		*err = fmt.Errorf("%w (and %v)", *err, rerr)
	}
}

// exportedSession compacts a session read as its export (a store's STORE#SESSION-ID, Aider's
// history, an OpenHands conversation), which is never written in place: with Output, DryRun or
// Check, its export is compacted (address.WriteExported), and a new file names the session as
// its source (ctxc expand reads the span back from it).
func exportedSession(ctx context.Context, a address.Address, o Options) (*Outcome, error) {
	inPlace := o.Output == "" && !o.DryRun && !o.Check
	output := o.Output
	if output == "-" {
		output = ""
	}
	if abs, err := filepath.Abs(a.Name); err == nil {
		o.sourceName = abs
	}
	out := &Outcome{Type: "file"} // what a failure before the compaction reports
	err := a.WriteExported(inPlace, output, o.Force, func(tmp string) error {
		var err error
		out, err = File(ctx, tmp, o)
		return err
	})
	if out != nil {
		out.Path = a.Name
	}
	return out, err
}

// job is one compaction in progress: what each step leaves for the next.
type job struct {
	path    string
	o       Options
	out     *Outcome
	inPlace bool
	// archived: the source is an archived session (zstd), read decompressed and never written
	archived bool
	ropts    transcript.Options
	unlock   func()
	before   safewrite.FileState
	spec     *specHash
	res      *transcript.Result
	msgs     []transcript.Message
	format   transcript.Format
	plan     *Plan
	z        Zones
	sum      summarize.Result
	source   middleHash
	writer   transcript.Writer
	comp     *transcript.Compaction
	aside    *safewrite.AsideTail // a cut last line moved aside (--repair-tail)
}

func newJob(a address.Address, o Options) (*job, error) {
	path := a.Name
	j := &job{path: path, o: o, out: &Outcome{Type: "file", Path: path}}
	if info, err := os.Stat(path); err != nil {
		return j, err
	} else if !info.Mode().IsRegular() {
		return j, fmt.Errorf("%s: not a regular file", path)
	}
	j.inPlace = o.Output == "" && !o.DryRun && !o.Check
	j.archived = a.Kind == address.Archive
	if j.inPlace {
		if err := a.Writable("use -o FILE to write a compacted copy"); err != nil {
			return j, err
		}
	}
	j.ropts = transcript.Options{Format: o.Format, Strict: o.Strict, Warn: o.Warn}
	if o.OutputFormat != "" && o.OutputFormat != "ctxc" && o.OutputFormat != "native" {
		return j, fmt.Errorf("unknown output format %q (want native or ctxc)", o.OutputFormat)
	}
	if j.inPlace && o.OutputFormat == "ctxc" {
		return j, &UsageError{Msg: "--output-format ctxc writes a new file: give -o FILE (a ctxc marker in an agent's own file would break it)"}
	}
	if o.Output != "" && o.Output != "-" && clinesess.Named(o.Output) {
		// a Cline session's name: a new session, in a folder ctxc creates
		return j, clinesess.CheckNewSession(o.Output)
	}
	if o.Output != "" && o.Output != "-" {
		return j, safewrite.CheckOutput(o.Output, []string{path}, o.Force)
	}
	return j, nil
}

func (j *job) release() {
	if j.spec != nil {
		j.spec.stop()
	}
	if j.unlock != nil {
		j.unlock()
	}
}

func (j *job) lockFile(context.Context) (bool, error) {
	if !j.inPlace {
		return false, nil
	}
	var err error
	if j.unlock, err = safewrite.Lock(j.path); err != nil {
		return false, err
	}
	j.before, err = safewrite.Stat(j.path)
	return false, err
}

func (j *job) loadContext(context.Context) (bool, error) {
	// Large tool results are decoded only at their ends: the summarizers read no more of them
	// (the head and the tail, which are written out, are read back whole by render).
	lopts := j.ropts
	lopts.Windowed = true
	// The source hash starts while the file is read, from where the middle will likely start.
	// An archived source is not hashed ahead: the speculative hash reads the file in place.
	if !j.o.DryRun && !j.o.Check && !j.archived {
		j.spec = newSpecHash(j.path)
		lopts.Observe = NewHeadWatch(j.o.Zones, j.spec.guess).Observe
	}
	var err error
	if j.res, j.msgs, err = transcript.LoadFile(j.path, lopts); err != nil {
		return false, err
	}
	j.format = j.res.Stats.Format
	j.out.Format = j.format
	return false, nil
}

func (j *job) planZones(ctx context.Context) (bool, error) {
	o := &j.o
	j.plan, j.z = makePlan(j.path, j.format, j.msgs, o)
	p := j.plan
	j.out.TokensBefore = p.TokensBefore
	switch {
	case o.Check:
		j.out.Plan = p
		j.out.Status = StatusOK
		if p.TokensBefore > p.Threshold {
			j.out.Status = StatusOver
		}
		return true, nil
	case o.DryRun:
		j.out.Plan = p
		j.out.Status = StatusPlanned
		if !p.Compact {
			j.out.Reason = p.Reason
		}
		return true, fillWindow(ctx, p, j.msgs, j.z, o)
	case !p.Compact:
		j.out.Status, j.out.Reason = StatusSkipped, p.Reason
		return true, nil
	}
	// The live-file guard applies only when there is something to write: a file under the
	// threshold is just that, whether or not its agent is writing it (and a file ctxc compacted
	// a moment ago is not reported as live on the next run).
	if j.inPlace && !o.Force {
		if err := j.before.CheckIdle(j.path, o.Idle); err != nil { // wall clock, not --now
			return false, err
		}
	}
	if j.inPlace {
		return false, j.checkTail()
	}
	return false, nil
}

// checkTail refuses, before the summary is made, an append after a last line cut short (or, with
// --repair-tail, moves that line aside); a file modified within the idle period (--force) may
// have its agent in the middle of that line: retry later.
func (j *job) checkTail() error {
	err := safewrite.CheckTail(j.path)
	var pe *safewrite.PartialLineError
	switch {
	case !errors.As(err, &pe):
		return err
	case j.before.CheckIdle(j.path, j.o.Idle) != nil:
		return &safewrite.BusyError{Path: j.path, Reason: safewrite.ReasonWriting}
	case !j.o.RepairTail:
		return err
	}
	if j.aside, err = safewrite.SetAsideTail(j.path); err != nil {
		return err
	}
	j.before, err = safewrite.Stat(j.path)
	j.out.TailAside = j.aside.Aside
	return err
}

func (j *job) summarizeMiddle(ctx context.Context) (bool, error) {
	middle := j.msgs[j.z.HeadEnd:j.z.TailStart]
	req := summarize.Request{Items: transcript.Flatten(middle), TargetTokens: j.plan.Target, Instructions: j.o.Instructions}
	if j.o.Redact {
		j.out.Redacted = RedactItems(req.Items)
	}
	// The source hash of the summary is computed while the summary is being written.
	tailLine := 0
	if j.z.TailStart < len(j.msgs) {
		tailLine = j.msgs[j.z.TailStart].Line
	}
	hashDone := make(chan middleHash, 1)
	go func() { hashDone <- hashSpan(j.path, j.res, j.plan.Middle.FromLine, tailLine, j.spec) }()
	// The fact ledger depends on the middle only: built while the summary is written.
	ledgerDone := make(chan *ledger.Ledger, 1)
	go func() { ledgerDone <- ledger.Build(req.Items, ledger.Options{Instructions: j.o.Instructions}) }()
	var err error
	if j.o.Client == nil {
		j.sum = summarize.Extractive(req)
	} else if j.sum, err = summarize.Summarize(ctx, j.o.Client, req, j.summarizeOptions()); err != nil {
		<-hashDone
		<-ledgerDone
		return false, err
	}
	led := <-ledgerDone
	j.source = <-hashDone
	if j.source.err != nil {
		return false, j.source.err
	}
	if err := ctx.Err(); err != nil {
		return false, err // interrupted: write nothing
	}
	// The fact ledger: facts missing from the summary are carried verbatim (compact/ledger.go).
	j.out.Facts, j.out.Ledger = auditSummary(&j.sum, led, j.plan.Target)
	j.out.Provider, j.out.Model, j.out.Fallback, j.out.Chunks = j.sum.Provider, j.sum.Model, j.sum.Fallback, j.sum.Chunks
	j.out.Summarized = len(middle)
	return false, nil
}

// summarizeOptions are the summarizer's options for the plan's tier: the aggressive and
// emergency tiers start at the aggressive prompt.
func (j *job) summarizeOptions() summarize.Options {
	so := j.o.SummarizeOpts
	so.Aggressive = so.Aggressive || j.plan.Tier == TierAggressive || j.plan.Tier == TierEmergency
	return so
}

func (j *job) renderRecords(context.Context) (bool, error) {
	head, tail := j.msgs[:j.z.HeadEnd], j.msgs[j.z.TailStart:]
	if err := materialize(j.path, head, tail); err != nil {
		return false, err
	}
	// An emergency compaction cuts what still does not fit in the kept messages.
	ApplyCuts(j.msgs, j.plan.Cuts, "")
	j.out.Tier, j.out.Cuts = j.plan.Tier, len(j.plan.Cuts)
	summary := transcript.SummaryMessage(j.sum.Text, 0)
	after := tokens(head) + summary.Tokens() + tokens(tail)
	j.out.TokensAfter = after
	fallback := j.sum.Fallback
	if fallback == "" {
		fallback = "none"
	}
	if len(j.plan.Cuts) > 0 {
		fallback = "truncate"
	}
	j.comp = &transcript.Compaction{
		Summary: j.sum.Text, Head: head, Tail: tail, Middle: j.msgs[j.z.HeadEnd:j.z.TailStart], Now: j.o.Now,
		Meta: transcript.MarkerMeta{
			V: 1, Created: j.o.Now.UTC().Format(time.RFC3339), Provider: j.sum.Provider, Model: j.sum.Model,
			Prompt:       j.sum.Prompt,
			Source:       transcript.MarkerSource{FromLine: j.source.from, ToLine: j.source.to, SHA256: j.source.sum},
			TokensBefore: j.plan.TokensBefore, TokensAfter: after, Estimator: estimate.Name, Fallback: fallback,
			Chunks: j.sum.Chunks, Redacted: j.out.Redacted > 0, Tier: j.plan.Tier, Cuts: j.plan.Cuts,
			Ledger: markerLedger(j.out.Ledger),
		},
	}
	if j.o.Output != "" && j.o.Output != "-" {
		// The summarized lines are in the source, not in the new file: name it, relative to
		// the new file's directory when it can be (ctxc expand reads the span there).
		src, err := filepath.Abs(j.path)
		if err == nil {
			if dir, derr := filepath.Abs(filepath.Dir(j.o.Output)); derr == nil {
				if rel, rerr := filepath.Rel(dir, src); rerr == nil {
					src = rel
				}
			}
			j.comp.Meta.Source.Path = src
		}
		if j.o.sourceName != "" {
			j.comp.Meta.Source.Path = j.o.sourceName
		}
		j.comp.Output = j.o.Output
	}
	j.writer = transcript.WriterFor(j.format, j.o.OutputFormat)
	return false, nil
}

func (j *job) writeRecords(context.Context) (bool, error) {
	src, err := transcript.OpenSource(j.path, j.res)
	if err != nil {
		return false, err
	}
	defer src.Close()
	if !j.inPlace {
		return false, j.writeNew(src)
	}
	var w transcript.Written
	build := func(late [][]byte) ([]byte, error) {
		var err error
		w, err = j.writer.Append(src, j.comp, late)
		return w.Data, err
	}
	// An agent's own file is never appended to after lines it wrote meanwhile, even with
	// --force: its records would continue from the history, not from the compaction.
	force := j.o.Force && !j.format.Native()
	ar, err := safewrite.Append(j.path, j.before, build, force, transcript.IsMessageLine)
	if err != nil {
		if ar.Bytes > 0 {
			safewrite.Undo(j.path, ar)
		}
		var be *safewrite.BusyError
		if errors.As(err, &be) && be.Reason == safewrite.ReasonChanged && j.format.Native() {
			be.Agent = true
		}
		return false, err
	}
	want, before := w.Messages+ar.Late+ar.Between, j.plan.TokensBefore
	if want != len(j.comp.Head)+1+len(j.comp.Tail) {
		// Lines that arrived meanwhile may make the context larger than before: only check
		// the shape then, the agent's own growth is not ctxc's to verify.
		before = -1
	}
	if err := verify(j.path, ar.Offset+int64(ar.Bytes), j.ropts, want, before); err != nil {
		if uerr := safewrite.Undo(j.path, ar); uerr != nil {
			return false, fmt.Errorf("%w (and %v)", err, uerr)
		}
		return false, err
	}
	j.out.Status = StatusCompacted
	return false, nil
}

// writeNew writes the compacted context to a new file (-o): the format's own new session, or a
// ctxc file. The history stays in the source, which is not touched.
func (j *job) writeNew(src *transcript.Source) error {
	w, err := j.writer.New(src, j.comp)
	if err != nil {
		return err
	}
	j.out.Output, j.out.Session = j.o.Output, w.Session
	if w.Resume != "" {
		j.out.Resume = strings.ReplaceAll(w.Resume, "FILE", j.o.Output)
	}
	write := func(wr io.Writer) error {
		_, err := wr.Write(w.Data)
		return err
	}
	if j.o.Output == "-" {
		wr := j.o.Stdout
		if wr == nil {
			wr = os.Stdout
		}
		if err := write(wr); err != nil {
			return err
		}
	} else {
		undo, err := writeFolder(w)
		if err != nil {
			return err
		}
		if err := safewrite.WriteAtomic(j.o.Output, write); err != nil {
			undo()
			return err
		}
		if err := verify(j.o.Output, -1, j.ropts, w.Messages, j.plan.TokensBefore); err != nil {
			os.Remove(j.o.Output)
			undo()
			return err
		}
		safewrite.RecordOutput(j.o.Output) // ctxc's own output: written again without --force while unchanged
	}
	j.out.Status = StatusCompacted
	return nil
}

// writeFolder creates a new file's folder and the files beside it (Written.Folder): a folder
// that exists is refused, nothing written; undo removes what it created.
func writeFolder(w transcript.Written) (undo func(), err error) {
	if w.Folder == "" {
		return func() {}, nil
	}
	if err := os.Mkdir(w.Folder, 0o700); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return nil, &safewrite.OutputError{Path: w.Folder, Msg: "exists: the new session is written as a new folder"}
		}
		return nil, err
	}
	undo = func() { os.RemoveAll(w.Folder) }
	for _, f := range w.Files {
		if filepath.Dir(f.Path) != filepath.Clean(w.Folder) {
			undo()
			return nil, fmt.Errorf("%s: not in %s", f.Path, w.Folder)
		}
		if err := os.WriteFile(f.Path, f.Data, 0o600); err != nil {
			undo()
			return nil, err
		}
	}
	return undo, nil
}

// UsageError: options that cannot go together.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func tokens(ms []transcript.Message) int {
	n := 0
	for i := range ms {
		n += ms[i].Tokens()
	}
	return n
}

// materialize reads back what the windowed load left out of the messages that are written.
// An archived source is held decompressed meanwhile (its lines are read at offsets).
func materialize(path string, zones ...[]transcript.Message) error {
	sf, err := transcript.OpenFile(path)
	if err != nil {
		return err
	}
	defer sf.Close()
	f, _, err := sf.ReaderAt()
	if err != nil {
		return err
	}
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
	var be *safewrite.BusyError
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
