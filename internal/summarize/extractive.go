package summarize

import (
	"bytes"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

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
	items         []Item
}

func newExtractor(items []Item, target int) *extractor {
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
					charsOf[i] = it.chars()
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
func errorScanFrom(items []Item) int {
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
func (e *extractor) mark(i int, it Item) {
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

func (e *extractor) add(i int, it Item) {
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

func (e *extractor) userText(i int, it Item) {
	t := strings.TrimSpace(it.Text)
	if t == "" {
		return
	}
	e.lastUser = i
	e.push(secRequests, i, oneLine(t, capRequest))
	t = clip(t, scanTextBytes)
	e.scanProse(i, t, prose.Blank(t), ruleSet, secRules) // rules from the user's own prose only
}

func (e *extractor) assistantText(i int, it Item) {
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
func (e *extractor) toolCall(i int, it Item) {
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

func (e *extractor) toolResult(i int, it Item) {
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
func scanWindows(it Item) (head, tail string) {
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

var sepByte = func() (t [256]bool) {
	for c := range t {
		t[c] = isSep(byte(c))
	}
	return t
}()

func isSep(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '`', '(', ')', '[', ']', '{', '}', '<', '>', ',', ';', '|', '=', '*':
		return true
	}
	return false
}

// knownExt are extensions that make a bare word ("main.go") a file name.
var knownExt = map[string]bool{
	"go": true, "mod": true, "sum": true, "py": true, "js": true, "mjs": true, "cjs": true, "ts": true,
	"tsx": true, "jsx": true, "rs": true, "java": true, "kt": true, "c": true, "h": true, "cc": true,
	"cpp": true, "hpp": true, "cs": true, "rb": true, "php": true, "swift": true, "md": true,
	"txt": true, "json": true, "jsonl": true, "yaml": true, "yml": true, "toml": true, "ini": true,
	"cfg": true, "conf": true, "env": true, "sh": true, "bash": true, "zsh": true, "ps1": true,
	"sql": true, "html": true, "css": true, "scss": true, "xml": true, "csv": true, "tsv": true,
	"lock": true, "proto": true, "tf": true, "gradle": true, "vue": true, "svelte": true, "lua": true,
	"ex": true, "exs": true, "hs": true, "scala": true, "dart": true, "zig": true, "log": true,
	"diff": true, "patch": true, "txtar": true, "tmpl": true, "mk": true, "ipynb": true, "gz": true,
	"zip": true, "tar": true, "db": true, "sqlite": true, "png": true, "jpg": true, "svg": true, "pdf": true,
}

var knownBareFiles = map[string]bool{
	"Makefile": true, "Dockerfile": true, "Containerfile": true, "Justfile": true, "Gemfile": true,
	"Rakefile": true, "Procfile": true, "LICENSE": true, "CLAUDE.md": true, "AGENTS.md": true,
}

// isPath recognizes file paths without a regex: absolute or relative paths with a slash,
// Windows drive paths, and bare names with a known extension.
func isPath(t string) bool {
	if len(t) >= 4 && isASCIILetter(t[0]) && t[1] == ':' && (t[2] == '\\' || t[2] == '/') {
		return validPathChars(t[3:])
	}
	if strings.Contains(t, "//") || !validPathChars(t) {
		return false
	}
	slashes := strings.Count(t, "/") + strings.Count(t, "\\")
	if slashes == 0 {
		return knownBareFiles[t] || (knownExt[ext(t)] && !strings.HasPrefix(t, "."))
	}
	switch {
	case strings.HasPrefix(t, "/") && len(t) > 2, strings.HasPrefix(t, "./"), strings.HasPrefix(t, "../"), strings.HasPrefix(t, "~/"):
		return true
	case ext(t) != "" && !allDigits(ext(t)):
		return true
	case strings.HasSuffix(t, "/"), slashes >= 2:
		return true
	}
	return false
}

// validPathChars: letters (any script), digits, and . _ - ~ @ + / \ ; at least one letter.
func validPathChars(t string) bool {
	letter := false
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case isASCIILetter(c), c >= 0x80:
			letter = true
		case c >= '0' && c <= '9', c == '.', c == '_', c == '-', c == '~', c == '@', c == '+', c == '/', c == '\\':
		default:
			return false
		}
	}
	return letter
}

// ext returns the extension of the last path segment ("" if none or implausible).
func ext(t string) string {
	seg := t[strings.LastIndexAny(t, "/\\")+1:]
	i := strings.LastIndexByte(seg, '.')
	if i <= 0 || i == len(seg)-1 || len(seg)-i-1 > 8 {
		return ""
	}
	x := seg[i+1:]
	for j := 0; j < len(x); j++ {
		if !isASCIILetter(x[j]) && (x[j] < '0' || x[j] > '9') {
			return ""
		}
	}
	return strings.ToLower(x)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

func isASCIILetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

func isHex(c byte) bool { return (c >= '0' && c <= '9') || ((c|0x20) >= 'a' && (c|0x20) <= 'f') }

// isCodeName: a name followed by "(" that looks like code (has _ . or inner capitals).
func isCodeName(t string) bool {
	if !isWordChars(t) {
		return false
	}
	return strings.ContainsAny(t, "_.") || innerUpper(t)
}

// isIdentifier recognizes hashes (≥7 hex with a digit and a letter), UUIDs, --flags,
// snake_case/ENV_NAMES, camelCase and dotted names with a capital (pkg.Func).
func isIdentifier(t string) bool {
	if len(t) >= 7 && len(t) <= 64 {
		digit, letter, hex := false, false, true
		for i := 0; i < len(t); i++ {
			c := t[i]
			if !isHex(c) {
				hex = false
				break
			}
			if c <= '9' {
				digit = true
			} else {
				letter = true
			}
		}
		if hex && digit && letter {
			return true
		}
	}
	if len(t) == 36 && t[8] == '-' && t[13] == '-' && t[18] == '-' && t[23] == '-' {
		ok := true
		for i := 0; i < len(t) && ok; i++ {
			ok = t[i] == '-' || isHex(t[i])
		}
		if ok {
			return true
		}
	}
	if strings.HasPrefix(t, "--") && len(t) >= 4 && isASCIILetter(t[2]) {
		return isWordChars(strings.ReplaceAll(t[2:], "-", "_"))
	}
	if !isWordChars(t) || !isASCIILetter(t[0]) && t[0] != '_' {
		return false
	}
	if strings.Contains(t, "_") && strings.Trim(t, "_") == t && len(t) >= 4 {
		return true
	}
	if innerUpper(t) {
		return true
	}
	if i := strings.IndexByte(t, '.'); i > 0 && i+1 < len(t) && t[i+1] >= 'A' && t[i+1] <= 'Z' {
		return true
	}
	return false
}

func isWordChars(t string) bool {
	for i := 0; i < len(t); i++ {
		c := t[i]
		if !isASCIILetter(c) && (c < '0' || c > '9') && c != '_' && c != '.' {
			return false
		}
	}
	return t != "" && !strings.HasSuffix(t, ".") && !strings.HasPrefix(t, ".")
}

// innerUpper: a lowercase letter directly followed by an uppercase one (camelCase, NewOllama).
func innerUpper(t string) bool {
	for i := 1; i < len(t); i++ {
		if t[i] >= 'A' && t[i] <= 'Z' && t[i-1] >= 'a' && t[i-1] <= 'z' {
			return true
		}
	}
	return false
}

// Shares of the budget, in characters, and the room render keeps.
const (
	lastAskShare   = 3   // the last request takes at most a third of the budget,
	minLastAsk     = 200 // but may take this much whatever the budget, room permitting
	lastStateShare = 5   // the assistant's last words take at most a fifth of the budget
	noteReserve    = 80  // kept free for the closing note that counts the lines left out
	bufferSlack    = 64  // output capacity beyond the budget: a first guess, the budget counting code points
)

// The characters a summary spends beyond its lines' text, as render counts them: a block (a
// section's title, the closing note) brings a blank line before it and its own line break, and
// every line its line break.
const (
	blockBreaks = 2
	lineBreak   = 1
)

// leftOutPrefix opens the closing note; summaryLines drops that note when it reads an earlier
// summary back.
const leftOutPrefix = "(ctxc extractive summary"

// render fills the budget: the last user request (always), the last state, then one line per
// section per round in pickOrder until nothing else fits; a final note counts what was left out.
func (e *extractor) render(budget int) string {
	lastAsk := e.lastAskLines(budget)
	used := 0
	if lastAsk != nil {
		used = sectionCost(titleLastRequest, lastAsk)
	}
	lastState := e.lastStateLines(budget)
	if lastState != nil {
		if cost := sectionCost(titleLastState, lastState); used+cost+noteReserve <= budget {
			used += cost
		} else {
			lastState = nil
		}
	}
	cands, total := e.candidates()
	chosen, taken, used := pickWithinBudget(cands, used, budget)

	var b strings.Builder
	b.Grow(budget + bufferSlack)
	writeChosen(&b, chosen)
	writeSection(&b, titleLastState, lastState)
	writeLeftOutNote(&b, total-taken, used, budget)
	writeSection(&b, titleLastRequest, lastAsk)
	return strings.TrimRight(b.String(), "\n")
}

// lastAskLines is the last user request as its section's one line, whole as far as room and
// capLastAsk allow: the next agent must know what it was asked. It is nil when no user spoke.
func (e *extractor) lastAskLines(budget int) []string {
	if e.lastUser < 0 {
		return nil
	}
	it := e.items[e.lastUser]
	prefix := lineTag(it.Line)
	room := budget - sectionCost(titleLastRequest, []string{prefix})
	n := max(min(capLastAsk, max(budget/lastAskShare, minLastAsk), room), 0)
	return []string{prefix + capRunes(strings.TrimSpace(it.Text), n)}
}

// lastStateLines says where the work stood: the assistant's last words and the tool call it
// made after them. It is nil when the assistant neither spoke nor called a tool.
func (e *extractor) lastStateLines(budget int) []string {
	var lines []string
	if e.lastAsst >= 0 {
		it := e.items[e.lastAsst]
		lines = append(lines, lineTag(it.Line)+"assistant: "+oneLine(it.Text, min(capLastState, budget/lastStateShare)))
	}
	if e.lastCall >= 0 {
		it := e.items[e.lastCall]
		lines = append(lines, lineTag(it.Line)+"then called "+it.Name+": "+oneLine(callSummary(it), capLastCall))
	}
	return lines
}

// candidates lists each section's lines in the order the budget is offered them (see
// pickSequence), and how many there are in all. The last request is left out of User requests,
// having a section of its own; the lines of the latest earlier summary come last under Earlier
// summary, in their own order.
func (e *extractor) candidates() (cands [numSections][]entry, total int) {
	for s := range cands {
		list := e.buckets[s].entries()
		if section(s) == secRequests && e.lastUser >= 0 {
			list = withoutItem(list, e.lastUser)
		}
		cands[s] = pickSequence(section(s), list)
		total += len(cands[s])
	}
	earlier := e.earlierSummaryEntries()
	cands[secEarlier] = append(cands[secEarlier], earlier...)
	return cands, total + len(earlier)
}

// withoutItem drops the candidates that came from one item.
func withoutItem(list []entry, item int) []entry {
	kept := list[:0:0]
	for _, en := range list {
		if en.item != item {
			kept = append(kept, en)
		}
	}
	return kept
}

// earlierSummaryEntries makes candidates of the content lines of the latest earlier summary, so
// that what an earlier compaction kept can survive this one.
func (e *extractor) earlierSummaryEntries() []entry {
	if e.lastSummary < 0 {
		return nil
	}
	var out []entry
	for _, line := range summaryLines(e.items[e.lastSummary].Text) {
		e.seq++
		out = append(out, entry{order: e.seq, item: e.lastSummary, text: oneLine(line, capSentence)})
	}
	return out
}

// pickWithinBudget offers the candidates one per section per round, in pickOrder, so that every
// section gets a share and the more important ones are served first. A line that does not fit
// with room left for the closing note is passed over, and shorter ones after it may still fit;
// a section's title is paid for with its first line. It returns the chosen lines, how many they
// are, and the characters used in all.
func pickWithinBudget(cands [numSections][]entry, used, budget int) ([numSections][]entry, int, int) {
	var chosen [numSections][]entry
	var pos [numSections]int
	opened := map[string]bool{}
	taken := 0
	for progress := true; progress; {
		progress = false
		for _, s := range pickOrder {
			if pos[s] >= len(cands[s]) {
				continue
			}
			en := cands[s][pos[s]]
			pos[s]++
			progress = true
			title := sectionTitle[s]
			cost := estimate.Chars(bulletText(s, en)) + lineBreak
			if !opened[title] {
				cost += estimate.Chars(title) + blockBreaks
			}
			if used+cost+noteReserve > budget {
				continue
			}
			used += cost
			opened[title] = true
			chosen[s] = append(chosen[s], en)
			taken++
		}
	}
	return chosen, taken, used
}

// writeChosen writes the chosen lines section by section in output order, each section in
// chronological order; error lines of successful tool output join the Errors section.
func writeChosen(b *strings.Builder, chosen [numSections][]entry) {
	for s := section(0); s < numSections; s++ {
		if s == secErrorLines {
			continue // written with secErrors
		}
		list := chosen[s]
		if s == secErrors {
			list = append(append([]entry(nil), chosen[secErrors]...), chosen[secErrorLines]...)
		}
		sort.Slice(list, func(i, j int) bool { return list[i].order < list[j].order })
		lines := make([]string, len(list))
		for i, en := range list {
			lines[i] = bulletText(s, en)
		}
		writeSection(b, sectionTitle[s], lines)
	}
}

// writeSection writes a titled section, after a blank line when text precedes it; a section
// without lines is not written at all.
func writeSection(b *strings.Builder, title string, lines []string) {
	if len(lines) == 0 {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(title)
	b.WriteByte('\n')
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// writeLeftOutNote tells the reader how many candidate lines did not fit, so that the summary
// reads as partial; the note is written only if it fits the budget too.
func writeLeftOutNote(b *strings.Builder, dropped, used, budget int) {
	if dropped <= 0 {
		return
	}
	note := leftOutPrefix + ": " + strconv.Itoa(dropped) + " more lines left out to fit the target)"
	if used+estimate.Chars(note)+blockBreaks > budget {
		return
	}
	if b.Len() > 0 {
		b.WriteByte('\n')
	}
	b.WriteString(note)
	b.WriteByte('\n')
}

// pickSequence orders a section's candidates by importance: newest first, except that the
// first user request (the task) leads its section and an earlier summary is read in order.
func pickSequence(s section, list []entry) []entry {
	out := make([]entry, 0, len(list))
	if s == secRequests && len(list) > 0 {
		out = append(out, list[0])
		list = list[1:]
	}
	for i := len(list) - 1; i >= 0; i-- {
		out = append(out, list[i])
	}
	return out
}

func bulletText(s section, en entry) string {
	switch s {
	case secRequests, secRules, secDecisions, secErrors, secErrorLines:
		return "- " + lineTag(en.line) + en.text
	}
	return "- " + en.text
}

func lineTag(line int) string {
	if line > 0 {
		return "[line " + strconv.Itoa(line) + "] "
	}
	return ""
}

func sectionCost(title string, lines []string) int {
	n := estimate.Chars(title) + blockBreaks
	for _, l := range lines {
		n += estimate.Chars(l) + lineBreak
	}
	return n
}

// summaryLines returns the content lines of an earlier summary (headings and "none" dropped).
func summaryLines(t string) []string {
	var out []string
	for rest := t; rest != ""; {
		line, more, _ := strings.Cut(rest, "\n")
		rest = more
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.TrimLeft(line, "-*•"))
		if line == "" || strings.HasPrefix(line, "#") || strings.EqualFold(line, "none") ||
			strings.HasPrefix(line, leftOutPrefix) {
			continue
		}
		out = append(out, line)
		if len(out) >= 400 {
			break
		}
	}
	return out
}

func callSummary(it Item) string {
	args := strings.TrimSpace(it.Text)
	obj := strings.HasPrefix(args, "{")
	if agent.KindOf(it.Name) == agent.ShellTool {
		if c := commandFromArgs(args, obj); c != "" {
			return c
		}
	}
	if obj {
		for _, k := range agent.PathKeys() {
			if v := gjson.Get(args, k); v.Type == gjson.String && v.Str != "" {
				return v.Str
			}
		}
	}
	return clip(args, 300)
}

// sentenceAround returns the sentence of line that contains byte offset k.
func sentenceAround(line string, k int) string {
	start := k
	for start > 0 && k-start < 200 {
		c := line[start-1]
		if (c == '.' || c == '!' || c == '?') && start < len(line) && line[start] == ' ' {
			break
		}
		start--
	}
	end := k
	for end < len(line) && end-k < 250 {
		c := line[end]
		end++
		if (c == '.' || c == '!' || c == '?') && (end == len(line) || line[end] == ' ') {
			break
		}
	}
	for start > 0 && !utf8.RuneStart(line[start]) {
		start--
	}
	for end < len(line) && !utf8.RuneStart(line[end]) {
		end++
	}
	return line[start:end]
}

// oneLine collapses whitespace and caps s at n code points (with "…"). It reads only as much of
// s as it needs, so a huge message costs O(n).
func oneLine(s string, n int) string {
	var b strings.Builder
	count := 0
	space := false
	for _, r := range s {
		if r == ' ' || r == '\n' || r == '\t' || r == '\r' {
			space = count > 0
			continue
		}
		if count >= n {
			b.WriteString("…")
			break
		}
		if space {
			b.WriteByte(' ')
			count++
			space = false
			if count >= n {
				b.WriteString("…")
				break
			}
		}
		b.WriteRune(r)
		count++
	}
	return b.String()
}

// capRunes keeps the first n code points of s (with "…" when cut), preserving line breaks.
func capRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n || utf8.RuneCountInString(s) <= n {
		return s
	}
	i, k := 0, 0
	for i < len(s) && k < n-1 {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
		k++
	}
	if i >= len(s) {
		return s
	}
	return s[:i] + "…"
}

// clip limits s to about n bytes, on a rune boundary.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
