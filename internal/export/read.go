package export

import (
	"context"
	"errors"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/audit"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/redact"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/ctxc/ctxc/internal/usage"
	"github.com/tidwall/gjson"
)

// session is one session read into the rows of every table.
type session struct {
	agent, date string // its partition
	sessions    []SessionRow
	messages    []MessageRow
	usage       []UsageRow
	compactions []CompactionRow
	redacted    int
	warnings    []transcript.Warning
}

// readSession reads one session file into its rows: the messages stats counts, with their text
// and time, the usage it records, priced, and the audit of its compactions.
func readSession(ctx context.Context, src Source, o *Options, now time.Time) (*session, error) {
	var warnings []transcript.Warning
	ropts := transcript.Options{Format: o.Format, Warn: func(w transcript.Warning) { warnings = append(warnings, w) }}
	res, counted, err := transcript.ScanCounted(src.Path, ropts)
	if err != nil {
		return &session{warnings: warnings}, err
	}
	st := res.Stats
	info, err := usage.FileSession(src.Path, st.Format)
	if err != nil {
		return nil, err
	}
	if !usage.Recorded(st.Format) {
		info.Responses = nil
	}
	lines, err := readLines(src.Path, st.Format, counted)
	if err != nil {
		return nil, err
	}
	s := &session{agent: string(st.Format)}
	s.messages, s.redacted = messageRows(src.Name, counted, lines, o.Redact)
	s.usage = usageRows(src.Name, info.Responses, o)
	if s.compactions, err = compactionRows(ctx, src, st); err != nil {
		return nil, err
	}
	start := sessionStart(info, s.messages, src.Path)
	s.date = start.UTC().Format(time.DateOnly)
	s.sessions = []SessionRow{sessionRow(src.Name, st, info, o.Prices, s.redacted, now)}
	s.warnings = warnings
	return s, nil
}

// sessionStart is when the session began: the time its records give first, else its first
// message's, else the file's modification time.
func sessionStart(info *usage.Session, msgs []MessageRow, path string) time.Time {
	if !info.Start.IsZero() {
		return info.Start
	}
	for _, m := range msgs {
		if m.Time != nil {
			return *m.Time
		}
	}
	if fi, err := transcript.Stat(path); err == nil {
		return fi.ModTime()
	}
	return time.Unix(0, 0)
}

// lineMessages is what one line of the file gives the messages counted at it.
type lineMessages struct {
	time  *time.Time
	texts []string // the text of each message the line holds, in order
}

// readLines reads the lines at which messages were counted for their time and their messages'
// text (a second pass: the statistics' scan does not decode the text).
func readLines(path string, format transcript.Format, counted []transcript.Counted) (map[int]*lineMessages, error) {
	want := map[int]*lineMessages{}
	for _, c := range counted {
		if c.Line > 0 {
			want[c.Line] = nil
		}
	}
	if len(want) == 0 {
		return want, nil
	}
	f, err := transcript.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	lr := jsonl.NewLineReader(f)
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			if p, ok := lr.Pending(); ok {
				takeLine(want, format, p)
			}
			return want, nil
		}
		if err != nil {
			return nil, err
		}
		takeLine(want, format, l)
	}
}

// takeLine decodes l when a message was counted at it.
func takeLine(want map[int]*lineMessages, format transcript.Format, l jsonl.Line) {
	if _, ok := want[l.Num]; !ok {
		return
	}
	rec, ok := transcript.DecodeRecordTransient(format, l.Bytes, l.Num)
	if !ok {
		return
	}
	lm := &lineMessages{time: lineTime(l.Bytes)}
	for i := range rec.Messages {
		lm.texts = append(lm.texts, messageText(&rec.Messages[i]))
	}
	want[l.Num] = lm
}

// msPerSecondThreshold: a numeric timestamp above it is in milliseconds, below in seconds.
const msPerSecondThreshold = 1e11

// lineTime is the time a record gives at its top level ("timestamp"), or nil.
func lineTime(line []byte) *time.Time {
	v := gjson.GetBytes(line, "timestamp")
	var t time.Time
	switch v.Type {
	case gjson.String:
		at, err := time.Parse(time.RFC3339Nano, v.Str)
		if err != nil {
			return nil
		}
		t = at
	case gjson.Number:
		n := v.Int()
		if n <= 0 {
			return nil
		}
		if float64(n) > msPerSecondThreshold {
			t = time.UnixMilli(n)
		} else {
			t = time.Unix(n, 0)
		}
	default:
		return nil
	}
	t = t.UTC()
	return &t
}

// messageText is what a message says: its text and thinking, its tool calls (name and
// arguments) and its tool results' text, one block a paragraph.
func messageText(m *transcript.Message) string {
	var b strings.Builder
	for _, bl := range m.Blocks {
		var part string
		switch bl.Kind {
		case transcript.BlockText, transcript.BlockThinking, transcript.BlockToolResult:
			part = bl.Text
		case transcript.BlockToolCall:
			part = bl.Name + " " + bl.Args
		default:
			continue
		}
		if part == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(part)
	}
	return b.String()
}

// messageRows makes the messages' rows, their text redacted when asked; it returns how many
// secrets were replaced.
func messageRows(name string, counted []transcript.Counted, lines map[int]*lineMessages, redactText bool) ([]MessageRow, int) {
	rows := make([]MessageRow, len(counted))
	nth := map[int]int{} // messages already given their text, per line
	redacted := 0
	for i, c := range counted {
		row := MessageRow{SchemaVersion: SchemaVersion, Session: name, Seq: int64(i), Line: int64(c.Line),
			Role: string(c.Role), Tokens: int64(c.Tokens), Tool: strings.Join(c.Tools, ",")}
		if lm := lines[c.Line]; lm != nil {
			row.Time = lm.time
			if k := nth[c.Line]; k < len(lm.texts) {
				row.Text = lm.texts[k]
			}
			nth[c.Line]++
		}
		if redactText {
			var n int
			row.Text, n = redact.String(row.Text)
			redacted += n
		}
		rows[i] = row
	}
	return rows, redacted
}

// usageRows makes the rows of the recorded responses, each priced from the price table.
func usageRows(name string, rs []usage.Response, o *Options) []UsageRow {
	rows := make([]UsageRow, 0, len(rs))
	for _, r := range rs {
		row := UsageRow{SchemaVersion: SchemaVersion, Session: name, Line: int64(r.Line), Model: r.Model,
			InputTokens: r.Input, OutputTokens: r.Output, CacheWriteTokens: r.CacheWrite,
			CacheWrite1hTokens: r.CacheWrite1h, CacheReadTokens: r.CacheRead}
		if !r.Time.IsZero() {
			t := r.Time.UTC()
			row.Time = &t
		}
		if usd, ok := o.Prices.Cost(r.Model, r.Tokens); ok {
			row.CostUSD = &usd
		}
		rows = append(rows, row)
	}
	return rows
}

// compactionRows audits the session's compactions.
func compactionRows(ctx context.Context, src Source, st *transcript.Stats) ([]CompactionRow, error) {
	if len(st.Records) == 0 {
		return nil, nil
	}
	cs, err := audit.File(ctx, src.Path, audit.Options{Format: st.Format})
	if err != nil {
		return nil, err
	}
	recs := st.Records
	rows := make([]CompactionRow, 0, len(cs))
	for _, c := range cs {
		row := CompactionRow{SchemaVersion: SchemaVersion, Session: src.Name, Index: int64(c.Index), Line: int64(c.Line),
			By: c.By, TokensBefore: int64(c.TokensBefore), TokensAfter: int64(c.TokensAfter), Unreadable: c.Unreadable,
			Facts: int64(c.Total.Facts), Kept: int64(c.Total.Kept), Restored: int64(c.Total.Restored),
			Lost: int64(c.Total.Facts - c.Total.Kept - c.Total.Restored), Recall: c.Recall}
		if i := c.Index - 1; i >= 0 && i < len(recs) {
			row.StartOffset, row.EndOffset = recs[i].Start, recs[i].End
		}
		row.Categories = categoryRows(c.Categories)
		rows = append(rows, row)
	}
	return rows, nil
}

// categoryRows are a compaction's categories, by name.
func categoryRows(cats map[string]audit.Kept) []CategoryRow {
	names := make([]string, 0, len(cats))
	for n := range cats {
		names = append(names, n)
	}
	sort.Strings(names)
	rows := make([]CategoryRow, 0, len(names))
	for _, n := range names {
		k := cats[n]
		rows = append(rows, CategoryRow{Category: n, Facts: int64(k.Facts), Kept: int64(k.Kept),
			Lost: int64(k.Facts - k.Kept - k.Restored), Summary: int64(k.Summary)})
	}
	return rows
}

// sessionRow is the session's row of the sessions table.
func sessionRow(name string, st *transcript.Stats, info *usage.Session, prices *usage.Prices, redacted int, now time.Time) SessionRow {
	row := SessionRow{SchemaVersion: SchemaVersion, Session: name, SessionID: info.ID, Project: info.Project,
		Bytes: st.Bytes, Lines: int64(st.Lines), BadLines: int64(st.BadLines),
		Messages: int64(st.Messages.Total()), UserMessages: int64(st.Messages.User),
		AssistantMessages: int64(st.Messages.Assistant), ToolMessages: int64(st.Messages.Tool),
		ToolCalls: int64(st.ToolCalls), Tokens: st.Tokens, EffectiveTokens: st.EffTokens,
		Compactions: int64(st.Markers + st.Compactions), Redacted: int64(redacted), Exported: now.UTC()}
	if !info.Start.IsZero() {
		t := info.Start.UTC()
		row.Start = &t
	}
	if !info.End.IsZero() {
		t := info.End.UTC()
		row.End = &t
	}
	for _, r := range info.Responses {
		row.Responses++
		row.InputTokens += r.Input
		row.OutputTokens += r.Output
		row.CacheWriteTokens += r.CacheWrite
		row.CacheReadTokens += r.CacheRead
	}
	if len(info.Responses) > 0 {
		c := prices.Sum(info.Responses)
		row.CostUSD, row.Unpriced = c.USD, strings.Join(c.Unpriced, ",")
	}
	return row
}

// modTime is a file's modification time and size, what tells a later run it changed.
func modTime(path string) (size int64, mtime int64, err error) {
	fi, err := transcript.Stat(path)
	if err != nil {
		return 0, 0, err
	}
	if fi.Mode().IsDir() {
		return 0, 0, &os.PathError{Op: "export", Path: path, Err: errors.New("a folder, not a session file")}
	}
	return fi.Size(), fi.ModTime().UnixNano(), nil
}
