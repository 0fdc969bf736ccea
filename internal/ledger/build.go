package ledger

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/prose"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
)

// lazyRegexp returns a function that compiles expr on its first call and then returns the same
// *regexp.Regexp: a command that never needs the expression does not pay for it at start.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// Options bound what Build keeps. Zero values take the defaults.
type Options struct {
	MaxText      int // characters of one rule or request kept verbatim (longer: middle elided); default 2000
	MaxLast      int // characters of the last request kept verbatim; default 4000
	RequestChars int // characters of earlier requests kept, newest first; default 4000
	MaxRead      int // files read kept (the newest); default 20
	MaxRefs      int // URLs, ids and versions kept (the newest); default 40
	MaxErrors    int // unresolved errors kept (the newest); default 5
	// Instructions are the user's instructions for the compaction: the terms they name that
	// occur in the middle are facts too (instructed.go).
	Instructions string
}

func (o Options) withDefaults() Options {
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxText, 2000)
	def(&o.MaxLast, 4000)
	def(&o.RequestChars, 4000)
	def(&o.MaxRead, 20)
	def(&o.MaxRefs, 40)
	def(&o.MaxErrors, 5)
	return o
}

// builder collects facts in conversation order.
type builder struct {
	o        Options
	rules    list
	requests list // chronological
	last     string
	lastLine int
	line     int // source line of the item being read
	modified list
	read     list
	refs     list
	errs     []toolErr
	calls    map[int]string // group → tool name
}

type toolErr struct {
	tool, text string
	line       int
}

// list is an ordered set of facts (by their normalized form). Adding a fact again moves it to
// the end, so "newest" means most recently mentioned.
type list struct {
	items []string
	keys  []string       // "" where an item was moved to the end
	lines []int          // the source line each item was last seen on
	at    map[string]int // key → index of its live item
}

// addAt adds a fact seen on source line line (0: unknown).
func (l *list) addAt(s string, line int) {
	s = strings.TrimSpace(s)
	k := norm(s)
	if k == "" {
		return
	}
	if l.at == nil {
		l.at = map[string]int{}
	}
	if i, ok := l.at[k]; ok {
		l.items[i], l.keys[i] = "", ""
	}
	l.at[k] = len(l.items)
	l.items = append(l.items, s)
	l.keys = append(l.keys, k)
	l.lines = append(l.lines, line)
}

// addToken adds a path, URL or id seen on line; one with a backquote or a line break is not a
// token.
func (l *list) addToken(s string, line int) {
	if strings.ContainsAny(s, "`\n\r") {
		return
	}
	l.addAt(s, line)
}

func (l *list) has(s string) bool {
	_, ok := l.at[norm(s)]
	return ok
}

// all returns the items, their keys and their lines, oldest first.
func (l *list) all() (items, keys []string, lines []int) {
	items = make([]string, 0, len(l.at))
	keys = make([]string, 0, len(l.at))
	lines = make([]int, 0, len(l.at))
	for i, k := range l.keys {
		if k != "" {
			items = append(items, l.items[i])
			keys = append(keys, k)
			lines = append(lines, l.lines[i])
		}
	}
	return items, keys, lines
}

// newest returns the last n items and their lines, in order.
func (l *list) newest(n int) ([]string, []int) {
	items, _, lines := l.all()
	if len(items) > n {
		return items[len(items)-n:], lines[len(lines)-n:]
	}
	return items, lines
}

// Build extracts the ledger of a middle zone from the summarizer's input items.
func Build(items []transcript.Item, o Options) *Ledger {
	b := &builder{o: o.withDefaults(), calls: map[int]string{}}
	for i := range items {
		it := &items[i]
		b.line = it.Line
		switch it.Kind {
		case "summary":
			b.summary(it.Text)
		case "text":
			if it.Role == "user" {
				b.user(it.Text)
			}
		case "tool_call":
			if it.Group != 0 {
				b.calls[it.Group] = it.Name
			}
			b.toolCall(it.Name, it.Text)
		case "tool_result":
			b.toolResult(it)
		}
	}
	l := b.ledger()
	l.instructed(InstructedTerms(o.Instructions), items)
	return l
}

func (b *builder) ledger() *Ledger {
	l := &Ledger{}
	l.ByCat[Rule], _, l.Lines[Rule] = b.rules.all()
	if b.last != "" {
		l.ByCat[LastRequest], l.Lines[LastRequest] = []string{b.last}, []int{b.lastLine}
	}
	l.ByCat[Modified], _, l.Lines[Modified] = b.modified.all()
	l.ByCat[Ref], l.Lines[Ref] = b.refs.newest(b.o.MaxRefs)
	budget := b.o.RequestChars
	lastKey := norm(b.last)
	reqs, reqKeys, reqLines := b.requests.all()
	for i := len(reqs) - 1; i >= 0; i-- {
		r := reqs[i]
		if reqKeys[i] == lastKey {
			continue
		}
		n := len([]rune(r))
		if n > budget {
			break
		}
		budget -= n
		l.ByCat[Request] = append(l.ByCat[Request], r)
		l.Lines[Request] = append(l.Lines[Request], reqLines[i])
	}
	var errs list
	for _, e := range b.errs {
		errs.addAt(e.text, e.line)
	}
	l.ByCat[Error], l.Lines[Error] = errs.newest(b.o.MaxErrors)
	var read list
	readItems, _, readLines := b.read.all()
	for i, r := range readItems {
		if !b.modified.has(r) {
			read.addAt(r, readLines[i])
		}
	}
	l.ByCat[Read], l.Lines[Read] = read.newest(b.o.MaxRead)
	return l
}

// summary reads back the facts of an earlier summary (ctxc's or an agent's own): its carried
// section and whatever its summarizer wrote in the recognized form.
func (b *builder) summary(text string) {
	var last string
	var reqs []string
	for _, f := range parse(text) {
		switch f.Cat {
		case Rule:
			b.rules.addAt(f.Text, b.line)
		case LastRequest:
			last = f.Text
		case Request:
			reqs = append(reqs, f.Text)
		case Modified:
			b.modified.addToken(f.Text, b.line)
		case Read:
			b.read.addToken(f.Text, b.line)
		case Ref:
			b.refs.addToken(f.Text, b.line)
		}
		// Errors of an earlier summary are not "unresolved where the middle ends".
	}
	// Requests are listed newest first.
	for i := len(reqs) - 1; i >= 0; i-- {
		b.requests.addAt(reqs[i], b.line)
	}
	if norm(last) != "" {
		b.requests.addAt(last, b.line)
		b.last, b.lastLine = last, b.line
	}
}

// injectedPrefixes start user-role messages that the harness wrote, not the user.
var injectedPrefixes = []string{
	"Caveat: The messages below were generated by the user while running local commands",
	"# AGENTS.md instructions for",
	"[Request interrupted by user",
	"Ran `", // pi's rendering of a bash execution
	"This session is being continued from a previous conversation",
	"The conversation history before this point was compacted",
}

var tagStart = lazyRegexp(`^<[A-Za-z][A-Za-z0-9_-]*[ >]`)

// injected reports whether a user-role text was written by the harness (environment context,
// command output, reminders) rather than typed by the user.
func injected(t string) bool {
	if tagStart().MatchString(t) {
		return true
	}
	for _, p := range injectedPrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	// A bare slash command ("/model") is for the harness.
	if strings.HasPrefix(t, "/") && !strings.ContainsAny(t, " \n\t") && strings.Count(t, "/") == 1 {
		return true
	}
	return false
}

func (b *builder) user(text string) {
	t := strings.TrimSpace(text)
	if norm(t) == "" || injected(t) {
		return
	}
	b.requests.addAt(elide(t, b.o.MaxText), b.line)
	b.last, b.lastLine = elide(t, b.o.MaxLast), b.line
	if r, ok := ruleText(strings.TrimSpace(prose.Own(t)), b.o.MaxText); ok {
		b.rules.addAt(r, b.line)
	}
	for _, r := range refs(t) {
		b.refs.addToken(r, b.line)
	}
	// A user message starts a new turn: errors before it were seen by the user.
	b.errs = b.errs[:0]
}

// elide keeps s whole when it has at most n characters, else its beginning and end around a
// note.
func elide(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	head := n * 3 / 4
	tail := n - head
	return strings.TrimSpace(string(r[:head])) + " […] " + strings.TrimSpace(string(r[len(r)-tail:]))
}

// ruleCues mark a user message that states a rule or preference.
// "Don't", "stop" and the like count only where they open a sentence or clause (an order), not
// in "I don't understand".
var ruleCues = lazyRegexp(`(?i)\b(always|never|must|mustn'?t|make sure|please use|prefer|avoid|only use|should|shouldn'?t|no need|from now on|instead of|not allowed|forbidden|required)\b|(?:^|[.!?,;:]\s*|\n\s*)(?:please\s+)?(don'?t|do not|stop|remember|keep|use|no)\b`)

// ruleText returns the rule a user message states: the message itself, or, when it is longer
// than max, its sentences that carry a cue.
func ruleText(t string, max int) (string, bool) {
	if !ruleCues().MatchString(t) {
		return "", false
	}
	if len([]rune(t)) <= max {
		return t, true
	}
	var keep []string
	n := 0
	for _, s := range sentences(t) {
		if !ruleCues().MatchString(s) {
			continue
		}
		s = elide(s, 400)
		if n+len([]rune(s)) > max {
			break
		}
		n += len([]rune(s)) + 3
		keep = append(keep, s)
	}
	if len(keep) == 0 {
		return "", false
	}
	return strings.Join(keep, " … "), true
}

var sentenceEnd = lazyRegexp(`[.!?]\s+|\n+`)

func sentences(t string) []string {
	var out []string
	prev := 0
	for _, m := range sentenceEnd().FindAllStringIndex(t, -1) {
		if s := strings.TrimSpace(t[prev:m[1]]); s != "" {
			out = append(out, s)
		}
		prev = m[1]
	}
	if s := strings.TrimSpace(t[prev:]); s != "" {
		out = append(out, s)
	}
	return out
}

var (
	urlRe     = lazyRegexp(`(?i)\b(?:https?|ftp|file|ssh|git)://[^\s<>"'\x60]+`)
	uuidRe    = lazyRegexp(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`)
	shaRe     = lazyRegexp(`\b[0-9a-f]{7,64}\b`)
	versionRe = lazyRegexp(`\bv?\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.-]*[0-9A-Za-z])?\b|\bv\d+\.\d+\b`)
	ticketRe  = lazyRegexp(`\b[A-Z][A-Z0-9]{1,9}-\d+\b`)
)

// refs finds the URLs, ids and versions in a user's text, in order.
// blank replaces the spans ms of s with as many spaces.
func blank(s string, ms [][]int) string {
	if len(ms) == 0 {
		return s
	}
	b := []byte(s)
	for _, m := range ms {
		for i := m[0]; i < m[1]; i++ {
			b[i] = ' '
		}
	}
	return string(b)
}

// hasHexRun reports whether s holds n lowercase hexadecimal digits in a row (what shaRe needs).
func hasHexRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; '0' <= c && c <= '9' || 'a' <= c && c <= 'f' {
			if run++; run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

func refs(t string) []string {
	type hit struct {
		at int
		s  string
	}
	var hits []hit
	// Each pattern runs only on texts that hold what it cannot match without (a cheap search:
	// the ledger reads every user message of the middle, and these regexps were a third of
	// an extractive compaction's time), and its matches are blanked by their indexes rather
	// than by a second pass of the regexp (ReplaceAll finds the same matches as FindAll).
	rest := t
	if strings.Contains(t, "://") {
		ms := urlRe().FindAllStringIndex(t, -1)
		for _, m := range ms {
			u := strings.TrimRight(t[m[0]:m[1]], ".,;:!?)]}'\"")
			hits = append(hits, hit{m[0], u})
		}
		rest = blank(rest, ms)
	}
	for _, p := range []struct {
		re   func() *regexp.Regexp
		need string // a byte every match holds
	}{{uuidRe, "-"}, {versionRe, "."}, {ticketRe, "-"}} {
		if !strings.Contains(rest, p.need) {
			continue
		}
		ms := p.re().FindAllStringIndex(rest, -1)
		for _, m := range ms {
			if inWord(rest, m[0], m[1]) {
				continue // part of a file name or path ("at 01.27.21.png")
			}
			hits = append(hits, hit{m[0], rest[m[0]:m[1]]})
		}
		rest = blank(rest, ms)
	}
	if hasHexRun(rest, 7) {
		for _, m := range shaRe().FindAllStringIndex(rest, -1) {
			s := rest[m[0]:m[1]]
			if strings.ContainsAny(s, "0123456789") && strings.ContainsAny(s, "abcdef") && !inWord(rest, m[0], m[1]) {
				hits = append(hits, hit{m[0], s})
			}
		}
	}
	slices.SortStableFunc(hits, func(a, b hit) int { return a.at - b.at })
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.s)
	}
	return out
}

// inWord reports whether t[i:j] is glued to a path or file name around it.
func inWord(t string, i, j int) bool {
	if i > 0 && strings.IndexByte("./\\-_", t[i-1]) >= 0 {
		return true
	}
	return j+1 < len(t) && (t[j] == '.' || t[j] == '/' || t[j] == '_') && isAlnum(t[j+1])
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// argPath is the file a call's arguments name, at the first of the agents' path keys that holds
// one (internal/agent).
func argPath(args string) string {
	if !gjson.Valid(args) {
		return ""
	}
	for _, k := range agent.PathKeys() {
		if v := gjson.Get(args, k); v.Type == gjson.String && strings.TrimSpace(v.Str) != "" {
			return v.Str
		}
	}
	return ""
}

// toolCall notes the files a call changes or reads, by what the registry says its tool does.
func (b *builder) toolCall(name, args string) {
	switch agent.KindOf(name) {
	case agent.EditTool:
		if p := argPath(args); p != "" {
			b.modified.addToken(p, b.line)
		}
	case agent.ReadTool:
		if p := argPath(args); p != "" {
			b.read.addToken(p, b.line)
		}
	case agent.PatchTool:
		for _, p := range patchFiles(patchInput(args)) {
			b.modified.addToken(p, b.line)
		}
	case agent.ShellTool:
		for _, p := range shellWrites(args) {
			b.modified.addToken(p, b.line)
		}
	}
}

// patchInput is the patch text of an apply_patch call: a custom tool's raw input, or the
// "input"/"patch" field of function arguments, or a JSON string.
func patchInput(args string) string {
	t := strings.TrimSpace(args)
	if gjson.Valid(t) {
		v := gjson.Parse(t)
		switch v.Type {
		case gjson.String:
			return v.Str
		case gjson.JSON:
			for _, k := range []string{"input", "patch"} {
				if s := v.Get(k); s.Type == gjson.String {
					return s.Str
				}
			}
			if c := v.Get("command"); c.IsArray() && len(c.Array()) > 1 {
				return c.Array()[1].String()
			}
		}
	}
	return args
}

var patchLine = lazyRegexp(`(?m)^\*\*\* (?:Add File|Update File|Delete File|Move to): *(.+?)\s*$`)

// patchFiles lists the files an apply_patch patch changes, in order.
func patchFiles(patch string) []string {
	var out []string
	for _, m := range patchLine().FindAllStringSubmatch(patch, -1) {
		out = append(out, m[1])
	}
	return out
}

// shellWrites lists the files a shell tool call writes: apply_patch invocations and commands
// that redirect output to a file or change files (tee, sed -i, touch, rm, mv, cp).
func shellWrites(args string) []string {
	argv, script := shellCommand(args)
	if len(argv) > 0 {
		switch base(argv[0]) {
		case "apply_patch", "applypatch":
			if len(argv) > 1 {
				return patchFiles(argv[1])
			}
			return nil
		}
	}
	if script == "" {
		return nil
	}
	out := patchFiles(script)
	return append(out, scriptWrites(script)...)
}

// shellCommand is the command of a shell tool call: its argv when given as an array, and the
// script a shell would run.
func shellCommand(args string) ([]string, string) {
	if !gjson.Valid(args) {
		return nil, args
	}
	v := gjson.Parse(args)
	if v.Type == gjson.String {
		return nil, v.Str
	}
	var c gjson.Result
	for _, k := range []string{"command", "cmd", "action.command", "script"} {
		if c = v.Get(k); c.Exists() {
			break
		}
	}
	switch {
	case c.Type == gjson.String:
		return nil, c.Str
	case c.IsArray():
		var argv []string
		for _, a := range c.Array() {
			argv = append(argv, a.String())
		}
		if len(argv) >= 3 && isShell(argv[0]) && strings.HasPrefix(argv[1], "-") && strings.Contains(argv[1], "c") {
			return argv, argv[2]
		}
		return argv, strings.Join(argv, " ")
	}
	return nil, ""
}

func isShell(s string) bool {
	switch base(s) {
	case "bash", "sh", "zsh", "dash", "ksh", "fish":
		return true
	}
	return false
}

func base(s string) string {
	if i := strings.LastIndexByte(s, '/'); i >= 0 {
		return s[i+1:]
	}
	return s
}
