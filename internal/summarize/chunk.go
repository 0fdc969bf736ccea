package summarize

import (
	"fmt"
	"github.com/ctxc/ctxc/internal/transcript"
	"strconv"
	"strings"

	"github.com/ctxc/ctxc/internal/estimate"
)

// Budget constants. The estimate is chars/4, which undercounts code and non-Latin text; the
// safety factor and the fixed overheads keep a request inside the window anyway, and a server
// that still disagrees answers ContextLength, which re-chunks.
const (
	// inputSafety multiplies the estimated prompt tokens when sizing a request.
	inputSafety = 1.25
	// templateOverhead covers the chat template around the two messages.
	templateOverhead = 32
	// partOverhead covers the <part n=".." of=".."> tags around one partial summary.
	partOverhead = 12
	// numCtxStep rounds Ollama's num_ctx up, so calls of similar size share one value: Ollama
	// reloads a model whenever num_ctx changes.
	numCtxStep = 1024
	// minTarget and minChunkCap: below these a window is too small to summarize anything useful,
	// and the extractive summarizer runs instead.
	minTarget   = 32
	minChunkCap = 128
	// outputShare caps the output budget at a third of the window, leaving the rest for input.
	outputShare = 3
)

// maxOutFor is the output cap (num_predict / max_tokens) for a summary of about target tokens:
// room for the 1.5× validation tolerance plus a little, so a summary is rejected by validation
// (and escalated) rather than cut off mid-sentence by the server.
func maxOutFor(target int) int { return target + target/2 + 64 }

// needFor is the context a request needs: estimated prompt tokens with the safety factor, plus
// the output budget.
func needFor(promptTokens, maxOut int) int {
	return int(float64(promptTokens)*inputSafety+0.999) + maxOut
}

// numCtxFor rounds need up to numCtxStep, capped by the window (need itself is never above it).
func numCtxFor(need, window int) int {
	n := (need + numCtxStep - 1) / numCtxStep * numCtxStep
	if n > window {
		n = window
	}
	return n
}

// budget holds the sizes derived from the window and the target for one request.
type budget struct {
	window      int
	finalTarget int // target of the final summary (the request's, clamped to what the window allows)
	chunkTarget int // target of each chunk summary and intermediate merge
	sysTokens   int // largest system prompt
	wrapTokens  int // transcript/merge wrapper text around the data
	finalCap    int // data tokens one call producing finalTarget can take
	chunkCap    int // data tokens one call producing chunkTarget can take
	itemCap     int // largest single item; bigger ones become a note
}

// newBudget derives the sizes. ok is false when the window is too small for any useful call.
//
// The chunk target is chosen so that any two chunk summaries (each up to 1.5× their target) fit
// together in one merge call: merging then always makes progress, and the merge tree is at most
// log2(chunks) deep.
func newBudget(window, target int, language, instructions string) (b budget, ok bool) {
	b.window = window
	t := target
	if tmax := (window/outputShare - 64) * 2 / 3; t > tmax {
		t = tmax
	}
	b.finalTarget = t
	for _, l := range []level{levelNormal, levelAggressive} {
		for _, k := range []task{taskSummarize, taskMerge} {
			b.sysTokens = max(b.sysTokens, estimate.Tokens(systemPrompt(l, k, max(t, 1), language, instructions))+2)
		}
	}
	b.wrapTokens = estimate.Tokens(transcriptOpen+transcriptClose) + max(estimate.Tokens(summarizeAsk), estimate.Tokens(mergeAsk))
	b.finalCap = b.capFor(b.finalTarget)
	b.chunkTarget = min(b.finalTarget, b.finalCap*2/7)
	b.chunkCap = b.capFor(b.chunkTarget)
	b.itemCap = min(window/2, b.chunkCap)
	ok = b.finalTarget >= minTarget && b.chunkTarget >= minTarget && b.chunkCap >= minChunkCap
	return b, ok
}

// capFor is how many data tokens a call whose output targets target can carry.
func (b budget) capFor(target int) int {
	return int(float64(b.window-maxOutFor(target))/inputSafety) - b.sysTokens - templateOverhead - b.wrapTokens
}

// unit is a run of items that must stay in one chunk: a tool call with its results, one
// message's blocks (same non-zero Group), or a single ungrouped item.
type unit struct {
	start, end int // Request.Items[start:end]
	items      []rendered
	tokens     int
}

// groupSpans splits items into units. Items of one Group normally sit together, but if a group
// reappears later (interleaved parallel tool calls) the unit stretches to its last item, so a
// group is never split however the orchestrator numbered it. Linear time.
func groupSpans(items []transcript.Item) [][2]int {
	last := make(map[int]int)
	for i, it := range items {
		if it.Group != 0 {
			last[it.Group] = i
		}
	}
	var spans [][2]int
	for i := 0; i < len(items); {
		end := i
		for j := i; j <= end; j++ {
			if g := items[j].Group; g != 0 && last[g] > end {
				end = last[g]
			}
		}
		spans = append(spans, [2]int{i, end + 1})
		i = end + 1
	}
	return spans
}

// prepare renders the items with previews, replaces items over the item cap with notes, and
// groups them into units no bigger than unitCap. It reports how many items became notes.
func prepare(items []transcript.Item, itemCap, unitCap int) (units []unit, omitted int) {
	rs := make([]rendered, len(items))
	for i, it := range items {
		r := renderItem(i, it)
		if r.tokens > itemCap {
			r = omitNote(i, it, r.tokens)
			omitted++
		}
		rs[i] = r
	}
	for _, sp := range groupSpans(items) {
		u := unit{start: sp[0], end: sp[1], items: rs[sp[0]:sp[1]:sp[1]]}
		for _, r := range u.items {
			u.tokens += r.tokens
		}
		if u.tokens > unitCap {
			var n int
			u, n = fitUnit(u, items, unitCap)
			omitted += n
		}
		units = append(units, u)
	}
	return units, omitted
}

// fitUnit shrinks a unit that cannot be split: first its largest items become notes, and if
// notes alone are still too many, the whole unit becomes one note. Nothing is dropped silently.
func fitUnit(u unit, items []transcript.Item, unitCap int) (unit, int) {
	rs := append([]rendered(nil), u.items...)
	noted := make([]bool, len(rs))
	omitted := 0
	total := u.tokens
	for total > unitCap {
		big := -1
		for i, r := range rs {
			if !noted[i] && (big < 0 || r.tokens > rs[big].tokens) {
				big = i
			}
		}
		if big < 0 {
			break
		}
		n := omitNote(rs[big].index, items[rs[big].index], rs[big].tokens)
		noted[big] = true
		if n.tokens < rs[big].tokens {
			total += n.tokens - rs[big].tokens
			rs[big] = n
			omitted++
		}
	}
	if total > unitCap {
		first, last := items[u.start], items[u.end-1]
		text := fmt.Sprintf("[ctxc omitted %d linked items (lines %d–%d): together more than one request can hold]\n",
			u.end-u.start, first.Line, last.Line)
		rs = []rendered{{index: u.start, text: text, tokens: estimate.Tokens(text)}}
		total = rs[0].tokens
		omitted = u.end - u.start
	}
	u.items, u.tokens = rs, total
	return u, omitted
}

func sumTokens(units []unit) int {
	n := 0
	for _, u := range units {
		n += u.tokens
	}
	return n
}

// pack splits units into chunks of at most limit tokens, balanced: with n the fewest chunks
// possible, chunk boundaries fall where the running total crosses k·total/n (on whichever side
// of a unit is closer), so the last chunk is not a sliver. Units are never split.
func pack(units []unit, limit int) [][]unit {
	total := sumTokens(units)
	if total <= limit || len(units) < 2 {
		return [][]unit{units}
	}
	n := (total + limit - 1) / limit
	var chunks [][]unit
	start, cur, acc, k := 0, 0, 0, 1
	for i, u := range units {
		if i > start {
			switch {
			case cur+u.tokens > limit:
				chunks = append(chunks, units[start:i])
				start, cur = i, 0
				for k < n && k*total/n <= acc {
					k++
				}
			case k < n && acc+u.tokens/2 > k*total/n:
				chunks = append(chunks, units[start:i])
				start, cur = i, 0
				k++
			}
		}
		cur += u.tokens
		acc += u.tokens
	}
	return append(chunks, units[start:])
}

// halve splits units into two runs of about equal tokens (for a re-chunk after ContextLength).
func halve(units []unit) (a, b []unit) {
	total, acc := sumTokens(units), 0
	for i, u := range units {
		acc += u.tokens
		if acc*2 >= total && i+1 < len(units) {
			return units[:i+1], units[i+1:]
		}
	}
	return units[:len(units)-1], units[len(units)-1:]
}

// renderTranscript builds the user message of a summarize call.
func renderTranscript(units []unit) string {
	size := len(transcriptOpen) + len(transcriptClose) + len(summarizeAsk)
	for _, u := range units {
		for _, r := range u.items {
			size += len(r.text)
		}
	}
	var b strings.Builder
	b.Grow(size)
	b.WriteString(transcriptOpen)
	for _, u := range units {
		for _, r := range u.items {
			b.WriteString(r.text)
		}
	}
	b.WriteString(transcriptClose)
	b.WriteString(summarizeAsk)
	return b.String()
}

// piece is a partial (or final) summary.
type piece struct {
	text  string
	level level // weakest escalation step that went into it (Result.Fallback)
	step  level // step that wrote this text (Result.Prompt)
}

func pieceTokens(p piece) int { return estimate.Tokens(p.text) + partOverhead }

// renderParts builds the user message of a merge call.
func renderParts(pieces []piece) string {
	var b strings.Builder
	total := strconv.Itoa(len(pieces))
	for i, p := range pieces {
		b.WriteString(`<part n="` + strconv.Itoa(i+1) + `" of="` + total + "\">\n")
		b.WriteString(neutralize(strings.TrimSpace(p.text)))
		b.WriteString("\n</part>\n")
	}
	b.WriteString(mergeAsk)
	return b.String()
}

// packPieces groups consecutive pieces into merge batches of at most limit tokens.
func packPieces(pieces []piece, limit int) [][]piece {
	var batches [][]piece
	start, cur := 0, 0
	for i, p := range pieces {
		t := pieceTokens(p)
		if i > start && cur+t > limit {
			batches = append(batches, pieces[start:i])
			start, cur = i, 0
		}
		cur += t
	}
	if start < len(pieces) {
		batches = append(batches, pieces[start:])
	}
	return batches
}
