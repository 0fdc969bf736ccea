package gemini

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// geminiRecordCounts is what a message record counts the long way: its messages built
// (geminiRecordMessages, as a load builds them), then counted as Message and the statistics
// count them. geminiWalk must give the same figures without building them.
func geminiRecordCounts(f geminiFields) Pre {
	p := Pre{key: conv.IDKey(f.id.Str())}
	ms := geminiRecordMessages(f, conv.NoText)
	p.c.n = int8(len(ms))
	for i := range ms {
		m := &ms[i]
		p.c.roles[i], p.c.tokens[i] = geminiRoleIndex(conv.StatsRole(m)), int32(m.Tokens())
		for k := conv.BlockText; k <= conv.BlockOpaque; k++ {
			if k.String() == conv.DominantKind(m) {
				p.c.kinds[i] = uint8(k)
			}
		}
		p.c.calls += int32(m.ToolCalls())
		p.c.results += int32(m.ToolResults())
		p.c.images += int32(m.Images())
		p.c.chars += int64(m.Chars())
	}
	p.summary = len(ms) > 0 && ms[0].Summary
	if f.typ.Str() == "gemini" && f.tokens.IsObject() {
		p.hasUsage, p.usage = true, geminiUsage(f.tokens)
	}
	return p
}

// geminiRecords calls fn with every message record of a session's data: the lines with an id,
// and the message objects of the $set lines and of the whole-session header.
func geminiRecords(data []byte, fn func(v jsonl.Value, f geminiFields)) {
	for _, line := range geminiLines(data) {
		if !jsonl.Valid(line) {
			continue
		}
		v := jsonl.Value(gjson.Parse(string(line)).Raw)
		f := geminiFieldsOf(v)
		if f.id.IsString() {
			fn(v, f)
		}
		msgs := f.messages
		if f.set.IsObject() {
			msgs = f.set.Get("messages")
		}
		msgs.Each(func(_ string, m jsonl.Value) bool {
			if mf := geminiFieldsOf(m); m.IsObject() && mf.id.IsString() {
				fn(m, mf)
			}
			return true
		})
	}
}

// geminiLines are data's lines without their line ends, the file's byte-order mark taken off
// the first.
func geminiLines(data []byte) [][]byte {
	lines := bytes.Split(conv.TrimBOM(data), []byte("\n"))
	for i, l := range lines {
		lines[i] = bytes.TrimSuffix(l, []byte("\r"))
	}
	return lines
}

// checkGeminiCounts holds geminiWalk to the messages' counts on every message record of data.
func checkGeminiCounts(t *testing.T, data []byte) {
	t.Helper()
	geminiRecords(data, func(v jsonl.Value, f geminiFields) {
		var got Pre
		geminiWalk(&got, v)
		if want := geminiRecordCounts(f); got != want {
			t.Errorf("record %.200s:\n counted %+v\n messages %+v", v, got, want)
		}
	})
}

// geminiCountCases are message records for the corners of the walk: each block kind, content
// as a string, an object or falsy values, calls in the content or in toolCalls (each result
// shape), thoughts with and without a subject, ignored and summary user messages, escapes,
// blocks of equal size (the first is the message's kind).
var geminiCountCases = []string{
	`{"id":"a","type":"user","content":[{"text":"hi"},{"inlineData":{"mimeType":"image/png","data":"AA=="}}]}`,
	`{"id":"a","type":"user","content":"  plain text with \u00e9 and \"quotes\""}`,
	`{"id":"a","type":"user","content":{"text":"one part as an object"}}`,
	`{"id":"a","type":"user","content":["a string part",{"text":"x","thought":true},{"fileData":{"uri":"u"}}]}`,
	`{"id":"a","type":"user","content":[{"functionResponse":{"id":"c","name":"n","response":{"output":"done"}}}]}`,
	`{"id":"a","type":"user","content":[{"functionResponse":{"id":"c","name":"n","response":{"error":"failed"}}},{"text":"and text"}]}`,
	`{"id":"a","type":"user","content":[{"functionResponse":{"id":"c","name":"n","response":{"other":[1,2]}}}]}`,
	`{"id":"a","type":"user","content":"/compress"}`,
	`{"id":"a","type":"user","content":[{"text":"   "},{"text":"?help"}]}`,
	`{"id":"a","type":"user","content":[{"text":"<session_context>x"}]}`,
	`{"id":"a","type":"user","content":[{"text":"\n<hook_context>y"}]}`,
	`{"id":"a","type":"user","content":[{"text":"<state_snapshot>the summary</state_snapshot>"},{"text":"more"}]}`,
	`{"id":"a","type":"user","content":"\u003cstate_snapshot\u003e escaped"}`,
	`{"id":"a","type":"user","content":[]}`,
	`{"id":"a","type":"user","content":""}`,
	`{"id":"a","type":"user","content":7}`,
	`{"id":"a","type":"user"}`,
	`{"id":"a","type":"gemini","content":"ok","thoughts":[{"subject":"S","description":"d"}],"toolCalls":[{"id":"c","name":"n","args":{"p":"\u00e9"},"result":[{"functionResponse":{"id":"c","name":"n","response":{"error":"no"}}}]}]}`,
	`{"id":"a","type":"gemini","content":[{"functionCall":{"id":"c","name":"n","args":{}}}],"thoughts":[{"description":"d"}],"toolCalls":[{"id":"c","name":"n","result":"r"}]}`,
	`{"id":"a","type":"gemini","content":[{"text":"t","thought":true},{"text":"answer"}],"thoughts":[{"subject":"S","description":"not replayed"}]}`,
	`{"id":"a","type":"gemini","content":"","thoughts":[{"subject":"","description":"only a description"}],"toolCalls":[{"id":"c","name":"read","args":{"f":"x"},"result":""},{"id":"d","name":"w","result":{"functionResponse":{"id":"d","name":"w","response":{"output":"x"}}}},"not a call",{"name":"z","result":[{"inlineData":{"mimeType":"image/png","data":"AA=="}},"text part",{"unknown":1}]}]}`,
	`{"id":"a","type":"gemini","content":null,"toolCalls":[{"name":"n","result":"out"}]}`,
	`{"id":"a","type":"gemini","content":false,"thoughts":[]}`,
	`{"id":"a","type":"gemini","content":0,"toolCalls":{"k":{"name":"as an object"}}}`,
	`{"id":"a","type":"gemini","content":[{"functionResponse":{"id":"c","name":"n","response":{"output":"a result in the model's content"}}}]}`,
	`{"id":"a","type":"gemini","content":"x","tokens":{"input":100,"output":10,"cached":30,"thoughts":4,"total":144}}`,
	`{"id":"a","type":"gemini","content":"x","tokens":{"input":1.5e2,"output":"ten"}}`,
	`{"id":"a","type":"gemini","content":"","thoughts":[]}`,
	`{"id":"a","type":"gemini","content":"abcd","thoughts":[{"description":"wxyz"}]}`,
	`{"id":"a","type":"user","content":[{"text":"ab"},{"text":"cd","thought":true}]}`,
	`{"id":"a","type":"info","content":"shown, not sent"}`,
	`{"id":"a","type":"error","content":"e"}`,
	`{"id":"a\u0062","type":"gemini","type":"user","content":"the last type counts"}`,
}

// TestGeminiCountsMatchMessages: the statistics' walk of a record (geminiWalk, no messages
// built) gives the figures of the messages a load builds from it, on corner records, on the
// fixtures and on real Gemini CLI sessions when ../shared/samples has some.
func TestGeminiCountsMatchMessages(t *testing.T) {
	for _, line := range geminiCountCases {
		checkGeminiCounts(t, []byte(line))
	}
	for _, path := range geminiSessionFiles(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			checkGeminiCounts(t, data)
		})
	}
}

// geminiSessionFiles are the Gemini CLI fixtures and the samples' Gemini CLI sessions.
func geminiSessionFiles(t *testing.T) []string {
	t.Helper()
	paths, _ := filepath.Glob("../../../testdata/fixtures/gemini-*.jsonl")
	if len(paths) == 0 {
		t.Fatal("no Gemini CLI fixtures")
	}
	for _, g := range []string{"gemini*/*.jsonl", "gemini*/*/*.jsonl", "gemini*/*/*/*.jsonl"} {
		more, _ := filepath.Glob(filepath.Join("../../../../shared/samples", g))
		paths = append(paths, more...)
	}
	return paths
}

// FuzzGeminiCounts: on any input, the walk of each message record gives the figures of the
// messages built the long way.
func FuzzGeminiCounts(f *testing.F) {
	paths, _ := filepath.Glob("../../../testdata/fixtures/gemini-*.jsonl")
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil && len(b) < 1<<20 {
			f.Add(b)
		}
	}
	f.Add([]byte(strings.Join(geminiCountCases, "\n") + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkGeminiCounts(t, data)
	})
}
