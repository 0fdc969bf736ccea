package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/gemini"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// geminiLines are data's lines without their line ends, the file's byte-order mark taken off
// the first.
func geminiLines(data []byte) [][]byte {
	lines := bytes.Split(conv.TrimBOM(data), []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte("\r"))
	}
	return lines
}

// geminiSessionFiles are the Gemini CLI fixtures and the samples' Gemini CLI sessions.
func geminiSessionFiles(t *testing.T) []string {
	t.Helper()
	paths, _ := filepath.Glob("../../testdata/fixtures/gemini-*.jsonl")
	if len(paths) == 0 {
		t.Fatal("no Gemini CLI fixtures")
	}
	for _, g := range []string{"gemini*/*.jsonl", "gemini*/*/*.jsonl", "gemini*/*/*/*.jsonl"} {
		more, _ := filepath.Glob(filepath.Join(samplesDir, g))
		paths = append(paths, more...)
	}
	return paths
}

// geminiFullStats are a session's statistics the long way: each id's newest record kept as its
// built messages, under its id as a string, and the current list replayed as the reader's
// documentation says (a rewind, a $set of messages, the older whole-session header).
type geminiFullStats struct {
	msgs  map[string][]Message
	usage map[string]bool // ids whose usage is counted
	list  []string
	st    Stats
}

func newGeminiFullStats(data []byte) *geminiFullStats {
	g := &geminiFullStats{msgs: map[string][]Message{}, usage: map[string]bool{}}
	// A valid last line that lacks its newline is read, as the agents read it.
	for _, line := range geminiLines(data) {
		if !jsonl.Valid(line) {
			continue
		}
		v := jsonl.Value(gjson.Parse(string(line)).Raw)
		f := geminiMembers(v)
		switch {
		case f["$rewindTo"].IsString():
			g.rewind(f["$rewindTo"].Str())
		case f["id"].IsString():
			g.record(v, f)
		case f["$set"].IsObject():
			if msgs := f["$set"].Get("messages"); msgs.IsArray() {
				g.list = nil
				g.records(msgs)
			}
		case f["sessionId"].IsString() && f["projectHash"].IsString() && f["messages"].IsArray():
			g.records(f["messages"])
		}
	}
	return g
}

func (g *geminiFullStats) rewind(id string) {
	for i, x := range g.list {
		if x == id {
			g.list = g.list[:i]
			return
		}
	}
	g.list = nil
}

// records adds the message objects of a $set or header: a compaction when one brings in a new
// summary.
func (g *geminiFullStats) records(msgs jsonl.Value) {
	compacted := false
	msgs.Each(func(_ string, m jsonl.Value) bool {
		if f := geminiMembers(m); m.IsObject() && f["id"].IsString() && g.record(m, f) {
			compacted = true
		}
		return true
	})
	if compacted {
		g.st.Compactions++
	}
}

// record adds a message record v (its members f) and reports a new summary.
func (g *geminiFullStats) record(v jsonl.Value, f map[string]jsonl.Value) (summary bool) {
	id := f["id"].Str()
	old, seen := g.msgs[id]
	for i := range old {
		g.count(&old[i], -1)
	}
	ms, err := gemini.NewReader().Materialize([]byte(v), conv.Ref{})
	if err != nil {
		panic(err)
	}
	for i := range ms {
		g.count(&ms[i], 1)
	}
	g.msgs[id] = ms
	if !slicesContains(g.list, id) {
		g.list = append(g.list, id)
	}
	if f["type"].Str() == "gemini" && f["tokens"].IsObject() {
		u := geminiTokens(f["tokens"])
		if g.usage[id] {
			g.st.Usage.LastContext = u.Input + u.CacheRead + u.CacheWrite
		} else {
			g.st.CountUsage("", u, true)
			g.usage[id] = true
		}
	}
	return !seen && len(ms) > 0 && ms[0].Summary
}

// geminiMembers are the members of a record by name, the last of a repeated name counting.
func geminiMembers(v jsonl.Value) map[string]jsonl.Value {
	f := map[string]jsonl.Value{}
	v.Each(func(k string, val jsonl.Value) bool {
		f[k] = val
		return true
	})
	return f
}

// geminiTokens is the usage of a record's tokens object: input less the cached, output with
// the thoughts.
func geminiTokens(t jsonl.Value) Usage {
	n := geminiMembers(t)
	in, out, cached, thoughts := n["input"].Int(), n["output"].Int(), n["cached"].Int(), n["thoughts"].Int()
	return Usage{Input: int(max(in-cached, 0)), Output: int(out + thoughts), CacheRead: int(cached)}
}

func slicesContains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func (g *geminiFullStats) count(m *Message, sign int) {
	st := &g.st
	if sign > 0 {
		st.Messages.Add(conv.StatsRole(m))
	} else {
		st.Messages.Sub(conv.StatsRole(m))
	}
	st.Tokens += int64(sign * m.Tokens())
	st.Chars += int64(sign * m.Chars())
	st.ToolCalls += sign * m.ToolCalls()
	st.ToolResults += sign * m.ToolResults()
	st.Images += sign * m.Images()
}

// effective is the current list's messages and tokens.
func (g *geminiFullStats) effective() (msgs int, tokens int64) {
	for _, id := range g.list {
		for i := range g.msgs[id] {
			msgs++
			tokens += int64(g.msgs[id][i].Tokens())
		}
	}
	return msgs, tokens
}

// checkGeminiStats holds the statistics of data, read line by line and in ranges walked ahead
// by workers, to geminiFullStats'.
func checkGeminiStats(t *testing.T, data []byte) {
	t.Helper()
	want := newGeminiFullStats(data)
	effMsgs, effTokens := want.effective()
	opts := Options{Format: FormatGemini}
	for name, scan := range map[string]func() (*Result, error){
		"lines": func() (*Result, error) { return scanLines(bytes.NewReader(data), "gemini", opts) },
		"ranges": func() (*Result, error) {
			return scanRanges(bytes.NewReader(data), int64(len(data)), "gemini", opts, 61, 2)
		},
	} {
		res, err := scan()
		if err != nil {
			continue // no valid line at all: no statistics to compare
		}
		st := res.Stats
		var usage, wantUsage RecordedUsage
		if st.Usage != nil {
			usage = *st.Usage
		}
		if want.st.Usage != nil {
			wantUsage = *want.st.Usage
		}
		got := [...]int64{int64(st.Messages.User), int64(st.Messages.Assistant), int64(st.Messages.Tool), st.Tokens, st.Chars,
			int64(st.ToolCalls), int64(st.ToolResults), int64(st.Images), int64(st.Compactions), int64(st.EffMessages), st.EffTokens}
		full := [...]int64{int64(want.st.Messages.User), int64(want.st.Messages.Assistant), int64(want.st.Messages.Tool), want.st.Tokens, want.st.Chars,
			int64(want.st.ToolCalls), int64(want.st.ToolResults), int64(want.st.Images), int64(want.st.Compactions), int64(effMsgs), effTokens}
		if got != full || usage != wantUsage {
			t.Errorf("%s: user, assistant, tool, tokens, chars, calls, results, images, compactions, effective messages and tokens:\n counted %v %+v\n messages %v %+v",
				name, got, usage, full, wantUsage)
		}
	}
}

// geminiStatsCases are sessions for the reader's list: rewinds to known, unknown and removed
// ids, a message written again after a rewind removed it, $set replacements with and without
// a new summary, the whole-session header, malformed and non-object lines.
var geminiStatsCases = map[string]string{
	"rewind and rewrite": `{"sessionId":"s","projectHash":"h","startTime":"t"}
{"id":"u1","type":"user","content":"one"}
{"id":"g1","type":"gemini","content":"a","tokens":{"input":10,"output":1}}
{"id":"g1","type":"gemini","content":"a longer answer","tokens":{"input":12,"output":3},"toolCalls":[{"id":"c","name":"n","result":"r"}]}
{"id":"u2","type":"user","content":"two"}
{"$rewindTo":"u2"}
{"id":"u2","type":"user","content":"two, again"}
{"$rewindTo":"gone"}
{"id":"g1","type":"gemini","content":"back after the rewind","tokens":{"input":20,"output":2}}
`,
	"set of messages": `{"id":"u1","type":"user","content":"one"}
{"id":"g1","type":"gemini","content":"a"}
{"$set":{"lastUpdated":"t"}}
{"$set":{"messages":[{"id":"s1","type":"user","content":[{"text":"<state_snapshot>sum</state_snapshot>"}]},{"id":"s2","type":"gemini","content":"Got it."},{"id":"g1","type":"gemini","content":"kept"}]}}
{"id":"u3","type":"user","content":"three"}
{"$set":{"messages":[{"id":"s1","type":"user","content":[{"text":"<state_snapshot>sum</state_snapshot>"}]},"not a message",{"type":"user"}]}}
{"$rewindTo":"s1"}
`,
	"header with messages and malformed lines": "\ufeff" + `{"sessionId":"s","projectHash":"h","messages":[{"id":"a","type":"user","content":"x"},{"id":"b","type":"gemini","content":"y","tokens":{"input":5}}]}
not json
[1,2]
"a string"

{"id":"b","type":"gemini","content":"y again","tokens":{"input":7}}` + "\r\n" + `{"id":"c","type":"user","content":{"text":"?"}}
{"$rewindTo":"b"}
{"id":"d","type":"user","content":"the last line, unterminated"}`,
}

// TestGeminiStatsMatchMessages: a session's statistics, counted from the records' walks (line
// by line, and in ranges by workers), are those of the messages built record by record and
// kept per id, on corner sessions, the fixtures and the samples' Gemini CLI sessions.
func TestGeminiStatsMatchMessages(t *testing.T) {
	for name, data := range geminiStatsCases {
		t.Run(name, func(t *testing.T) { checkGeminiStats(t, []byte(data)) })
	}
	for _, path := range geminiSessionFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkGeminiStats(t, data)
		})
	}
}

// FuzzGeminiStats: on any input, the statistics of the whole session are those of the messages
// built the long way.
func FuzzGeminiStats(f *testing.F) {
	addSeeds(f, "../../testdata/fixtures/gemini-*.jsonl")
	for _, s := range geminiStatsCases {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkGeminiStats(t, data)
	})
}
