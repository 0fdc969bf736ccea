// Package summarize turns the middle zone of an agent transcript into a summary (docs/design.md §8).
//
// Two kinds of summarizer sit behind one pipeline: a model, reached through internal/llm (Ollama's
// native API or any OpenAI-compatible chat-completions endpoint), and a deterministic extractive
// summarizer that needs no model. The pipeline bounds what it sends (previews of tool output, notes for oversized items, chunks that
// fit the model's window, merges of partial summaries), validates every reply, and escalates
// normal prompt → aggressive prompt → extractive when a reply is unusable. It never truncates
// silently: an over-long request is an error from the server (Ollama truncate:false) that leads to
// re-chunking, and anything ctxc leaves out carries a note saying so.
//
// Failure semantics, for the CLI:
//   - Unavailable (connection refused, timeout, DNS, 5xx or 429 after retries): Summarize returns
//     the *llm.EndpointError; nothing is written and the CLI exits 69.
//   - Auth and Rejected (bad key, unknown model, refused redirect): returned as errors too; they
//     are configuration problems that a fallback would hide.
//   - BadResponse, ContextLength that re-chunking could not resolve, and summaries that fail
//     validation: escalated; Result.Fallback records the weakest step used.
//   - A cancelled context: ctx.Err() is returned.
//
// The package imports neither cobra nor viper; the orchestrator calls Summarize, Plan and
// Extractive directly.
package summarize

import (
	"context"
	"errors"
	"github.com/ctxc/ctxc/internal/transcript"
	"strconv"
	"sync"

	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/llm"
)

// DefaultTargetTokens is the summary budget when Request.TargetTokens is 0 (seahorse's condensed
// target, docs/design.md §9).
const DefaultTargetTokens = 2000

// Request is one summarization job.
type Request struct {
	Items        []transcript.Item
	TargetTokens int    // summary budget in tokens (default DefaultTargetTokens)
	Language     string // optional; otherwise the prompt asks for the conversation's language
	// Instructions are the user's instructions for this compaction, sent in a delimited section
	// of the system prompt (optional).
	Instructions string
}

// Result describes the summary and how it was made; the caller records these fields in the
// compaction marker.
type Result struct {
	Text     string
	Provider string // "ollama", "openai", or "extractive" (Extractive called directly)
	Model    string // "" for extractive
	// Prompt is the id of the prompt that wrote the final text (the last merge, or the single
	// call), e.g. "ctxc-normal-v2"; "ctxc-extractive-v1" when the extractive summarizer did.
	Prompt string
	// Fallback is the weakest step whose output went into Text: "none" (normal prompt
	// throughout), "aggressive", or "extractive" (the whole summary, or at least one chunk,
	// came from the extractive summarizer). This package never produces "truncate".
	Fallback string
	// Chunks is the number of transcript slices sent for a summary (1 when not chunked; more
	// after a re-chunk), merges not counted.
	Chunks int
	// InputTokens is the estimated prompt tokens (system + user message) of all LLM calls made;
	// for a result that came from Extractive alone, the estimated tokens of the items.
	InputTokens int
	// PromptEvalCount is the sum of the prompt token counts the server reported (0 if unknown);
	// compared with InputTokens it calibrates the chars/4 estimate.
	PromptEvalCount int
}

// Options tune one Summarize call.
type Options struct {
	MaxParallel int                              // concurrent LLM calls (--parallel), default 1
	Window      int                              // override the window (0 = ask the Client)
	Logf        func(format string, args ...any) // optional progress/debug lines
	OnChunk     func(done, total int)            // optional progress callback
	// Aggressive starts at the aggressive prompt (compaction's aggressive and emergency tiers).
	Aggressive bool
}

// PlanInfo tells how a request would be sent.
type PlanInfo struct {
	InputTokens int  // estimated prompt tokens of a single call (system + transcript after previews)
	Fits        bool // a single call fits the window
	Chunks      int  // number of chunk calls (1 when it fits)
	NumCtx      int  // context size requested for the largest call
	Target      int  // final summary target after clamping to the window
	Omitted     int  // items replaced by a note because they were too large
}

// ErrNoInput is returned by Summarize for a request without items.
var ErrNoInput = errors.New("summarize: nothing to summarize")

// Limits of the recursion.
const (
	// maxRechunkDepth bounds how often a slice is halved after ContextLength errors (1/8 of it).
	maxRechunkDepth = 3
	// maxMergeRounds bounds the merge tree's height; each round at least halves the pieces.
	maxMergeRounds = 12
	// breakerLimit: after this many unusable replies without a single good one, the endpoint is
	// not asked again for this request and the extractive summarizer runs. Without it a broken
	// model would be called twice for every chunk of a 100 MB middle.
	breakerLimit = 4
)

var (
	// errGiveUp: the LLM path cannot produce a summary; the whole request goes extractive.
	errGiveUp = errors.New("summarize: the model's replies were unusable")
	// errLeafFailed: one slice got no acceptable summary; a chunk becomes extractive.
	errLeafFailed = errors.New("summarize: no acceptable summary for this slice")
)

// soft reports errors that escalate instead of aborting.
func soft(err error) bool {
	var inv *invalidError
	switch {
	case errors.Is(err, errGiveUp), errors.Is(err, errLeafFailed), errors.As(err, &inv):
		return true
	}
	return llm.IsKind(err, llm.BadResponse) || llm.IsKind(err, llm.ContextLength)
}

func withDefaults(req Request) Request {
	if req.TargetTokens <= 0 {
		req.TargetTokens = DefaultTargetTokens
	}
	return req
}

// Summarize runs previews → (chunking + merge when needed) → escalation normal → aggressive →
// extractive, with validation. See the package comment for which errors it returns.
func Summarize(ctx context.Context, c llm.Client, req Request, opts Options) (Result, error) {
	if c == nil {
		return Result{}, errors.New("summarize: no completer")
	}
	req = withDefaults(req)
	if len(req.Items) == 0 {
		return Result{}, ErrNoInput
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	window := opts.Window
	if window <= 0 {
		w, err := c.Window(ctx)
		if err != nil {
			return Result{}, err
		}
		window = w
	}
	r := &runner{
		c:        c,
		req:      req,
		opts:     opts,
		window:   window,
		callSem:  make(chan struct{}, max(opts.MaxParallel, 1)),
		sizesCtx: llm.SizesContext(c),
	}
	return r.run(ctx)
}

// runner holds the state of one Summarize call.
type runner struct {
	c        llm.Client
	req      Request
	opts     Options
	window   int
	b        budget
	sizesCtx bool // the Client honours NumCtx, so asking for more context can help
	callSem  chan struct{}

	logMu       sync.Mutex // serializes Logf and OnChunk, and guards done/total
	done, total int

	mu          sync.Mutex // guards the fields below
	leaves      int
	inputTokens int
	promptEval  int
	failures    int
	successes   int
	boost       bool    // after a ContextLength from the server, request the whole window
	ratio       float64 // highest server prompt tokens / estimated tokens seen (calibration)
}

func (r *runner) logf(format string, args ...any) {
	if r.opts.Logf == nil {
		return
	}
	r.logMu.Lock()
	defer r.logMu.Unlock()
	r.opts.Logf(format, args...)
}

func (r *runner) progress(doneDelta, total int) {
	if r.opts.OnChunk == nil {
		return
	}
	r.logMu.Lock()
	defer r.logMu.Unlock()
	if total > 0 {
		r.total = total
	}
	r.done += doneDelta
	r.opts.OnChunk(r.done, r.total)
}

func (r *runner) run(ctx context.Context) (Result, error) {
	b, ok := newBudget(r.window, r.req.TargetTokens, r.req.Language, r.req.Instructions)
	if !ok {
		r.logf("summarize: a %d-token window is too small for an LLM summary; using the extractive summarizer", r.window)
		return r.extractiveResult(), nil
	}
	r.b = b
	if b.finalTarget < r.req.TargetTokens {
		r.logf("summarize: target lowered from %d to %d tokens to fit the %d-token window", r.req.TargetTokens, b.finalTarget, r.window)
	}
	units, omitted := prepare(r.req.Items, b.itemCap, b.chunkCap)
	if omitted > 0 {
		r.logf("summarize: %d oversized items replaced by notes", omitted)
	}
	var p piece
	var err error
	if total := sumTokens(units); total <= b.finalCap {
		r.progress(0, 1)
		p, err = r.leaf(ctx, units, b.finalTarget, 0)
		r.progress(1, 0)
	} else {
		chunks := pack(units, b.chunkCap)
		r.logf("summarize: ~%d tokens do not fit a %d-token window: %d chunks", total, r.window, len(chunks))
		p, err = r.chunked(ctx, chunks, b.finalTarget, 0, true)
	}
	switch {
	case err == nil:
		return r.result(p), nil
	case ctx.Err() != nil:
		return Result{}, ctx.Err()
	case soft(err):
		r.logf("summarize: falling back to the extractive summarizer: %v", err)
		return r.extractiveResult(), nil
	}
	return Result{}, err
}

func (r *runner) result(p piece) Result {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Result{
		Text:            p.text,
		Provider:        r.c.Provider(),
		Model:           r.c.Model(),
		Prompt:          p.step.promptID(),
		Fallback:        r.fallback(p.level),
		Chunks:          r.leaves,
		InputTokens:     r.inputTokens,
		PromptEvalCount: r.promptEval,
	}
}

// extractiveResult is the last step of escalation for the whole request. The user's target is
// used (the window does not constrain a summary that no model reads).
func (r *runner) extractiveResult() Result {
	ex := Extractive(r.req)
	r.mu.Lock()
	defer r.mu.Unlock()
	in := r.inputTokens
	if in == 0 {
		in = ex.InputTokens
	}
	return Result{
		Text:            ex.Text,
		Provider:        r.c.Provider(),
		Model:           r.c.Model(),
		Prompt:          PromptExtractive,
		Fallback:        levelExtractive.fallback(),
		Chunks:          r.leaves,
		InputTokens:     in,
		PromptEvalCount: r.promptEval,
	}
}

// chunked summarizes each chunk (in parallel up to MaxParallel, results kept in order) and
// merges the partial summaries. A chunk without an acceptable LLM summary gets an extractive
// one, so one bad chunk does not cost the others.
func (r *runner) chunked(ctx context.Context, chunks [][]unit, target, depth int, top bool) (piece, error) {
	if top {
		r.progress(0, len(chunks))
	}
	pieces := make([]piece, len(chunks))
	err := r.forEach(ctx, len(chunks), func(ctx context.Context, i int) error {
		p, err := r.leaf(ctx, chunks[i], r.b.chunkTarget, depth)
		if errors.Is(err, errLeafFailed) {
			p, err = r.extractivePiece(chunks[i], r.b.chunkTarget), nil
		}
		pieces[i] = p
		if top && err == nil {
			r.progress(1, 0)
		}
		return err
	})
	if err != nil {
		return piece{}, err
	}
	return r.merge(ctx, pieces, target, depth)
}

func (r *runner) extractivePiece(units []unit, target int) piece {
	items := r.req.Items[units[0].start:units[len(units)-1].end]
	ex := Extractive(Request{Items: items, TargetTokens: target, Language: r.req.Language})
	return piece{text: ex.Text, level: levelExtractive, step: levelExtractive}
}

// fallback names the weakest step used, relative to where the request started: asked to start
// aggressive, the aggressive prompt is no fallback.
func (r *runner) fallback(l level) string {
	if l == levelAggressive && r.opts.Aggressive {
		return levelNormal.fallback()
	}
	return l.fallback()
}

// levels are the prompts a request tries, in order.
func (r *runner) levels() []level {
	if r.opts.Aggressive {
		return []level{levelAggressive}
	}
	return []level{levelNormal, levelAggressive}
}

// leaf asks for one summary of units that fit one call: normal prompt, then aggressive. A
// ContextLength error (the server counted more tokens than ctxc estimated) halves the slice,
// bounded by maxRechunkDepth.
func (r *runner) leaf(ctx context.Context, units []unit, target, depth int) (piece, error) {
	r.mu.Lock()
	r.leaves++
	r.mu.Unlock()
	user := renderTranscript(units)
	inChars := estimate.Chars(user)
	var ctxErr error
	for _, l := range r.levels() {
		if r.gaveUp() {
			return piece{}, errGiveUp
		}
		text, err := r.call(ctx, l, taskSummarize, target, user, inChars)
		if err == nil {
			return piece{text: text, level: l, step: l}, nil
		}
		if llm.IsKind(err, llm.ContextLength) {
			ctxErr = err
			break
		}
		if !soft(err) {
			return piece{}, err
		}
	}
	if ctxErr != nil && depth < maxRechunkDepth && len(units) > 1 {
		a, b := halve(units)
		r.logf("summarize: re-chunking %d items into two after: %v", units[len(units)-1].end-units[0].start, ctxErr)
		r.mu.Lock()
		r.leaves-- // the halves are counted instead
		r.mu.Unlock()
		return r.chunked(ctx, [][]unit{a, b}, target, depth+1, false)
	}
	return piece{}, errLeafFailed
}

// merge combines partial summaries into one of about target tokens. When they do not fit one
// call, consecutive pieces are merged in batches (intermediate target: the chunk target) until
// they do. A failed merge gives up on the LLM path: the whole request goes extractive.
func (r *runner) merge(ctx context.Context, pieces []piece, target, depth int) (piece, error) {
	for round := 0; len(pieces) > 1; round++ {
		if round >= maxMergeRounds {
			return piece{}, errGiveUp
		}
		if sumPieces(pieces) <= r.b.capFor(target) {
			return r.mergeCall(ctx, pieces, target, depth)
		}
		batches := packPieces(pieces, r.b.capFor(r.b.chunkTarget))
		if len(batches) == len(pieces) {
			return piece{}, errGiveUp // no batch holds two pieces: no progress possible
		}
		r.logf("summarize: merging %d partial summaries in %d batches", len(pieces), len(batches))
		next := make([]piece, len(batches))
		err := r.forEach(ctx, len(batches), func(ctx context.Context, i int) error {
			if len(batches[i]) == 1 {
				next[i] = batches[i][0]
				return nil
			}
			p, err := r.mergeCall(ctx, batches[i], r.b.chunkTarget, depth)
			next[i] = p
			return err
		})
		if err != nil {
			return piece{}, err
		}
		pieces = next
	}
	return pieces[0], nil
}

func sumPieces(pieces []piece) int {
	n := 0
	for _, p := range pieces {
		n += pieceTokens(p)
	}
	return n
}

func (r *runner) mergeCall(ctx context.Context, pieces []piece, target, depth int) (piece, error) {
	worst := levelNormal
	for _, p := range pieces {
		worst = max(worst, p.level)
	}
	user := renderParts(pieces)
	inChars := estimate.Chars(user)
	var ctxErr error
	for _, l := range r.levels() {
		if r.gaveUp() {
			return piece{}, errGiveUp
		}
		text, err := r.call(ctx, l, taskMerge, target, user, inChars)
		if err == nil {
			return piece{text: text, level: max(worst, l), step: l}, nil
		}
		if llm.IsKind(err, llm.ContextLength) {
			ctxErr = err
			break
		}
		if !soft(err) {
			return piece{}, err
		}
	}
	if ctxErr != nil && len(pieces) > 2 && depth < maxRechunkDepth {
		half := len(pieces) / 2
		a, err := r.mergeCall(ctx, pieces[:half], r.b.chunkTarget, depth+1)
		if err != nil {
			return piece{}, err
		}
		b, err := r.mergeCall(ctx, pieces[half:], r.b.chunkTarget, depth+1)
		if err != nil {
			return piece{}, err
		}
		return r.mergeCall(ctx, []piece{a, b}, target, depth+1)
	}
	return piece{}, errGiveUp
}

func (r *runner) gaveUp() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.successes == 0 && r.failures >= breakerLimit
}

// calibrationMargin is added on top of the observed tokens-per-estimate ratio.
const calibrationMargin = 1.1

// call sends one request and validates the reply. It refuses locally (ContextLength, nothing
// sent) a request whose estimate exceeds the window; once a server has reported prompt token
// counts, the estimate is scaled by the highest observed ratio (chars/4 undercounts code and
// non-Latin text). After a ContextLength from an endpoint that honours num_ctx, the same request
// is retried once with the whole window, and later calls use the whole window too.
func (r *runner) call(ctx context.Context, l level, t task, target int, user string, inChars int) (string, error) {
	sys := systemPrompt(l, t, target, r.req.Language, r.req.Instructions)
	promptTokens := estimate.Tokens(sys) + estimate.Tokens(user) + templateOverhead
	maxOut := maxOutFor(target)
	need := needFor(promptTokens, maxOut)
	r.mu.Lock()
	if calibrated := int(float64(promptTokens)*r.ratio*calibrationMargin+0.999) + maxOut; calibrated > need {
		need = calibrated
	}
	r.mu.Unlock()
	if need > r.window {
		return "", &llm.EndpointError{Provider: r.c.Provider(), Kind: llm.ContextLength,
			Msg: "request of ~" + itoa(need) + " tokens would exceed the " + itoa(r.window) + "-token window; not sent"}
	}
	numCtx := numCtxFor(need, r.window)
	for attempt := 0; ; attempt++ {
		r.mu.Lock()
		if r.boost {
			numCtx = r.window
		}
		r.mu.Unlock()
		comp, err := r.complete(ctx, sys, user, numCtx, maxOut)
		r.mu.Lock()
		r.inputTokens += promptTokens
		r.promptEval += comp.Usage.PromptTokens
		if comp.Usage.PromptTokens > 0 {
			r.ratio = max(r.ratio, float64(comp.Usage.PromptTokens)/float64(promptTokens))
		}
		r.mu.Unlock()
		r.logf("summarize: %s %s call: ~%d tokens in, num_ctx %d, max out %d; server: prompt %d, output %d, done %q",
			l.promptID(), taskName(t), promptTokens, numCtx, maxOut, comp.Usage.PromptTokens, comp.Usage.OutputTokens, comp.DoneReason)
		if err != nil {
			if llm.IsKind(err, llm.ContextLength) && r.sizesCtx && numCtx < r.window && attempt == 0 {
				r.mu.Lock()
				r.boost = true
				r.mu.Unlock()
				r.logf("summarize: %v; retrying with num_ctx %d", err, r.window)
				continue
			}
			if llm.IsKind(err, llm.BadResponse) {
				r.recordFailure()
			}
			return "", err
		}
		text := cleanReply(comp.Text)
		if err := validate(text, comp.DoneReason, inChars, target); err != nil {
			r.recordFailure()
			r.logf("summarize: %s reply rejected: %v", l.promptID(), err)
			return "", err
		}
		r.mu.Lock()
		r.successes++
		r.mu.Unlock()
		return text, nil
	}
}

func (r *runner) recordFailure() {
	r.mu.Lock()
	r.failures++
	r.mu.Unlock()
}

// complete holds one slot of the call semaphore, so MaxParallel bounds concurrent requests
// however deeply chunking and merging nest.
func (r *runner) complete(ctx context.Context, sys, user string, numCtx, maxOut int) (llm.Reply, error) {
	select {
	case r.callSem <- struct{}{}:
	case <-ctx.Done():
		return llm.Reply{}, ctx.Err()
	}
	defer func() { <-r.callSem }()
	return r.c.Complete(ctx, llm.Prompt(sys, user), llm.Options{NumCtx: numCtx, MaxTokens: maxOut})
}

func taskName(t task) string {
	if t == taskMerge {
		return "merge"
	}
	return "summary"
}

// forEach runs fn for 0..n-1 with at most MaxParallel running, in index order of start. The
// first error cancels the others and is returned.
func (r *runner) forEach(ctx context.Context, n int, fn func(ctx context.Context, i int) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	sem := make(chan struct{}, max(r.opts.MaxParallel, 1))
	var (
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
loop:
	for i := 0; i < n; i++ {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			break loop
		}
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			defer func() { <-sem }()
			if err := fn(ctx, i); err != nil {
				once.Do(func() {
					firstErr = err
					cancel()
				})
			}
		}(i)
	}
	wg.Wait()
	if firstErr != nil {
		return firstErr
	}
	return ctx.Err()
}

// Plan tells, without calling anything, how the request would be sent to a model with this
// window (0 means llm.DefaultOpenAIWindow): estimated input tokens after previews, whether one call
// fits, how many chunks, and the num_ctx of the largest call.
func Plan(req Request, window int) PlanInfo {
	req = withDefaults(req)
	if window <= 0 {
		window = llm.DefaultOpenAIWindow
	}
	if len(req.Items) == 0 {
		return PlanInfo{Fits: true}
	}
	b, ok := newBudget(window, req.TargetTokens, req.Language, req.Instructions)
	if !ok {
		return PlanInfo{InputTokens: itemTokens(req.Items)}
	}
	units, omitted := prepare(req.Items, b.itemCap, b.chunkCap)
	total := sumTokens(units)
	in := b.sysTokens + b.wrapTokens + templateOverhead + total
	info := PlanInfo{InputTokens: in, Target: b.finalTarget, Omitted: omitted}
	if total <= b.finalCap {
		info.Fits, info.Chunks = true, 1
		info.NumCtx = numCtxFor(needFor(in, maxOutFor(b.finalTarget)), window)
		return info
	}
	chunks := pack(units, b.chunkCap)
	biggest := 0
	for _, c := range chunks {
		biggest = max(biggest, sumTokens(c))
	}
	info.Chunks = len(chunks)
	info.NumCtx = numCtxFor(needFor(b.sysTokens+b.wrapTokens+templateOverhead+biggest, maxOutFor(b.chunkTarget)), window)
	return info
}

func itemTokens(items []transcript.Item) int {
	n := 0
	for _, it := range items {
		n += estimate.FromChars(it.Size())
	}
	return n
}

func itoa(n int) string { return strconv.Itoa(n) }
