package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

func scanFile(t *testing.T, path string, opts Options) (*Result, []Message) {
	t.Helper()
	res, msgs, err := readFile(path, opts)
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", path, err)
	}
	return res, msgs
}

func TestGenericOpenAI(t *testing.T) {
	res, msgs := scanFile(t, "../../testdata/fixtures/openai-tools.jsonl", Options{})
	st := res.Stats
	if st.Format != FormatOpenAI {
		t.Fatalf("format = %s", st.Format)
	}
	want := RoleCounts{System: 1, User: 2, Assistant: 4, Tool: 2}
	if st.Messages != want {
		t.Errorf("messages = %+v, want %+v", st.Messages, want)
	}
	if st.ToolCalls != 2 || st.ToolResults != 2 {
		t.Errorf("tool calls/results = %d/%d", st.ToolCalls, st.ToolResults)
	}
	if len(msgs) != 9 || st.EffMessages != 9 || st.EffTokens != st.Tokens {
		t.Errorf("effective: %d msgs, stats %d msgs %d tokens vs history %d", len(msgs), st.EffMessages, st.EffTokens, st.Tokens)
	}
	if got := msgs[2].Blocks[0].Args; got != `{"cmd":"go test ./pkg/parse"}` {
		t.Errorf("args = %q", got)
	}
	// Raw passthrough keeps the original bytes.
	lines := strings.Split(strings.TrimSpace(readString(t, "../../testdata/fixtures/openai-tools.jsonl")), "\n")
	if string(msgs[3].Raw) != lines[3] {
		t.Errorf("raw = %s", msgs[3].Raw)
	}
}

func TestBOMCRLFBadAndPending(t *testing.T) {
	var warns []Warning
	res, msgs := scanFile(t, "../../testdata/fixtures/bom-crlf-bad.jsonl", Options{Warn: func(w Warning) { warns = append(warns, w) }})
	st := res.Stats
	if st.BadLines != 1 || len(st.BadLineNums) != 1 || st.BadLineNums[0] != 4 {
		t.Errorf("bad lines = %d %v", st.BadLines, st.BadLineNums)
	}
	if !st.Pending {
		t.Error("pending last line not reported")
	}
	if len(msgs) != 2 || msgs[0].TextContent() != "héllo wörld" {
		t.Fatalf("msgs = %+v", msgs)
	}
	if len(warns) != 2 || warns[0].Line != 4 {
		t.Errorf("warnings = %v", warns)
	}
	if _, _, err := readFile("../../testdata/fixtures/bom-crlf-bad.jsonl", Options{Strict: true}); err == nil || !strings.Contains(err.Error(), "bom-crlf-bad.jsonl:4:") {
		t.Errorf("strict error = %v", err)
	}
}

func readString(t *testing.T, p string) string {
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// FuzzGenericRecord: genericShape's walk reads a generic line as gjson's Gets did
// (genericRecordGJSON): markers, messages at the top or under "message", first keys, escaped keys.
func FuzzGenericRecord(f *testing.F) {
	for _, line := range []string{
		`{"role":"user","content":"hello"}`,
		`{"role":"assistant","content":[{"type":"text","text":"x"}],"role":"user"}`,
		`{"role":1,"message":{"role":"user","content":"wrapped"}}`,
		`{"message":{"content":"no role","role":"assistant","role":3}}`,
		`{"message":{"r\u006fle":"user","content":"escaped key"}}`,
		`{"r\u006fle":"user","content":"escaped top key"}`,
		`{"compact":{"summary":"s","tail_lines":2},"role":"user"}`,
		`{"type":"x","compact":null}`,
		`{"role":"tool","tool_call_id":"c1","content":"out"}`,
		`{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
		`["role","user"]`, `"role"`, `{}`, ` {"role" : "user" , "content" : "spaced" } `,
	} {
		f.Add([]byte(line))
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.jsonl"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			for _, line := range bytes.Split(b, []byte("\n")) {
				if len(line) > 0 && len(line) < 4096 {
					f.Add(line)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !jsonl.Valid(line) {
			return
		}
		doc := gjson.ParseBytes(line)
		got, want := genericRecord(doc), genericRecordGJSON(doc)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s:\nwalk  %+v\ngjson %+v", line, got, want)
		}
	})
}

// FuzzDetectLine: walkMembers reads a line's members as gjsonMembers' gjson.Gets do, and the
// format detected from them is the same.
func FuzzDetectLine(f *testing.F) {
	for _, line := range []string{
		`{"type":"session","id":"s1","timestamp":"t"}`,
		`{"timestamp":"t","type":"response_item","payload":{"type":"message"}}`,
		`{"record_type":"state"}`, `{"instructions":"x","id":"1","timestamp":"t"}`,
		`{"type":"user","uuid":"u1","message":{"role":"user","content":"hi"}}`,
		`{"type":"summary","leafUuid":"l"}`, `{"type":"queue-operation"}`, `{"type":"file-history-snapshot"}`,
		`{"compact":{"summary":"s"}}`, `{"created_by":"ctxc","created_at":"t"}`,
		`{"messages":[{"role":"user","content":"x"}]}`, `{"messages":[],"role":"user"}`,
		`{"agent":"a","message":{"role":"assistant","content":[{"type":"text","text":"x"}]}}`,
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"x"}]}`,
		`{"role":"tool","tool_call_id":"c","content":"x"}`, `{"role":"system","content":"x"}`,
		`{"typ\u0065":"session","id":"s"}`, `{"type":"us\u0065r","uuid":"u"}`, `{"type":1,"role":"user","content":"x"}`,
		`{"message":{"r\u006fle":"user"}}`, `{"role":null}`, `[1,2]`, `"x"`, `{}`,
		`{"type":"session","type":"user","id":"x","uuid":"u"}`,
	} {
		f.Add([]byte(line))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if !jsonl.Valid(line) {
			return
		}
		doc := gjson.ParseBytes(line)
		if !doc.IsObject() {
			if _, _, err := detectLine(doc); err == nil {
				t.Fatalf("%s: not an object, and no error", line)
			}
			return
		}
		f1, s1, e1 := detectLine(doc)
		gm := gjsonMembers(doc)
		f2, s2, e2 := gm.detect(jsonl.Value(doc.Raw))
		if f1 != f2 || s1 != s2 || (e1 == nil) != (e2 == nil) {
			t.Fatalf("%s: walk %v %v %v, gjson %v %v %v", line, f1, s1, e1, f2, s2, e2)
		}
		if wm, sure := walkMembers(jsonl.Value(doc.Raw)); sure && wm != gm {
			t.Fatalf("%s: walk %+v, gjson %+v", line, wm, gm)
		}
	})
}
