// Package report builds `ctxc report`: one self-contained HTML page (inline CSS and SVG, no
// script, no network) showing a session or an archive. Per session: the context the agent sent
// at each turn against its window (recorded usage where the agent records it, the chars/4
// estimate elsewhere), each compaction marked with its audit (package audit: what it kept and
// lost, the lost facts verbatim), the largest messages, the cost of the recorded usage (package
// usage), the command that resumes it and, in a one-session report, a readable transcript with
// tool calls folded and the compaction boundaries shown. Over an archive: sessions, tokens and
// cost by day, agent, project and model; the sessions nearest their window; the compactions
// that lost the most.
//
// The package imports neither cobra nor viper.
package report

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ctxc/ctxc/internal/audit"
	"github.com/ctxc/ctxc/internal/index"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/ctxc/ctxc/internal/usage"
)

// Options of a report.
type Options struct {
	Prices *usage.Prices
	Window int // context window in tokens for every session (0: each session's own)
	Format transcript.Format
	Strict bool
	Warn   func(transcript.Warning)
	// Transcript keeps each session's readable transcript (a one-session report).
	Transcript bool
	// MaxPoints bounds the points drawn on a session's chart (0: one per turn). A chart with
	// more turns keeps the largest context of each run of turns.
	MaxPoints int
	Top       int // largest messages listed per session
}

// Point is the context the agent sent at one turn.
type Point struct {
	Turn     int   // 0-based among the session's turns
	Line     int   // the line of the response
	Tokens   int64 // the context sent
	Recorded bool  // from the usage the agent recorded; false: the chars/4 estimate
}

// Compaction is one compaction of a session: its audit and where it falls on the chart.
type Compaction struct {
	audit.Compaction
	At float64 // in turns: the compaction is between turn floor(At) and the next
}

// Lost is how many facts the compaction lost.
func (c *Compaction) LostFacts() int { return c.Total.Facts - c.Total.Kept }

// Entry is one message of the readable transcript.
type Entry struct {
	Line     int
	Role     string
	Summary  bool   // a compaction's summary
	Boundary int    // > 0: compaction number Boundary happened just before this entry
	Text     string // its text, shortened
	Tools    []Tool // tool calls and results, folded on the page
}

// Tool is a tool call or result of the transcript.
type Tool struct {
	Kind  string // call or result
	Name  string
	Text  string // arguments or result, shortened
	Chars int    // its whole length
	Error bool
}

// Amount is tokens and cost.
type Amount struct {
	Sessions int
	Tokens   int64
	USD      float64
}

// Session is one session of the report.
type Session struct {
	Path, Format, ID, Project, Model, Resume string
	Start, End                               time.Time
	Stats                                    *transcript.Stats
	Cost                                     *usage.Cost
	Days                                     map[string]*Amount // recorded tokens and cost by the day of each response (UTC)
	Window                                   int
	WindowFrom                               string // where the window comes from
	Last                                     int64  // the context of the last turn
	LastRecorded                             bool
	Turns                                    int
	Points                                   []Point
	Compactions                              []Compaction
	Entries                                  []Entry
	Note                                     string // what could not be shown (an audit that failed)
}

// Fill is how full the window was at the last turn (0 with no window).
func (s *Session) Fill() float64 {
	if s.Window <= 0 {
		return 0
	}
	return float64(s.Last) / float64(s.Window)
}

// Tokens is the recorded usage's tokens, else the estimate of the whole history.
func (s *Session) Tokens() int64 {
	var n int64
	for _, m := range s.Cost.Models {
		n += m.Total()
	}
	if n == 0 {
		return s.Stats.Tokens
	}
	return n
}

// Analyze reads one session for the report.
func Analyze(ctx context.Context, path string, o Options) (*Session, error) {
	res, err := transcript.ScanFile(path, transcript.Options{Format: o.Format, Strict: o.Strict, Warn: o.Warn, Top: o.Top})
	if err != nil {
		return nil, err
	}
	st := res.Stats
	s := &Session{Path: path, Format: string(st.Format), Stats: st}
	us, err := usage.FileSession(path, st.Format)
	if err != nil {
		return nil, err
	}
	s.ID, s.Project, s.Start, s.End = us.ID, us.Project, us.Start, us.End
	s.price(us.Responses, o.Prices)
	if err := s.turns(path, us.Responses, o); err != nil {
		return nil, err
	}
	if len(st.Records) > 0 {
		s.audit(ctx, path)
	}
	s.window(o)
	s.Resume = index.ResumeCommand(s.Format, s.ID, s.Project, path)
	s.Points = downsample(s.Points, o.MaxPoints)
	return s, nil
}

// price sums the recorded usage's cost, by model and by day.
func (s *Session) price(rs []usage.Response, p *usage.Prices) {
	s.Cost = p.Sum(rs)
	if len(s.Cost.Models) > 0 {
		s.Model = s.Cost.Models[0].Model
		best := 0
		for _, m := range s.Cost.Models {
			if m.Responses > best {
				s.Model, best = m.Model, m.Responses
			}
		}
	}
	s.Days = map[string]*Amount{}
	for _, r := range rs {
		day := "unknown"
		if !r.Time.IsZero() {
			day = r.Time.UTC().Format("2006-01-02")
		}
		a := s.Days[day]
		if a == nil {
			a = &Amount{}
			s.Days[day] = a
		}
		usd, _ := p.Cost(r.Model, r.Tokens)
		a.Tokens += r.Total()
		a.USD += usd
	}
}

// turns finds the context of every turn: the recorded responses' when the agent recorded
// usage, else each assistant message's estimate (the messages of the context before it). The
// history is loaded one compaction at a time only when the estimate or the transcript needs it.
func (s *Session) turns(path string, rs []usage.Response, o Options) error {
	for i, r := range rs {
		s.Points = append(s.Points, Point{Turn: i, Line: r.Line, Tokens: r.Context(), Recorded: true})
	}
	if len(rs) > 0 {
		s.Last, s.LastRecorded = rs[len(rs)-1].Context(), true
	} else {
		s.Last = s.Stats.EffTokens
	}
	if len(rs) > 0 && !o.Transcript {
		s.Turns = len(s.Points)
		return nil
	}
	recs := s.Stats.Records
	ropts := transcript.Options{Format: transcript.Format(s.Format), Windowed: true}
	prev := 0
	for i := 0; i <= len(recs); i++ {
		var ms []transcript.Message
		var err error
		if i < len(recs) {
			_, ms, err = transcript.LoadFileUpTo(path, recs[i].Start, ropts)
		} else {
			_, ms, err = transcript.LoadFile(path, ropts)
		}
		if err != nil {
			return err
		}
		s.segment(ms, prev, i, len(rs) == 0, o.Transcript)
		if i < len(recs) {
			prev = recs[i].Line
		}
	}
	s.Turns = len(s.Points)
	return nil
}

// segment takes the turns and entries of one load: the context up to compaction i+1 (the last
// load: up to the end), whose messages after line prev are new.
func (s *Session) segment(ms []transcript.Message, prev, i int, estimate, keep bool) {
	var running int64
	boundary := i
	for j := range ms {
		m := &ms[j]
		fresh := m.Line > prev || (m.Summary && i > 0)
		if estimate && fresh && m.Role == transcript.RoleAssistant {
			s.Points = append(s.Points, Point{Turn: len(s.Points), Line: m.Line, Tokens: running})
		}
		running += int64(m.Tokens())
		if keep && fresh {
			e := entry(m)
			if boundary > 0 {
				e.Boundary, boundary = boundary, 0
			}
			s.Entries = append(s.Entries, e)
		}
	}
}

// The lengths the transcript keeps of a message's text and of a tool's arguments or result.
const (
	textKeep = 4000
	toolKeep = 1200
)

func entry(m *transcript.Message) Entry {
	e := Entry{Line: m.Line, Role: string(m.Role), Summary: m.Summary, Text: shorten(m.TextContent(), textKeep)}
	for _, b := range m.Blocks {
		switch b.Kind {
		case transcript.BlockToolCall:
			e.Tools = append(e.Tools, Tool{Kind: "call", Name: b.Name, Text: shorten(b.Args, toolKeep), Chars: b.Chars})
		case transcript.BlockToolResult:
			text := b.Text
			if b.Cut {
				text += "\n…\n" + b.Tail
			}
			e.Tools = append(e.Tools, Tool{Kind: "result", Name: b.Name, Text: shorten(text, toolKeep), Chars: b.Chars, Error: b.IsError})
		case transcript.BlockImage:
			e.Tools = append(e.Tools, Tool{Kind: "image", Name: "image"})
		}
	}
	return e
}

// shorten keeps the first n bytes of s, cut at a rune, saying how much was left out.
func shorten(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n… (" + strconv.Itoa(utf8.RuneCountInString(s[cut:])) + " more characters)"
}

// audit measures each compaction and places it among the turns.
func (s *Session) audit(ctx context.Context, path string) {
	cs, err := audit.File(ctx, path, audit.Options{Format: transcript.Format(s.Format)})
	if err != nil {
		s.Note = "audit: " + err.Error()
	}
	for _, c := range cs {
		at := float64(len(s.Points)) - 0.5
		for k, p := range s.Points {
			if p.Line > c.Line {
				at = float64(k) - 0.5
				break
			}
		}
		s.Compactions = append(s.Compactions, Compaction{Compaction: c, At: at})
	}
}

// window decides the session's window: --window, else what the agent recorded, else the
// window of its model in the price table.
func (s *Session) window(o Options) {
	switch {
	case o.Window > 0:
		s.Window, s.WindowFrom = o.Window, "--window"
	case s.Stats.Usage != nil && s.Stats.Usage.ContextWindow > 0:
		s.Window, s.WindowFrom = s.Stats.Usage.ContextWindow, "recorded by the agent"
	case s.Model != "":
		if pr, ok := o.Prices.Lookup(s.Model); ok && pr.Window > 0 {
			s.Window, s.WindowFrom = pr.Window, s.Model+" in the price table"
		}
	}
}

// downsample keeps at most n points: of each run of turns, the one with the largest context.
func downsample(ps []Point, n int) []Point {
	if n <= 0 || len(ps) <= n {
		return ps
	}
	out := make([]Point, 0, n)
	for b := 0; b < n; b++ {
		lo, hi := b*len(ps)/n, (b+1)*len(ps)/n
		best := lo
		for k := lo; k < hi; k++ {
			if ps[k].Tokens > ps[best].Tokens {
				best = k
			}
		}
		out = append(out, ps[best])
	}
	return out
}

// sortedDays lists a map's days in order.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
