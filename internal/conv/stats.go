package conv

import (
	"container/heap"
	"strings"

	"github.com/ctxc/ctxc/internal/estimate"
)

// RoleCounts counts messages by role. A message made only of tool results counts as "tool",
// whatever role its format gives it (Anthropic and Claude Code carry results in user messages).
type RoleCounts struct {
	System    int `json:"system"`
	Developer int `json:"developer"`
	User      int `json:"user"`
	Assistant int `json:"assistant"`
	Tool      int `json:"tool"`
}

// Total is the number of messages.
func (c RoleCounts) Total() int { return c.System + c.Developer + c.User + c.Assistant + c.Tool }

func (c *RoleCounts) Add(r Role) {
	switch r {
	case RoleSystem:
		c.System++
	case RoleDeveloper:
		c.Developer++
	case RoleUser:
		c.User++
	case RoleAssistant:
		c.Assistant++
	case RoleTool:
		c.Tool++
	}
}

// RecordedUsage is what the agent recorded about provider usage.
type RecordedUsage struct {
	Responses     int   `json:"responses"`     // distinct provider responses with usage
	InputTokens   int64 `json:"input_tokens"`  // sum over responses (uncached input)
	OutputTokens  int64 `json:"output_tokens"` // sum over responses
	CacheRead     int64 `json:"cache_read_tokens"`
	CacheWrite    int64 `json:"cache_write_tokens"`
	LastContext   int   `json:"last_context_tokens"`      // context size of the last response: input + cache read + cache write
	ContextWindow int   `json:"context_window,omitempty"` // model window, when the agent recorded it (Codex)
}

// TopMessage is one of the largest messages of a file.
type TopMessage struct {
	Line   int    `json:"line"`
	Role   Role   `json:"role"`
	Tokens int    `json:"tokens"`
	Kind   string `json:"kind"` // what dominates: text, tool_call, tool_result, thinking, image
}

// Stats describes one transcript file (ctxc stats).
type Stats struct {
	Path        string         `json:"path"`
	Format      Format         `json:"format"`
	Bytes       int64          `json:"bytes"`
	Lines       int            `json:"lines"`     // non-blank lines, including bad ones
	BadLines    int            `json:"bad_lines"` // lines that are not valid JSON (skipped)
	BadLineNums []int          `json:"bad_line_numbers,omitempty"`
	Pending     bool           `json:"pending_last_line,omitempty"` // unterminated last line (still being written)
	Messages    RoleCounts     `json:"messages"`
	ToolCalls   int            `json:"tool_calls"`
	ToolResults int            `json:"tool_results"`
	Images      int            `json:"images"`
	Chars       int64          `json:"chars"`
	Tokens      int64          `json:"tokens"` // estimated tokens of the whole history
	Sidechain   int            `json:"sidechain_messages,omitempty"`
	Subagent    bool           `json:"subagent,omitempty"` // a Claude Code subagent file: its sidechain is the conversation
	Markers     int            `json:"markers"`            // ctxc/crabtalk compact markers
	Compactions int            `json:"compactions"`        // compactions recorded by the agent itself
	EffMessages int            `json:"effective_messages"`
	EffTokens   int64          `json:"effective_tokens"` // estimated tokens of the effective context
	Usage       *RecordedUsage `json:"recorded_usage,omitempty"`
	Calibration float64        `json:"calibration,omitempty"` // recorded last context / estimated effective tokens
	Window      int            `json:"window,omitempty"`
	WindowPct   float64        `json:"window_percent,omitempty"`
	Top         []TopMessage   `json:"top,omitempty"`
	Estimator   string         `json:"estimator"`
	// Records says where each compaction (the agent's own or a ctxc marker) is in the file, in
	// file order (ctxc audit reads the context on either side of each).
	Records []CompactionRecord `json:"-"`

	// TopN is how many of the largest messages Top keeps (Options.Top).
	TopN int `json:"-"`
	// OnCounted is Options.Counted: told of each message as it is counted.
	OnCounted func(Counted) `json:"-"`

	top    topHeap
	dedupe map[string]struct{} // provider response ids already counted for usage
}

const maxBadLineNums = 20

// CompactionRecord is where one compaction is written in a file: Start is the first byte of its
// record (a Claude Code compact_boundary, a Codex compacted line, a pi compaction entry, a ctxc
// marker), End the first byte after the records that belong to it: the summary and what the
// agent added with it (Claude Code: the summary message, the command's own lines and the hook
// attachments, up to the next assistant record; ctxc: the tail copies after the marker). The
// file read up to Start gives the context the compaction replaced; up to End, the context right
// after it.
type CompactionRecord struct {
	Line       int
	Start, End int64
}

// WithoutScanState is st without what the scan keeps to count (its largest messages so far, the
// responses whose usage it counted, how many largest messages it keeps).
func (st *Stats) WithoutScanState() Stats {
	v := *st
	v.top, v.TopN, v.dedupe = nil, 0, nil
	return v
}

// TakeTop makes s's largest messages st's.
func (st *Stats) TakeTop(s *Stats) { st.top = s.top }

// AddRecord notes a compaction record at line l.
func (st *Stats) AddRecord(l *Line) {
	st.Records = append(st.Records, CompactionRecord{Line: l.Num, Start: l.Offset, End: l.Offset + int64(l.Size)})
}

// ExtendRecord makes line l part of the newest compaction record.
func (st *Stats) ExtendRecord(l *Line) {
	if n := len(st.Records); n > 0 {
		st.Records[n-1].End = l.Offset + int64(l.Size)
	}
}

func (st *Stats) BadLine(n int) {
	st.BadLines++
	if len(st.BadLineNums) < maxBadLineNums {
		st.BadLineNums = append(st.BadLineNums, n)
	}
}

// CountMessage adds one message of the whole history.
func (st *Stats) CountMessage(m *Message) {
	st.Messages.Add(StatsRole(m))
	st.CountContent(m)
	if st.OnCounted != nil {
		st.TellCounted(Counted{Line: m.Line, Role: StatsRole(m), Tokens: m.Tokens(), Tools: ToolNames(m)})
	}
}

// CountContent adds a message's content without counting a new message: used for the further
// lines of a response that Claude Code split over several lines. prevChars is what the earlier
// lines of the response already counted, so that the response is estimated as one message.
func (st *Stats) CountContinuation(m *Message, prevChars int) {
	st.ToolCalls += m.ToolCalls()
	st.ToolResults += m.ToolResults()
	st.Images += m.Images()
	chars := m.Chars()
	st.Chars += int64(chars)
	tok := ContinuationTokens(m, prevChars)
	st.Tokens += int64(tok)
	if st.OnCounted != nil {
		st.TellCounted(Counted{Line: m.Line, Role: m.Role, Tokens: tok, Tools: ToolNames(m), Continues: true})
	}
}

// ContinuationTokens is what one more line of a split response adds to the response's estimate.
func ContinuationTokens(m *Message, prevChars int) int {
	c := m.Chars()
	return estimate.FromChars(prevChars+c) - estimate.FromChars(prevChars) + m.Images()*estimate.ImageTokens
}

func (st *Stats) CountContent(m *Message) {
	calls, results := m.ToolCalls(), m.ToolResults()
	st.ToolCalls += calls
	st.ToolResults += results
	st.Images += m.Images()
	chars := m.Chars()
	st.Chars += int64(chars)
	tok := m.Tokens()
	st.Tokens += int64(tok)
	if st.TopN > 0 && tok > 0 {
		st.PushTop(TopMessage{Line: m.Line, Role: StatsRole(m), Tokens: tok, Kind: DominantKind(m)})
	}
}

// CountUsage adds a response's recorded usage once per response id (Claude Code writes one
// line per content block, each repeating the usage of the whole response).
func (st *Stats) CountUsage(id string, u Usage, last bool) {
	if st.Usage == nil {
		st.Usage = &RecordedUsage{}
	}
	if id != "" {
		if st.dedupe == nil {
			st.dedupe = map[string]struct{}{}
		}
		if _, seen := st.dedupe[id]; seen {
			if last {
				st.Usage.LastContext = u.Input + u.CacheRead + u.CacheWrite
			}
			return
		}
		st.dedupe[id] = struct{}{}
	}
	st.Usage.Responses++
	st.Usage.InputTokens += int64(u.Input)
	st.Usage.OutputTokens += int64(u.Output)
	st.Usage.CacheRead += int64(u.CacheRead)
	st.Usage.CacheWrite += int64(u.CacheWrite)
	if last {
		st.Usage.LastContext = u.Input + u.CacheRead + u.CacheWrite
	}
}

// RoleConst returns r as one of the Role constants when it is one, else a copy.
func RoleConst(r Role) Role {
	for _, c := range []Role{RoleUser, RoleAssistant, RoleTool, RoleSystem, RoleDeveloper} {
		if r == c {
			return c
		}
	}
	return Role(strings.Clone(string(r)))
}

func StatsRole(m *Message) Role {
	if len(m.Blocks) > 0 && m.ToolResults() == len(m.Blocks) {
		return RoleTool
	}
	return m.Role
}

func DominantKind(m *Message) string {
	best, bestChars := "text", -1
	for _, b := range m.Blocks {
		c := b.Chars
		if b.Kind == BlockImage {
			c = estimate.ImageTokens * estimate.CharsPerToken
		}
		if c > bestChars {
			best, bestChars = b.Kind.String(), c
		}
	}
	return best
}

// finishStats fills the derived fields.
func (st *Stats) Finish(window int) {
	st.Estimator = estimate.Name
	if st.Usage != nil && st.Usage.LastContext > 0 && st.EffTokens > 0 {
		st.Calibration = float64(st.Usage.LastContext) / float64(st.EffTokens)
	}
	if window > 0 {
		st.Window = window
		st.WindowPct = 100 * float64(st.EffTokens) / float64(window)
	}
	if st.TopN > 0 {
		st.Top = make([]TopMessage, len(st.top))
		for i := len(st.top) - 1; i >= 0; i-- {
			st.Top[i] = heap.Pop(&st.top).(TopMessage)
		}
	}
	st.dedupe = nil
}

func (st *Stats) PushTop(t TopMessage) {
	t.Role = RoleConst(t.Role) // the role may point into a line buffer that is reused
	if len(st.top) < st.TopN {
		heap.Push(&st.top, t)
		return
	}
	if t.Tokens > st.top[0].Tokens {
		st.top[0] = t
		heap.Fix(&st.top, 0)
	}
}

// topHeap is a min-heap by tokens, so the smallest of the kept N is dropped first.
type topHeap []TopMessage

func (h topHeap) Len() int { return len(h) }
func (h topHeap) Less(i, j int) bool {
	if h[i].Tokens != h[j].Tokens {
		return h[i].Tokens < h[j].Tokens
	}
	return h[i].Line > h[j].Line
}
func (h topHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *topHeap) Push(x any)   { *h = append(*h, x.(TopMessage)) }
func (h *topHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Counted is one message of a whole history as `ctxc stats` counts it, told to
// Options.Counted as the scan counts it: ctxc export writes a row for each, so that its tables
// add up to the statistics.
type Counted struct {
	Line   int  // the line the message came from (0 when synthesized)
	Role   Role // as stats counts it: a message of tool results only is RoleTool
	Tokens int  // what the message adds to Stats.Tokens
	// Tools are the names of the tool calls the message makes.
	Tools []string
	// Continues: the line is one more part of the response counted just before (Claude Code
	// writes a response's blocks on lines of their own): Tokens add to that message, no new
	// message is counted.
	Continues bool
	// Retracted: the messages counted for Line are taken back (a Gemini CLI record rewritten
	// later in the file); Tokens is then what they had added, negated.
	Retracted bool
	// Sidechain: the message is a subagent's (Claude Code isSidechain): counted only when the
	// file is the subagent's own (Stats.Subagent).
	Sidechain bool
}

// TellCounted tells the caller's Options.Counted of one counted message.
func (st *Stats) TellCounted(c Counted) {
	if st.OnCounted != nil {
		st.OnCounted(c)
	}
}

// ToolNames are the names of the tool calls of m.
func ToolNames(m *Message) []string {
	var names []string
	for i := range m.Blocks {
		if b := &m.Blocks[i]; b.Kind == BlockToolCall {
			names = append(names, b.Name)
		}
	}
	return names
}

func (c *RoleCounts) Sub(r Role) {
	switch r {
	case RoleSystem:
		c.System--
	case RoleDeveloper:
		c.Developer--
	case RoleUser:
		c.User--
	case RoleAssistant:
		c.Assistant--
	case RoleTool:
		c.Tool--
	}
}
