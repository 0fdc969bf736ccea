package summarize

import (
	"bytes"
	"github.com/ctxc/ctxc/internal/transcript"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/estimate"
	"github.com/ctxc/ctxc/internal/prose"
	"github.com/tidwall/gjson"
)

// The extractive summarizer needs no model: it keeps the lines of a transcript that compaction
// most often loses: what the user asked and required, decisions, files,
// commands, errors, identifiers, and where the work stood. It is deterministic (no randomness, no
// clock, no map-order dependence), so the same input always gives byte-identical output, and it
// is linear in the input: each item is scanned once, with per-item scan caps on free text, and
// every section keeps a bounded number of candidates.

// Section titles, in output order.
const (
	titleEarlier     = "## Earlier summary"
	titleRules       = "## User rules"
	titleRequests    = "## User requests"
	titleDecisions   = "## Decisions"
	titleFiles       = "## Files"
	titleCommands    = "## Commands"
	titleErrors      = "## Errors"
	titleIdentifiers = "## Identifiers"
	titleLastState   = "## Last state"
	titleLastRequest = "## Last user request"
)

type section int

const (
	secEarlier section = iota
	secRules
	secRequests
	secDecisions
	secFiles
	secCommands
	secErrors
	secErrorLines // error-looking lines of successful tool output: rendered under Errors, picked last
	secIdentifiers
	numSections
)

var sectionTitle = [numSections]string{
	titleEarlier, titleRules, titleRequests, titleDecisions, titleFiles, titleCommands, titleErrors,
	titleErrors, titleIdentifiers,
}

// pickOrder is the round-robin order in which sections receive their next line while the budget
// lasts: every section gets a share, the more important ones first within a round.
var pickOrder = []section{
	secRules, secRequests, secErrors, secDecisions, secFiles, secCommands, secEarlier, secIdentifiers, secErrorLines,
}

// Per-line caps, in characters.
const (
	capRequest    = 300
	capSentence   = 240
	capCommand    = 200
	capToken      = 200
	capErrorLine  = 240
	capLastState  = 600
	capLastAsk    = 1500
	capLastCall   = 150      // the arguments of the last tool call, under Last state
	scanTextBytes = 16 << 10 // free text scanned per item for cues and tokens
	scanArgsBytes = 2 << 10  // raw tool-call arguments scanned for tokens
	scanLineBytes = 512      // prefix of a tool-output line checked for error cues
)

var (
	decisionCues = []string{
		"decided", "decision", "we will", "we'll", "let's", "let us", "instead", "because",
		"chose ", "choose ", "going with", "switch to", "switched to", "rather than", "the fix is",
		"root cause", "plan is", "will use",
	}
	ruleCues = []string{
		"always", "never", "don't", "do not", "must", "make sure", "please use", "prefer",
		"avoid", "only use", "should not", "shouldn't", "instead",
	}
	// errorCues find the telling line of a failed tool result.
	errorCues = []string{
		"error", "failed", "failure", "panic", "exception", "fatal", "traceback", "denied",
		"not found", "no such", "cannot", "can't", "invalid", "undefined", "refused", "timed out",
	}
	// outputErrorStarts and outputErrorContains find error lines in successful tool output while
	// ignoring source code that merely mentions errors (a Go file is full of "err").
	outputErrorStarts = []string{
		"error", "fatal", "panic:", "traceback", "fail", "--- fail", "exception", "npm err!",
		"make: ***", "e   ",
	}
	outputErrorContains = []string{": error", "error:", "exception:", "exit status", "exit code"}

	decisionSet    = newCueSet(decisionCues)
	ruleSet        = newCueSet(ruleCues)
	outputErrorSet = newCueSet(outputErrorContains)
)

// entry is one candidate line.
type entry struct {
	order int // global sequence: chronological position, unique
	item  int // index of the source item
	line  int // source line, 0 if none
	text  string
}

// bucket keeps the first nFirst and the last ringCap distinct candidates of a section. Seeing a
// retained text again only refreshes its order, so repeated lines do not crowd the section.
type bucket struct {
	nFirst int
	first  []entry
	ring   []entry
	next   int
	idx    map[string]int // text → slot: >= 0 ring, < 0 first (-1-i)
}

func newBucket(nFirst, ringCap int) *bucket {
	return &bucket{nFirst: nFirst, ring: make([]entry, 0, ringCap), idx: make(map[string]int)}
}

func (b *bucket) add(e entry) {
	if e.text == "" {
		return
	}
	if slot, ok := b.idx[e.text]; ok {
		if slot < 0 {
			b.first[-1-slot].order, b.first[-1-slot].item, b.first[-1-slot].line = e.order, e.item, e.line
		} else {
			b.ring[slot].order, b.ring[slot].item, b.ring[slot].line = e.order, e.item, e.line
		}
		return
	}
	if len(b.first) < b.nFirst {
		b.first = append(b.first, e)
		b.idx[e.text] = -len(b.first)
		return
	}
	if len(b.ring) < cap(b.ring) {
		b.ring = append(b.ring, e)
		b.idx[e.text] = len(b.ring) - 1
		return
	}
	if cap(b.ring) == 0 {
		return
	}
	old := b.ring[b.next]
	if b.idx[old.text] == b.next {
		delete(b.idx, old.text)
	}
	b.ring[b.next] = e
	b.idx[e.text] = b.next
	b.next = (b.next + 1) % cap(b.ring)
}

// entries returns the retained candidates sorted by order.
func (b *bucket) entries() []entry {
	out := make([]entry, 0, len(b.first)+len(b.ring))
	out = append(out, b.first...)
	out = append(out, b.ring...)
	sort.Slice(out, func(i, j int) bool { return out[i].order < out[j].order })
	return out
}

type extractor struct {
	// collect, when set, receives pushes instead of the buckets: the parallel first phase of
	// Extractive (see there).
	collect     [][]pendingPush
	buckets     [numSections]*bucket
	seq         int
	lastUser    int // item index of the last user text, -1 if none
	lastAsst    int // item index of the last assistant text
	lastCall    int // item index of the last tool call after lastAsst
	lastSummary int // item index of the last earlier ctxc summary
	lower       []byte
	hits        cueHits
	// errorScanFrom: tool results before this item are not searched for error lines.
	errorScanFrom int
	items         []transcript.Item
}

func newExtractor(items []transcript.Item, target int) *extractor {
	// Enough candidates to fill any budget: a target of T tokens holds about T/10 short lines.
	ring := min(max(target/10, 64), 4096)
	e := &extractor{lastUser: -1, lastAsst: -1, lastCall: -1, lastSummary: -1, items: items}
	for s := range e.buckets {
		nFirst := 0
		if section(s) == secRequests {
			nFirst = 1 // the first request states the task
		}
		e.buckets[s] = newBucket(nFirst, ring)
	}
	return e
}

// Extractive is the deterministic no-LLM summarizer (also the last step of escalation). Same
// input → byte-identical output. The text fits TargetTokens by the chars/4 estimate; lines are
// dropped lowest-priority first, and the last user request is always kept.
func Extractive(req Request) Result {
	req = withDefaults(req)
	e := newExtractor(req.Items, req.TargetTokens)
	// Reading the items is the costly part and each item is read on its own, so it runs on
	// every core: workers record what each item would push, then the pushes and the "last"
	// markers are applied in item order, exactly as a sequential pass would.
	pending := make([][]pendingPush, len(req.Items))
	charsOf := make([]int, len(req.Items))
	scanFrom := errorScanFrom(req.Items)
	workers := min(runtime.GOMAXPROCS(0), max(1, len(req.Items)/64))
	var wg sync.WaitGroup
	var next atomic.Int64 // items are taken in blocks: their costs vary by orders of magnitude
	const block = 128
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			we := &extractor{collect: pending, items: req.Items, errorScanFrom: scanFrom}
			for {
				lo := int(next.Add(block)) - block
				if lo >= len(req.Items) {
					return
				}
				for i := lo; i < min(lo+block, len(req.Items)); i++ {
					it := req.Items[i]
					charsOf[i] = it.Size()
					we.add(i, it)
				}
			}
		}()
	}
	wg.Wait()
	chars := 0
	for i, it := range req.Items {
		chars += charsOf[i]
		e.mark(i, it)
		for _, p := range pending[i] {
			e.push(p.sec, i, p.text)
		}
	}
	return Result{
		Text:        e.render(req.TargetTokens * estimate.CharsPerToken),
		Provider:    "extractive",
		Prompt:      PromptExtractive,
		Fallback:    "none",
		InputTokens: estimate.FromChars(chars),
	}
}

// errorScanResults is how many of the last successful tool results are searched for error
// lines. Older error lines would mostly lose their place in the section to newer ones anyway,
// and the search is the summarizer's costliest part on long sessions. Failed tool results
// (is_error) are always read.
const errorScanResults = 1000

// errorScanFrom is the index of the first item whose output is searched for error lines.
func errorScanFrom(items []transcript.Item) int {
	n := 0
	for i := len(items) - 1; i >= 0; i-- {
		if it := &items[i]; (it.Kind == "tool_result" || it.Role == "tool") && !it.IsError {
			if n++; n > errorScanResults {
				return i + 1
			}
		}
	}
	return 0
}

// pendingPush is a push found in the parallel phase, applied in item order afterwards.
type pendingPush struct {
	sec  section
	text string
}

func (e *extractor) push(s section, item int, text string) {
	if e.collect != nil {
		e.collect[item] = append(e.collect[item], pendingPush{s, text})
		return
	}
	e.seq++
	e.buckets[s].add(entry{order: e.seq, item: item, line: e.items[item].Line, text: text})
}

// mark updates the "last" markers as add does, without reading the text.
func (e *extractor) mark(i int, it transcript.Item) {
	switch {
	case it.Kind == "summary":
		e.lastSummary = i
	case it.Kind == "tool_call":
		e.lastCall = i
	case it.Kind == "tool_result" || it.Role == "tool", it.Kind == "thinking":
	case it.Role == "user":
		if strings.TrimSpace(it.Text) != "" {
			e.lastUser = i
		}
	case it.Role == "assistant":
		if strings.TrimSpace(it.Text) != "" {
			e.lastAsst, e.lastCall = i, -1
		}
	}
}

func (e *extractor) add(i int, it transcript.Item) {
	switch {
	case it.Kind == "summary":
		e.lastSummary = i
	case it.Kind == "tool_call":
		e.toolCall(i, it)
	case it.Kind == "tool_result" || it.Role == "tool":
		e.toolResult(i, it)
	case it.Kind == "thinking":
		// Private reasoning: too long and too tentative to quote.
	case it.Role == "user":
		e.userText(i, it)
	case it.Role == "assistant":
		e.assistantText(i, it)
	}
}

func (e *extractor) userText(i int, it transcript.Item) {
	t := strings.TrimSpace(it.Text)
	if t == "" {
		return
	}
	e.lastUser = i
	e.push(secRequests, i, oneLine(t, capRequest))
	t = clip(t, scanTextBytes)
	e.scanProse(i, t, prose.Blank(t), ruleSet, secRules) // rules from the user's own prose only
}

func (e *extractor) assistantText(i int, it transcript.Item) {
	t := strings.TrimSpace(it.Text)
	if t == "" {
		return
	}
	e.lastAsst, e.lastCall = i, -1
	t = clip(t, scanTextBytes)
	e.scanProse(i, t, t, decisionSet, secDecisions)
}

// scanProse collects cue sentences into sec, "$ command" lines, and path/identifier tokens. Each
// line contributes the sentence around the first cue (in list order) that it contains. Cues are
// looked for in own, t with what the cues must not be taken from blanked (prose.Blank: same
// offsets).
func (e *extractor) scanProse(i int, t, own string, cues *cueSet, sec section) {
	e.lower = lowerASCII(e.lower, own)
	e.hits.find(e.lower, cues)
	for ls := 0; ls < len(t); {
		ts, te, next := nextLine(t, ls)
		ls = next
		if ts == te {
			continue
		}
		line := t[ts:te]
		if strings.HasPrefix(line, "$ ") {
			e.push(secCommands, i, oneLine(line[2:], capCommand))
		}
		for ci := range cues.cues {
			if k := e.hits.first(ci, ts, te); k >= 0 {
				e.push(sec, i, oneLine(sentenceAround(own[ts:te], k-ts), capSentence))
				break
			}
		}
	}
	e.scanTokens(i, t)
}

// quotedPathKeys are the agents' path keys (internal/agent) as they appear in JSON.
var quotedPathKeys = sync.OnceValue(func() []string {
	var q []string
	for _, k := range agent.PathKeys() {
		q = append(q, `"`+k+`"`)
	}
	return q
})

// toolCall lists a call's command when its tool is a shell, the file it works on when its tool
// reads or writes one (the notion the ledger audits with: internal/agent), and a URL it names.
func (e *extractor) toolCall(i int, it transcript.Item) {
	e.lastCall = i
	args := strings.TrimSpace(it.Text)
	isObject := strings.HasPrefix(args, "{")
	kind := agent.KindOf(it.Name)
	if kind == agent.ShellTool {
		if cmd := commandFromArgs(args, isObject); cmd != "" {
			e.push(secCommands, i, oneLine(cmd, capCommand))
			e.scanTokens(i, clip(cmd, scanArgsBytes))
		}
	}
	if !isObject {
		e.scanTokens(i, clip(args, scanArgsBytes))
		return
	}
	// The arguments of an edit are kilobytes of code: look a key up only when its quoted name
	// occurs at all (a substring search is much cheaper than a JSON walk).
	if kind == agent.EditTool || kind == agent.ReadTool {
		e.callFiles(i, args)
	}
	if strings.Contains(args, `"url"`) {
		if u := gjson.Get(args, "url"); u.Type == gjson.String && u.Str != "" {
			e.push(secIdentifiers, i, oneLine(u.Str, capToken))
		}
	}
}

// callFiles lists the files a call's arguments name at the agents' path keys.
func (e *extractor) callFiles(i int, args string) {
	for _, k := range quotedPathKeys() {
		if !strings.Contains(args, k) {
			continue
		}
		switch v := gjson.Get(args, k[1:len(k)-1]); {
		case v.Type == gjson.String && v.Str != "":
			e.push(secFiles, i, oneLine(v.Str, capToken))
		case v.IsArray():
			for _, p := range v.Array() {
				if p.Type == gjson.String && p.Str != "" {
					e.push(secFiles, i, oneLine(p.Str, capToken))
				}
			}
		}
	}
}

// commandFromArgs finds the command in shell-tool arguments: {"command": "..."} (Claude Code),
// {"command": ["bash","-lc","..."]} (Codex), {"cmd": ...}, {"script": ...}; or the raw text.
func commandFromArgs(args string, isObject bool) string {
	if !isObject {
		return args
	}
	for _, k := range []string{"command", "cmd", "script", "commands"} {
		v := gjson.Get(args, k)
		switch {
		case v.Type == gjson.String:
			return v.Str
		case v.IsArray():
			arr := v.Array()
			parts := make([]string, 0, len(arr))
			for _, p := range arr {
				parts = append(parts, p.String())
			}
			if len(parts) >= 3 && isShellName(parts[0]) && strings.HasPrefix(parts[1], "-") {
				return parts[len(parts)-1]
			}
			return strings.Join(parts, " ")
		}
	}
	return ""
}

func isShellName(s string) bool {
	switch s {
	case "bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh", "/usr/bin/bash", "pwsh", "powershell":
		return true
	}
	return false
}

func (e *extractor) toolResult(i int, it transcript.Item) {
	t := it.Text
	name := it.Name
	if name == "" {
		name = "tool"
	}
	if it.IsError {
		e.push(secErrors, i, name+": "+oneLine(errorLine(t), capErrorLine))
		return
	}
	if i < e.errorScanFrom {
		return
	}
	head, tail := scanWindows(it)
	e.errorLines(i, name, head)
	e.errorLines(i, name, tail)
}

// errorLines pushes the lines of t that look like an error report: a line (trimmed, its first
// scanLineBytes bytes) that starts with one of outputErrorStarts or contains one of
// outputErrorContains.
func (e *extractor) errorLines(i int, name, t string) {
	if t == "" {
		return
	}
	e.lower = lowerASCII(e.lower, t)
	e.hits.find(e.lower, outputErrorSet)
	for ls := 0; ls < len(t); {
		ts, te, next := nextLine(t, ls)
		ls = next
		if ts == te {
			continue
		}
		cut := ts + clipLen(t[ts:te], scanLineBytes)
		if startsWithAny(e.lower[ts:cut], outputErrorStarts) || e.hits.any(ts, cut) {
			e.push(secErrorLines, i, name+": "+oneLine(t[ts:te], capErrorLine))
		}
	}
}

// toolScanBytes bounds how much of one tool result is searched for error lines: its first and
// last toolScanBytes/2 bytes, cut at line boundaries. Tools report failures at the start (a
// usage error) or the end (a test summary, a stack trace's last frames); searching every line
// of a 200 KB log would make the extractive summarizer cost more than reading the transcript.
const toolScanBytes = 2 * ToolEndBytes

// ToolEndBytes is the most any summarizer reads of either end of a tool result (the extractive
// error-line search; previews read 1,200 and 600 characters, at most 4,800 and 2,400 bytes).
const ToolEndBytes = 8 << 10

// scanWindows returns the parts of a tool result to search: all of it when short, else its head
// and tail. An item read only at its ends (Item.Tail) has at least that much of each.
func scanWindows(it transcript.Item) (head, tail string) {
	t, end := it.Text, it.Tail
	if end == "" {
		if len(t) <= toolScanBytes {
			return t, ""
		}
		end = t
	}
	head = clip(t, toolScanBytes/2)
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i]
	}
	tail = end[max(len(end)-toolScanBytes/2, 0):]
	if i := strings.IndexByte(tail, '\n'); i >= 0 {
		tail = tail[i+1:]
	}
	return head, tail
}

// errorLine picks the telling line of a failed tool result: the first line with an error cue,
// else the first non-empty line; it reads at most the first 200 lines and toolScanBytes/2 bytes.
func errorLine(t string) string {
	t = clip(t, toolScanBytes/2)
	first := ""
	var low []byte
	n := 0
	for rest := t; rest != "" && n < 200; n++ {
		line, more, _ := strings.Cut(rest, "\n")
		rest = more
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		low = lowerASCII(low, clip(line, scanLineBytes))
		for _, c := range errorCues {
			if bytes.Contains(low, []byte(c)) {
				return line
			}
		}
	}
	if first == "" {
		return "(no output)"
	}
	return first
}

// scanTokens collects file paths and identifiers from free text.
func (e *extractor) scanTokens(i int, t string) {
	for k := 0; k < len(t); {
		for k < len(t) && sepByte[t[k]] {
			k++
		}
		start := k
		// A word of lowercase ASCII letters only, most of prose, is neither a path nor an
		// identifier (the checks below all need a capital, digit, dot, slash or underscore).
		plain := true
		for k < len(t) && !sepByte[t[k]] {
			plain = plain && t[k]-'a' < 26
			k++
		}
		if k == start || plain {
			continue
		}
		tok := strings.TrimRight(t[start:k], ".,:;!?")
		tok = strings.TrimLeft(tok, "@")
		if len(tok) < 3 || len(tok) > capToken {
			continue
		}
		call := k < len(t) && t[k] == '('
		switch {
		case strings.HasPrefix(tok, "http://") || strings.HasPrefix(tok, "https://"):
			e.push(secIdentifiers, i, tok)
		case isPath(tok):
			e.push(secFiles, i, tok)
		case call && isCodeName(tok):
			e.push(secIdentifiers, i, tok+"()")
		case isIdentifier(tok):
			e.push(secIdentifiers, i, tok)
		}
	}
}
