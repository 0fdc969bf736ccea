package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/iostreams"
	"github.com/ctxc/ctxc/internal/llm"
	"github.com/ctxc/ctxc/internal/quote"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/summarize"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/spf13/cobra"
)

// CompactOptions are the inputs of `ctxc compact`.
type CompactOptions struct {
	IO     *iostreams.IOStreams
	Global *cmdutil.GlobalOptions
	Getenv func(string) string
	Now    func() time.Time
	// WaitNotice is how long a summarizer may take before ctxc says it has not answered yet
	// (0: waitNotice).
	WaitNotice time.Duration

	Paths          []string
	OutputFormat   string
	Tiers          string
	From           string
	Threshold      int
	Window         int
	SummaryWindow  int
	Target         int
	KeepHead       int
	KeepTail       int
	KeepTailTokens int
	Provider       string
	Model          string
	Endpoint       string
	APIKeyEnv      string
	Output         string
	DryRun         bool
	Check          bool
	Jobs           int
	Parallel       int
	Force          bool
	RepairTail     bool
	Idle           time.Duration
	Timeout        time.Duration
	NowFlag        string
	NoRedact       bool
	Redact         bool
	Instructions   string // text, or @FILE
	NoInstructions bool
}

// NewCmdCompact builds `ctxc compact`.
func NewCmdCompact(f *cmdutil.Factory, runF func(*CompactOptions) error) *cobra.Command {
	opts := &CompactOptions{IO: f.IO, Global: &f.Global, Getenv: f.Getenv, Now: f.Now, WaitNotice: f.WaitNotice}
	c := &cobra.Command{
		Use:   "compact [PATH...]",
		Short: "Summarize the middle of long transcripts, keeping their head and tail",
		Long: `Compact each transcript whose effective context is over the threshold: the protected head (system
messages and the first user turn) and tail (the last messages, never splitting a tool call from
its result) stay verbatim, the middle is summarized, and a marker is appended in one write:

  {"compact":"<summary>","head":[...],"ctxc":{...provenance...}}
  <verbatim copies of the tail lines>

so that loading from the last marker gives head + summary + tail. Bytes already in the file never
change. Claude Code, Codex and pi files get that agent's own compaction records instead (a
compact_boundary with preservedMessages and a summary; a compacted replacement_history; a
compaction entry), so that the agent itself resumes head + summary + tail. -o FILE writes a new
file and leaves the source untouched: a new session of the agent (its id and how to resume it on
stderr), or with --output-format ctxc a ctxc file.

The tier (--tiers) sets how hard compaction works: normal, aggressive (the aggressive prompt, a
smaller target), emergency (the tail shrinks and large tool results in the kept messages are cut
to their ends, with a note naming the line of the whole text), so that a compaction always fits.

Summarizers (--provider): ollama (native /api/chat), openai (any OpenAI-compatible /v1 endpoint),
extractive (built in, deterministic, no LLM), auto (ollama if reachable, else openai if configured,
else extractive). A summary that is empty, looks like an error, or is longer than its input is
rejected: the aggressive prompt is tried, then the extractive summarizer; the marker records which
ran.

Instructions (--instructions TEXT or @FILE; by default the "Compact Instructions" section of the
project's CLAUDE.md or AGENTS.md) go to the model, and the files, commands in backquotes and
quoted words they name that the middle holds are kept verbatim by code, whatever the summarizer.

PATH is a file, a directory (every *.jsonl below it), or a glob; --from - reads paths from
standard input.`,
		Example: `  ctxc compact --provider extractive session.jsonl
  ctxc compact --dry-run --json session.jsonl
  ctxc compact --instructions @keep.md session.jsonl
  ctxc compact --provider ollama --model llama3.2 --window 8192 ~/archive/
  find ~/archive -name '*.jsonl' -mtime +1 | ctxc compact --from - -j 2
  ctxc compact --check --threshold 50000 testdata/fixtures/
  ctxc compact -o compacted.jsonl ~/.claude/projects/-home-me-proj/SESSION.jsonl`,
		RunE: func(c *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return runCompact(c.Context(), opts)
		},
	}
	fl := c.Flags()
	addSummarizeFlags(c, opts)
	cmdutil.AddInstructionsFlags(c, &opts.Instructions, &opts.NoInstructions)
	agentFiles := strings.Join(agent.NativeOutputNames(), ", ") + " files"
	fl.StringVarP(&opts.Output, "output", "o", "", "write the compacted context to a new file instead of appending (- for stdout): for "+agentFiles+" a new session of that agent (its id on stderr), else a ctxc file")
	fl.StringVar(&opts.OutputFormat, "output-format", "native", "with -o: native (the agent's own session format for "+agentFiles+") or ctxc (a ctxc marker file, readable by any client)")
	fl.BoolVar(&opts.DryRun, "dry-run", false, "print the plan (zones, tokens, whether the summarizer request fits) and write nothing")
	fl.BoolVar(&opts.Check, "check", false, "write nothing; exit 1 if any file's effective context is over the threshold")
	fl.IntVarP(&opts.Jobs, "jobs", "j", runtime.NumCPU(), "files compacted at once")
	fl.BoolVar(&opts.Force, "force", false, "compact files modified in the last --idle period, append to a ctxc or message-list file even if it grew meanwhile (never to an agent's session), and let -o replace an existing file ctxc did not write")
	fl.BoolVar(&opts.RepairTail, "repair-tail", false, "when a file's last line was cut short (no line end, not valid JSON), move it into FILE.ctxc-tail and compact instead of refusing")
	fl.DurationVar(&opts.Idle, "idle", compact.DefaultIdle, "a file modified more recently is live and skipped")
	cmdutil.IntRange(fl, "jobs", 1, cmdutil.MaxJobs, "")
	cmdutil.DurationRange(fl, "idle", 0, 365*24*time.Hour, "")
	fl.StringVar(&opts.NowFlag, "now", "", "timestamp written in markers (RFC 3339; also SOURCE_DATE_EPOCH), for reproducible output")
	return c
}

// addSummarizeFlags adds the flags that say how a file is planned and summarized, shared by
// compact and eval (which compacts into a temporary copy).
func addSummarizeFlags(c *cobra.Command, opts *CompactOptions) {
	fl := c.Flags()
	fl.IntVar(&opts.Threshold, "threshold", 0, "compact only when the effective context is over N tokens (default 100000, or 75% of --window)")
	fl.IntVar(&opts.Window, "window", 0, "context window of the agent's model in tokens (sets the default threshold)")
	fl.StringVar(&opts.Tiers, "tiers", "80,85,95", "percent of --window (or of the threshold's window, the threshold being the first) where the normal, aggressive and emergency tiers start; 0 turns a level off (the emergency level still runs when nothing else fits)")
	fl.IntVar(&opts.SummaryWindow, "summary-window", 0, "context window of the summarizer model (default: ollama asks /api/show; openai 8192)")
	fl.IntVar(&opts.Target, "target", compact.DefaultTarget, "summary size in tokens")
	fl.IntVar(&opts.KeepHead, "keep-head", 1, "user turns kept verbatim at the start (after system messages)")
	fl.IntVar(&opts.KeepTail, "keep-tail", compact.DefaultKeepTail, "messages kept verbatim at the end")
	fl.IntVar(&opts.KeepTailTokens, "keep-tail-tokens", 0, "keep at least N tokens at the end instead of --keep-tail messages")
	addProviderFlags(c, opts)
	fl.IntVar(&opts.Parallel, "parallel", 1, "summarizer requests at once for the chunks of one file")
	fl.StringVar(&opts.From, "from", "", "read paths from this file (- for standard input), one per line")
	cmdutil.IntRange(fl, "threshold", 1, cmdutil.MaxTokens, "100000, or 75% of --window")
	cmdutil.IntRange(fl, "window", cmdutil.MinWindow, cmdutil.MaxTokens, "unknown")
	cmdutil.IntRange(fl, "summary-window", cmdutil.MinWindow, cmdutil.MaxTokens, "ask the model or 8192")
	cmdutil.IntRange(fl, "target", 1, cmdutil.MaxTokens, "")
	cmdutil.IntRange(fl, "keep-head", 0, cmdutil.MaxCount, "")
	cmdutil.IntRange(fl, "keep-tail", 0, cmdutil.MaxCount, "")
	cmdutil.IntRange(fl, "keep-tail-tokens", 0, cmdutil.MaxTokens, "")
	cmdutil.IntRange(fl, "parallel", 1, cmdutil.MaxParallel, "")
}

// addProviderFlags adds the flags that choose and reach the summarizer.
func addProviderFlags(c *cobra.Command, opts *CompactOptions) {
	fl := c.Flags()
	fl.StringVar(&opts.Provider, "provider", "auto", "summarizer: auto, ollama, openai or extractive")
	fl.StringVar(&opts.Model, "model", "", "model name for ollama or openai")
	fl.StringVar(&opts.Endpoint, "endpoint", "", "summarizer URL (ollama default $OLLAMA_HOST or http://127.0.0.1:11434; openai default $OPENAI_BASE_URL, including /v1)")
	fl.StringVar(&opts.APIKeyEnv, "api-key-env", "OPENAI_API_KEY", "environment variable holding the API key for openai (keys are never taken from flags)")
	fl.DurationVar(&opts.Timeout, "timeout", 0, "timeout of one summarizer request (default: 2m plus 1m per 16,000 characters sent)")
	cmdutil.DurationRange(fl, "timeout", 100*time.Millisecond, 24*time.Hour, "in proportion to the request")
	fl.BoolVar(&opts.NoRedact, "no-redact", false, "send text to a non-loopback endpoint without replacing secret-looking strings")
	fl.BoolVar(&opts.Redact, "redact", false, "replace secret-looking strings even for a loopback endpoint")
	c.MarkFlagsMutuallyExclusive("redact", "no-redact")
}

func (o *CompactOptions) now() (time.Time, error) {
	if o.NowFlag != "" {
		t, err := time.Parse(time.RFC3339, o.NowFlag)
		if err != nil {
			return time.Time{}, &cmdutil.UsageError{Err: fmt.Errorf("--now: %w", err)}
		}
		return t, nil
	}
	if s := o.Getenv("SOURCE_DATE_EPOCH"); s != "" {
		sec, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return time.Time{}, &cmdutil.UsageError{Err: fmt.Errorf("SOURCE_DATE_EPOCH=%q: not a number of seconds", s)}
		}
		return time.Unix(sec, 0).UTC(), nil
	}
	return o.Now(), nil
}

// batchSummary is the final --json object and the summary line.
type batchSummary struct {
	Type      string         `json:"type"`
	Files     int            `json:"files"`
	Compacted int            `json:"compacted"`
	Skipped   int            `json:"skipped"`
	Reasons   map[string]int `json:"skipped_reasons,omitempty"`
	Failed    int            `json:"failed"`
	Untouched int            `json:"untouched,omitempty"`
	Over      int            `json:"over_threshold,omitempty"`
}

func runCompact(ctx context.Context, opts *CompactOptions) error {
	// In place, a directory stands for its plain sessions: its archives are read-only.
	inPlace := opts.Output == "" && !opts.DryRun && !opts.Check
	files, err := cmdutil.SessionArgs(opts.IO, opts.Paths, opts.From, "compact",
		"compact does not read a transcript from standard input (it appends to files); use --from - for a list of paths", !inPlace)
	if err != nil {
		return err
	}
	if opts.Output != "" && len(files) != 1 {
		return &cmdutil.UsageError{Err: fmt.Errorf("-o takes exactly one input file (got %d)", len(files))}
	}
	co, err := compactOptions(opts)
	if err != nil {
		return err
	}
	if co.Now, err = opts.now(); err != nil {
		return err
	}
	co.Output, co.OutputFormat, co.DryRun, co.Check, co.Force, co.Idle = opts.Output, opts.OutputFormat, opts.DryRun, opts.Check, opts.Force, opts.Idle
	co.RepairTail = opts.RepairTail
	co.Stdout = opts.IO.Out
	var instr *cmdutil.InstructionSource
	if !opts.Check {
		if instr, err = cmdutil.NewInstructionSource(opts.Instructions, opts.NoInstructions, co.Format); err != nil {
			return err
		}
		if err := useProvider(ctx, opts, &co); err != nil {
			return err
		}
	}
	return runBatch(ctx, opts, files, co, instr)
}

// compactOptions are the compaction settings of the flags: format, zones, tiers, target.
func compactOptions(opts *CompactOptions) (compact.Options, error) {
	format, err := transcript.ParseFormat(opts.Global.Format)
	if err != nil {
		return compact.Options{}, &cmdutil.UsageError{Err: err}
	}
	tiers, err := parseTiers(opts.Tiers)
	if err != nil {
		return compact.Options{}, &cmdutil.UsageError{Err: err}
	}
	co := compact.Options{
		Threshold: opts.Threshold, Window: opts.Window, Target: opts.Target, Tiers: tiers,
		Zones:  compact.ZoneOptions{KeepHead: opts.KeepHead, KeepTail: opts.KeepTail, KeepTailTokens: opts.KeepTailTokens},
		Format: format, Strict: opts.Global.Strict,
		SummarizeOpts: summarize.Options{MaxParallel: opts.Parallel, Window: opts.SummaryWindow},
	}
	if !opts.Global.Quiet {
		co.Warn = func(w transcript.Warning) { fmt.Fprintln(opts.IO.ErrOut, "warning: "+w.String()) }
	}
	return co, nil
}

// useProvider puts the summarizer the flags choose into co, and says which one runs.
func useProvider(ctx context.Context, opts *CompactOptions, co *compact.Options) error {
	prov, err := newProvider(ctx, opts)
	if err != nil {
		return err
	}
	co.Client, co.Redact = prov.Client, prov.Redact
	if prov.Note != "" && !opts.Global.Quiet {
		fmt.Fprintln(opts.IO.ErrOut, prov.Note)
	}
	if opts.Global.Verbose > 1 {
		co.SummarizeOpts.Logf = func(format string, args ...any) { fmt.Fprintf(opts.IO.ErrOut, format+"\n", args...) }
	}
	return nil
}

// runBatch compacts files with opts.Jobs workers, each with the instructions instr gives it
// (nil: none), and reports per file and in total.
func runBatch(ctx context.Context, opts *CompactOptions, files []string, co compact.Options, instr *cmdutil.InstructionSource) error {
	b := newBatch(opts, len(files))
	b.instr = instr
	if instr != nil && !opts.Global.Quiet {
		instr.Say = func(s string) {
			b.mu.Lock()
			defer b.mu.Unlock()
			b.bar.Println(opts.IO.ErrOut, s)
		}
	}
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	b.stop = cancel
	done := b.compactAll(stop, files, co, max(1, min(opts.Jobs, len(files))))
	b.bar.Finish()
	for _, p := range files {
		if !done[p] {
			b.sum.Untouched++
		}
	}
	if len(b.sum.Reasons) == 0 {
		b.sum.Reasons = nil
	}
	printSummary(opts, b.enc, b.sum, len(files))
	return b.exit(ctx, len(files))
}

// batch is the state of a compaction run over many files: the totals, the output, and what the
// exit code depends on.
type batch struct {
	opts  *CompactOptions
	files int
	enc   *json.Encoder
	bar   *iostreams.Progress
	stop  context.CancelFunc         // stops the run (a dead endpoint)
	instr *cmdutil.InstructionSource // the instructions of each file's compaction (nil: none)

	mu          sync.Mutex
	sum         batchSummary
	busy        int // files skipped as locked or live
	hardFail    int // files failed for a reason of their own
	unavailable int // files failed because the endpoint is down
	firstErr    error
}

func newBatch(opts *CompactOptions, files int) *batch {
	enc := json.NewEncoder(opts.IO.Out)
	enc.SetEscapeHTML(false)
	return &batch{opts: opts, files: files, enc: enc, bar: iostreams.NewProgress(opts.IO, opts.Global.Bars(), files),
		sum: batchSummary{Type: "summary", Files: files, Reasons: map[string]int{}}}
}

// compactAll compacts the files with jobs workers until they are done or stop is cancelled,
// reports each in the order of the files (cmdutil.InOrder: the output of a batch is the same whatever
// -j), and returns which files were attempted to the end.
func (b *batch) compactAll(stop context.Context, files []string, co compact.Options, jobs int) map[string]bool {
	type result struct {
		out *compact.Outcome
		err error
	}
	done := map[string]bool{}
	i := 0
	for r := range cmdutil.InOrder(stop, len(files), jobs, func(i int) result {
		out, err := b.compactOne(stop, files[i], co)
		return result{out, err}
	}) {
		p := files[i]
		i++
		b.report(p, r.out, r.err)
		done[p] = r.err == nil || !errors.Is(r.err, context.Canceled)
	}
	return done
}

// compactOne compacts one file with its instructions.
func (b *batch) compactOne(ctx context.Context, path string, co compact.Options) (*compact.Outcome, error) {
	if b.instr != nil {
		text, err := b.instr.For(path)
		if err != nil {
			return nil, err
		}
		co.Instructions = text
	}
	return compact.File(ctx, path, co)
}

// report counts and prints the outcome of one file.
func (b *batch) report(path string, out *compact.Outcome, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.bar.Add()
	if out == nil {
		out = &compact.Outcome{Type: "file", Path: path}
	}
	if err != nil {
		b.reportError(path, out, err)
		return
	}
	switch out.Status {
	case compact.StatusCompacted:
		b.sum.Compacted++
	case compact.StatusSkipped:
		b.sum.Skipped++
		b.sum.Reasons[out.Reason]++
	case compact.StatusOver:
		b.sum.Over++
	}
	printOutcome(b.opts, b.enc, b.bar, out, "")
}

// reportError: a busy file or one its format cannot be compacted in place is a skip; an
// interrupted one is left untouched; a dead endpoint stops the run; anything else is a failure.
func (b *batch) reportError(path string, out *compact.Outcome, err error) {
	code := cmdutil.ExitCode(err)
	switch {
	case compact.IsBusy(err):
		var be *safewrite.BusyError
		errors.As(err, &be)
		reason := safewrite.ReasonLive
		if be.Reason == safewrite.ReasonLocked {
			reason = safewrite.ReasonLocked
		}
		b.skip(out, reason, err)
		b.busy++
		return
	case b.files > 1 && code == cmdutil.ExitUsage: // unsupported in place: a skip in a batch
		b.skip(out, "unsupported", err)
		return
	case errors.Is(err, context.Canceled):
		return // counted as untouched
	}
	b.sum.Failed++
	b.firstErr = firstOf(b.firstErr, err)
	if code == cmdutil.ExitUnavailable {
		b.unavailable++
		b.stop() // a dead endpoint: stop before grinding through the rest
	} else {
		b.hardFail++
	}
	if b.opts.Global.JSON {
		b.enc.Encode(cmdutil.FileError{Type: "error", Path: path, Code: code, Message: err.Error()})
	} else if b.files > 1 {
		b.bar.Println(b.opts.IO.ErrOut, "failed "+quote.Name(err.Error()))
	}
}

func (b *batch) skip(out *compact.Outcome, reason string, err error) {
	b.sum.Skipped++
	b.sum.Reasons[reason]++
	out.Status, out.Reason = compact.StatusSkipped, reason
	printOutcome(b.opts, b.enc, b.bar, out, err.Error())
}

// exit is the run's exit status: an interrupt, a dead endpoint, then the files' own failures,
// then busy files (retry later), then --check.
func (b *batch) exit(ctx context.Context, files int) error {
	sum := b.sum
	switch {
	case ctx.Err() != nil:
		return &cmdutil.ExitError{Code: cmdutil.ExitInterrupted, Err: fmt.Errorf("interrupted: %d compacted, %d file(s) not attempted or abandoned unwritten", sum.Compacted, sum.Untouched)}
	case b.unavailable > 0:
		msg := fmt.Sprintf("summarizer endpoint unavailable: %v", b.firstErr)
		if sum.Untouched > 0 {
			msg += fmt.Sprintf("; stopped early, %d file(s) not attempted", sum.Untouched)
		}
		return &cmdutil.ExitError{Code: cmdutil.ExitUnavailable, Err: errors.New(msg)}
	case files == 1 && b.firstErr != nil:
		return b.firstErr
	case files == 1 && b.busy > 0:
		return &cmdutil.ExitError{Code: cmdutil.ExitTempFail, Silent: true}
	case b.hardFail > 0 && sum.Compacted+sum.Skipped+sum.Over == 0:
		return cmdutil.BatchExit(ctx, b.hardFail, b.hardFail)
	case b.hardFail > 0:
		return cmdutil.BatchExit(ctx, b.hardFail, files)
	case b.busy > 0:
		return &cmdutil.ExitError{Code: cmdutil.ExitTempFail, Err: fmt.Errorf("%d file(s) locked or live: retry later", b.busy)}
	case b.opts.Check && sum.Over > 0:
		return &cmdutil.ExitError{Code: cmdutil.ExitFailure, Silent: true}
	}
	return nil
}

func printOutcome(opts *CompactOptions, enc *json.Encoder, bar *iostreams.Progress, out *compact.Outcome, errText string) {
	if opts.Global.JSON {
		if errText != "" && out.Reason != "" {
			out.Reason = errText
		}
		enc.Encode(out)
		return
	}
	w := opts.IO.ErrOut
	switch {
	case opts.Check:
		if out.Status == compact.StatusOver {
			fmt.Fprintf(opts.IO.Out, "over\t%s\t%s tokens > threshold %s\n", quote.Name(out.Path), cmdutil.Thousands(int64(out.Plan.TokensBefore)), cmdutil.Thousands(int64(out.Plan.Threshold)))
		} else if opts.Global.Verbose > 0 {
			bar.Println(w, fmt.Sprintf("ok %s: %s tokens", quote.Name(out.Path), cmdutil.Thousands(int64(out.TokensBefore))))
		}
	case opts.DryRun:
		printPlan(opts.IO.Out, out)
	case out.Status == compact.StatusCompacted:
		if opts.Global.Quiet {
			return
		}
		model := out.Provider
		if out.Model != "" {
			model += " " + out.Model
		}
		if out.Fallback != "" && out.Fallback != "none" {
			model += ", fallback " + out.Fallback
		}
		dest := quote.Name(out.Path)
		if out.Output != "" {
			dest += " → " + quote.Name(out.Output)
		}
		bar.Println(w, fmt.Sprintf("compacted %s: %d messages, ~%s → ~%s tokens (%s)", dest, out.Summarized,
			cmdutil.Thousands(int64(out.TokensBefore)), cmdutil.Thousands(int64(out.TokensAfter)), model))
		if out.Session != "" {
			bar.Println(w, fmt.Sprintf("new %s session %s: %s", out.Format, out.Session, out.Resume))
		}
		if a := out.Format.Agent(); out.Output != "" && out.Output != "-" && a.CtxcOutput && out.Session == "" {
			bar.Println(w, fmt.Sprintf("%s is a ctxc-format file: %s cannot import it", quote.Name(out.Output), a.Name))
		}
		if out.TailAside != "" {
			bar.Println(w, fmt.Sprintf("its cut last line was moved into %s", out.TailAside))
		}
	case out.Status == compact.StatusSkipped:
		if opts.Global.Quiet {
			return
		}
		msg := errText
		if msg == "" {
			msg = fmt.Sprintf("%s: %s (%s tokens)", quote.Name(out.Path), out.Reason, cmdutil.Thousands(int64(out.TokensBefore)))
		}
		bar.Println(w, "skipped "+msg)
	}
}

func printPlan(w io.Writer, out *compact.Outcome) {
	p := out.Plan
	if p == nil {
		return
	}
	fmt.Fprintf(w, "%s (%s): %s tokens, threshold %s\n", quote.Name(p.Path), p.Format, cmdutil.Thousands(int64(p.TokensBefore)), cmdutil.Thousands(int64(p.Threshold)))
	for _, z := range []struct {
		name string
		z    compact.Zone
	}{{"head", p.Head}, {"middle", p.Middle}, {"tail", p.Tail}} {
		lines := "-"
		if z.z.FromLine > 0 {
			lines = fmt.Sprintf("lines %d-%d", z.z.FromLine, z.z.ToLine)
		}
		fmt.Fprintf(w, "  %-6s  %4d messages  %10s tokens  %s\n", z.name, z.z.Messages, cmdutil.Thousands(int64(z.z.Tokens)), lines)
	}
	if p.Tier != "" {
		fmt.Fprintf(w, "  tier    %s: %s\n", p.Tier, p.TierReason)
	}
	if len(p.Cuts) > 0 {
		fmt.Fprintf(w, "  cuts    %d block(s) in the kept messages: %s\n", len(p.Cuts), compact.CutSummary(p.Cuts))
	}
	fmt.Fprintf(w, "  result  head + summary (~%s) + tail ≈ %s tokens\n", cmdutil.Thousands(int64(p.Target)), cmdutil.Thousands(int64(p.PredictedAfter)))
	if p.SummarizerWindow > 0 {
		fit := "fits"
		if !p.Fits {
			fit = "does not fit"
		}
		fmt.Fprintf(w, "  summarizer input ~%s tokens %s its %s-token window; %d chunk(s)\n", cmdutil.Thousands(int64(p.SummarizerInput)), fit, cmdutil.Thousands(int64(p.SummarizerWindow)), max(p.Chunks, 1))
	} else {
		fmt.Fprintf(w, "  summarizer input ~%s tokens\n", cmdutil.Thousands(int64(p.SummarizerInput)))
	}
	if p.Compact {
		fmt.Fprintln(w, "  would compact")
	} else {
		fmt.Fprintf(w, "  would not compact: %s\n", p.Reason)
	}
}

func printSummary(opts *CompactOptions, enc *json.Encoder, s batchSummary, n int) {
	if opts.Global.JSON {
		enc.Encode(s)
		return
	}
	if opts.DryRun || (opts.Global.Quiet && s.Failed == 0) || (n == 1 && !opts.Check) {
		return
	}
	if opts.Check {
		fmt.Fprintf(opts.IO.ErrOut, "%d file(s) checked: %d over threshold\n", s.Files, s.Over)
		return
	}
	var reasons []string
	for _, r := range []string{compact.ReasonUnderThreshold, compact.ReasonEmptyMiddle, compact.ReasonNoGain, compact.ReasonEmpty, safewrite.ReasonLive, safewrite.ReasonLocked, "unsupported"} {
		if c := s.Reasons[r]; c > 0 {
			reasons = append(reasons, fmt.Sprintf("%d %s", c, r))
		}
	}
	line := fmt.Sprintf("%d file(s): %d compacted, %d skipped", s.Files, s.Compacted, s.Skipped)
	if len(reasons) > 0 {
		line += " (" + strings.Join(reasons, ", ") + ")"
	}
	line += fmt.Sprintf(", %d failed", s.Failed)
	if s.Untouched > 0 {
		line += fmt.Sprintf(", %d untouched", s.Untouched)
	}
	fmt.Fprintln(opts.IO.ErrOut, line)
}

// newProvider resolves the summarizer the flags choose, its requests watched (waitWatcher).
func newProvider(ctx context.Context, opts *CompactOptions) (llm.Chosen, error) {
	ch, err := llm.Choose(ctx, llm.Choice{
		Provider: opts.Provider, Model: opts.Model, Endpoint: opts.Endpoint, APIKeyEnv: opts.APIKeyEnv,
		Getenv: opts.Getenv, Window: opts.SummaryWindow, Timeout: opts.Timeout,
		Redact: opts.Redact, NoRedact: opts.NoRedact, DryRun: opts.DryRun,
	})
	ch.Client = watchSummarizer(ch.Client, opts.IO, opts.Global, opts.WaitNotice)
	return ch, err
}

// parseTiers reads --tiers: three increasing percentages.
func parseTiers(s string) (compact.Tiers, error) {
	parts := strings.Split(s, ",")
	var v [3]float64
	if len(parts) != 3 {
		return compact.Tiers{}, fmt.Errorf("--tiers %q: want three percentages, e.g. 80,85,95", s)
	}
	for i, p := range parts {
		f, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		off := f == 0 && i > 0 // a level turned off: reached only when nothing else fits
		if err != nil || f < 0 || f > 100 || (i == 0 && f == 0) || (!off && i > 0 && v[i-1] > 0 && f < v[i-1]) {
			return compact.Tiers{}, fmt.Errorf("--tiers %q: want three increasing percentages in (0,100] (0 turns the aggressive or emergency level off)", s)
		}
		v[i] = f
	}
	return compact.Tiers{Normal: v[0] / 100, Aggressive: v[1] / 100, Emergency: v[2] / 100}, nil
}
