package usage

import (
	"bufio"
	"io"
	"sort"
	"strings"
	"time"
	"unsafe"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Tokens are one response's recorded usage by kind. Input is the uncached input; CacheWrite
// counts every cache write, CacheWrite1h the part of it written to the one-hour cache.
type Tokens struct {
	Input        int64 `json:"input_tokens"`
	Output       int64 `json:"output_tokens"`
	CacheWrite   int64 `json:"cache_write_tokens"`
	CacheWrite1h int64 `json:"cache_write_1h_tokens,omitempty"`
	CacheRead    int64 `json:"cache_read_tokens"`
}

// Context is the context the response was sent: input, cache writes and cache reads.
func (t Tokens) Context() int64 { return t.Input + t.CacheWrite + t.CacheRead }

// Total is every token of the response.
func (t Tokens) Total() int64 { return t.Context() + t.Output }

func (t *Tokens) add(o Tokens) {
	t.Input += o.Input
	t.Output += o.Output
	t.CacheWrite += o.CacheWrite
	t.CacheWrite1h += o.CacheWrite1h
	t.CacheRead += o.CacheRead
}

func (t Tokens) zero() bool { return t == Tokens{} }

// Response is one provider response whose usage the agent recorded.
type Response struct {
	Line  int       // the line that recorded it
	Time  time.Time // zero when the agent wrote no time
	Model string    // "" when the agent did not say
	Tokens
}

// Recorded says whether Read understands the usage of format f: the agents that record it per
// response with its model (the registry's UsageProbes).
func Recorded(f transcript.Format) bool {
	return len(f.Agent().UsageProbes) > 0
}

// Session is what a session file says of itself and the responses it records.
type Session struct {
	ID        string    // the agent's session id ("" when it writes none)
	Project   string    // the folder the agent worked in ("" when not recorded)
	Start     time.Time // the first time a record gives (zero: none)
	End       time.Time // the last response's time, else Start
	Responses []Response
}

// File reads the responses a session file records (see Read).
func File(path string, format transcript.Format) ([]Response, error) {
	s, err := FileSession(path, format)
	if err != nil {
		return nil, err
	}
	return s.Responses, nil
}

// FileSession reads a session file's identity and the responses it records (see ReadSession).
func FileSession(path string, format transcript.Format) (*Session, error) {
	f, err := transcript.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s, err := ReadSession(f, format)
	if err == nil {
		s.ID = format.Agent().SessionID(s.ID, path)
	}
	return s, err
}

// FileProject is the project folder a session file records (Claude Code's cwd, Codex's
// session_meta, pi's session record...), read from its first lines only: "" when it records none.
func FileProject(path string, format transcript.Format) (string, error) {
	f, err := transcript.OpenFile(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s, err := ReadSession(&firstLines{r: bufio.NewReader(f), left: describeLines}, format)
	if err != nil {
		return "", err
	}
	return s.Project, nil
}

// firstLines reads whole lines of r until left lines were read, then reports the end.
type firstLines struct {
	r    *bufio.Reader
	left int
	rest []byte // the unread part of the line being read
}

func (l *firstLines) Read(p []byte) (int, error) {
	if len(l.rest) == 0 {
		if l.left == 0 {
			return 0, io.EOF
		}
		line, err := l.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			l.rest = line // a long line: the rest of it comes in the next reads
		} else if err != nil && len(line) == 0 {
			return 0, err
		} else {
			l.rest, l.left = line, l.left-1
		}
	}
	n := copy(p, l.rest)
	l.rest = l.rest[n:]
	return n, nil
}

// describeLines is how many of a session's first lines are read for its id, folder and start.
const describeLines = 64

// Read reads the responses recorded in a session of the given format, in file order. Claude
// Code writes a response's usage on each line of the response, its output tokens growing as the
// response streams: it is counted once per message id and request id, with the figures of its
// last line (what ccusage counts too). Codex's token_count events give each
// response's usage (a repeat whose running total did not change is not counted again) and its
// turn_context the model. pi records usage on each assistant message. Lines that are not valid
// JSON are skipped (stats and lint say which). Other formats record no usage: none. An unknown
// format (a stream read before its format is known) is read by every rule: their records differ.
func Read(r io.Reader, format transcript.Format) ([]Response, error) {
	if format != transcript.FormatUnknown && !Recorded(format) {
		return nil, nil
	}
	s, err := ReadSession(r, format)
	if err != nil {
		return nil, err
	}
	return s.Responses, nil
}

// ReadSession is Read with what the session's first lines say of it: its id, its folder and its
// first time (Claude Code's sessionId and cwd, Codex's session_meta, pi's and droid's session
// record, Copilot CLI's session.start).
func ReadSession(r io.Reader, format transcript.Format) (*Session, error) {
	rd := reader{seen: map[string]int{}, want: patterns(format)}
	if err := scanLines(r, rd.want, func(_ int, b []byte) { rd.describe(b) }, rd.line); err != nil {
		return nil, err
	}
	s := &rd.sess
	s.Responses = rd.out
	for _, r := range rd.out {
		if !r.Time.IsZero() {
			if s.Start.IsZero() || r.Time.Before(s.Start) {
				s.Start = r.Time
			}
			if r.Time.After(s.End) {
				s.End = r.Time
			}
		}
	}
	if s.End.IsZero() {
		s.End = s.Start
	}
	return s, nil
}

// describe takes the session's id, folder and first time from a line that gives them.
func (rd *reader) describe(b []byte) {
	s := &rd.sess
	if s.ID != "" && s.Project != "" && !s.Start.IsZero() || !jsonl.Valid(b) {
		return
	}
	v := view(b)
	id, cwd := v.Get("sessionId"), v.Get("cwd")
	switch v.Get("type").Str() {
	case "session_meta": // Codex
		id, cwd = v.Get("payload").Get("id"), v.Get("payload").Get("cwd")
	case "session", "session_start": // pi, droid
		id = v.Get("id")
	case "session.start": // Copilot CLI
		d := v.Get("data")
		id, cwd = d.Get("sessionId"), d.Get("context").Get("cwd")
	}
	if info := v.Get("info"); info.IsObject() { // opencode: a message's info
		id, cwd = info.Get("sessionID"), info.Get("path").Get("cwd")
		if ms := info.Get("time").Get("created").Int(); s.Start.IsZero() && ms > 0 {
			s.Start = time.UnixMilli(ms).UTC()
		}
	}
	if s.ID == "" && id.IsString() {
		s.ID = strings.Clone(id.Str())
	}
	if s.Project == "" && cwd.IsString() {
		s.Project = strings.Clone(cwd.Str())
	}
	if s.Start.IsZero() {
		if at, err := time.Parse(time.RFC3339Nano, v.Get("timestamp").Str()); err == nil {
			s.Start = at
		}
	}
}

type reader struct {
	want    [][]byte // a line holds one of these, or it records no usage
	out     []Response
	seen    map[string]int // Claude Code: message id:request id → index in out
	model   string         // Codex: the model of the current turn
	lastTot [2]int64       // Codex: the previous running total (input, total)
	sess    Session
	// lastModel is the model of the newest response, kept (the lines are views of the reader's
	// buffer): responses of one model share its string.
	lastModel string
}

// view is a line as a JSON value without copying it: valid until the next line is read. What is
// kept of it is cloned.
func view(b []byte) jsonl.Value {
	return jsonl.Value(unsafe.String(unsafe.SliceData(b), len(b)))
}

// patterns are the bytes a line of the format holds when it records usage or a model (the
// registry's UsageProbes): only those lines are parsed. An unknown format (a stream) is read by
// every agent's.
func patterns(f transcript.Format) [][]byte {
	probes := f.Agent().UsageProbes
	if f == transcript.FormatUnknown {
		probes = agent.UsageProbes()
	}
	out := make([][]byte, len(probes))
	for i, p := range probes {
		out[i] = []byte(p)
	}
	return out
}

// line reads one line by its record type: Claude Code's assistant records, pi's message
// entries, Codex's turn contexts and token counts.
func (rd *reader) line(num int, b []byte) {
	if !jsonl.Valid(b) {
		return
	}
	v := view(b)
	// The record types first: each key looked for that a line lacks is a walk of the whole line,
	// and opencode's and Goose's lines have no "type".
	switch v.Get("type").Str() {
	case "assistant":
		rd.claude(num, v)
		return
	case "message":
		rd.pi(num, v)
		return
	case "turn_context", "event_msg":
		rd.codex(num, v)
		return
	}
	if info := v.Get("info"); info.IsObject() {
		rd.opencode(num, info, v.Get("parts"))
		return
	}
	if meta := v.Get("metadata"); meta.IsObject() && v.Get("role").Str() == "assistant" {
		rd.goose(num, v, meta)
	}
}

func (rd *reader) claude(num int, v jsonl.Value) {
	msg := v.Get("message")
	u := msg.Get("usage")
	if !u.IsObject() {
		return
	}
	t := Tokens{
		Input:        u.Get("input_tokens").Int(),
		Output:       u.Get("output_tokens").Int(),
		CacheWrite:   u.Get("cache_creation_input_tokens").Int(),
		CacheWrite1h: u.Get("cache_creation").Get("ephemeral_1h_input_tokens").Int(),
		CacheRead:    u.Get("cache_read_input_tokens").Int(),
	}
	id, req := msg.Get("id").Str(), v.Get("requestId").Str()
	key := id + ":" + req
	if i, dup := rd.seen[key]; dup && id != "" && req != "" {
		rd.out[i].Tokens = t // a later line of the response: its output so far
		return
	}
	if rd.add(num, v.Get("timestamp").Str(), msg.Get("model").Str(), t) && id != "" && req != "" {
		rd.seen[key] = len(rd.out) - 1
	}
}

func (rd *reader) codex(num int, v jsonl.Value) {
	p := v.Get("payload")
	switch v.Get("type").Str() {
	case "turn_context":
		if m := p.Get("model").Str(); m != "" && m != rd.model {
			rd.model = strings.Clone(m)
		}
		return
	}
	if p.Get("type").Str() != "token_count" {
		return
	}
	info := p.Get("info")
	last := info.Get("last_token_usage")
	if !last.IsObject() {
		return
	}
	if tot := info.Get("total_token_usage"); tot.IsObject() {
		now := [2]int64{tot.Get("input_tokens").Int(), tot.Get("total_tokens").Int()}
		if now == rd.lastTot {
			return
		}
		rd.lastTot = now
	}
	in, cached := last.Get("input_tokens").Int(), last.Get("cached_input_tokens").Int()
	t := Tokens{Input: max(in-cached, 0), CacheRead: cached, Output: last.Get("output_tokens").Int()}
	rd.add(num, v.Get("timestamp").Str(), rd.model, t)
}

func (rd *reader) pi(num int, v jsonl.Value) {
	msg := v.Get("message")
	u := msg.Get("usage")
	if msg.Get("role").Str() != "assistant" || !u.IsObject() {
		return
	}
	t := Tokens{Input: u.Get("input").Int(), Output: u.Get("output").Int(),
		CacheRead: u.Get("cacheRead").Int(), CacheWrite: u.Get("cacheWrite").Int()}
	rd.add(num, v.Get("timestamp").Str(), msg.Get("model").Str(), t)
}

// opencode reads an opencode message: each of its steps is one response, whose usage its
// step-finish part records (tokens: input, output, reasoning, cache read and write), of the
// message's model, at the time the message was created (milliseconds).
func (rd *reader) opencode(num int, info, parts jsonl.Value) {
	if info.Get("role").Str() != "assistant" {
		return
	}
	model := info.Get("modelID").Str()
	at := time.UnixMilli(info.Get("time").Get("created").Int()).UTC()
	parts.Each(func(_ string, p jsonl.Value) bool {
		if p.Get("type").Str() != "step-finish" {
			return true
		}
		u := p.Get("tokens")
		cache := u.Get("cache")
		t := Tokens{Input: u.Get("input").Int(), Output: u.Get("output").Int() + u.Get("reasoning").Int(),
			CacheRead: cache.Get("read").Int(), CacheWrite: cache.Get("write").Int()}
		if rd.add(num, "", model, t) && at.Unix() > 0 {
			rd.out[len(rd.out)-1].Time = at
		}
		return true
	})
}

// goose reads a Goose message row as its store's export holds it: an answer records its usage
// (inputTokens, outputTokens) and the model asked for in its metadata, its time in created
// (Unix seconds).
func (rd *reader) goose(num int, v, meta jsonl.Value) {
	u := meta.Get("usage")
	if !u.IsObject() {
		return
	}
	t := Tokens{Input: u.Get("inputTokens").Int(), Output: u.Get("outputTokens").Int()}
	if rd.add(num, "", meta.Get("inference").Get("requestedModel").Str(), t) {
		if at := v.Get("created").Int(); at > 0 {
			rd.out[len(rd.out)-1].Time = time.Unix(at, 0).UTC()
		}
	}
}

// add appends a response, unless it records no token (an aborted turn, a synthetic message).
func (rd *reader) add(num int, ts, model string, t Tokens) bool {
	if t.zero() {
		return false
	}
	if model != rd.lastModel {
		rd.lastModel = strings.Clone(model) // model is a view of the line
	}
	r := Response{Line: num, Model: rd.lastModel, Tokens: t}
	if at, err := time.Parse(time.RFC3339Nano, ts); err == nil {
		r.Time = at
	}
	rd.out = append(rd.out, r)
	return true
}

// ModelCost is the usage and cost of one model.
type ModelCost struct {
	Model     string  `json:"model"`
	Responses int     `json:"responses"`
	USD       float64 `json:"usd"`
	Priced    bool    `json:"priced"`
	Tokens
}

// Cost is the cost of a set of responses.
type Cost struct {
	USD      float64     `json:"usd"`                       // of the priced models
	Models   []ModelCost `json:"models"`                    // by cost, then name
	Unpriced []string    `json:"unpriced_models,omitempty"` // models the price table does not name
}

// Complete says whether every response was priced.
func (c *Cost) Complete() bool { return len(c.Unpriced) == 0 }

// Sum prices responses by model.
func (p *Prices) Sum(rs []Response) *Cost {
	by := map[string]*ModelCost{}
	for _, r := range rs {
		mc := by[r.Model]
		if mc == nil {
			mc = &ModelCost{Model: r.Model}
			_, mc.Priced = p.Lookup(r.Model)
			by[r.Model] = mc
		}
		mc.Responses++
		mc.Tokens.add(r.Tokens)
		if usd, ok := p.Cost(r.Model, r.Tokens); ok {
			mc.USD += usd
		}
	}
	c := &Cost{Models: []ModelCost{}}
	for _, mc := range by {
		c.Models = append(c.Models, *mc)
		c.USD += mc.USD
		if !mc.Priced {
			name := mc.Model
			if name == "" {
				name = "(model not recorded)"
			}
			c.Unpriced = append(c.Unpriced, name)
		}
	}
	sort.Slice(c.Models, func(i, j int) bool {
		if c.Models[i].USD != c.Models[j].USD {
			return c.Models[i].USD > c.Models[j].USD
		}
		return c.Models[i].Model < c.Models[j].Model
	})
	sort.Strings(c.Unpriced)
	return c
}
