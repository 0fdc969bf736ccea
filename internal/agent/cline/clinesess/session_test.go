package clinesess

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// session is a session Cline 3.0.65 wrote offline: a read_files call, then a turn resumed
// through its ACP mode.
const session = "../../../../testdata/cline/sessions/1795898039634_e06ml/1795898039634_e06ml.messages.json"

func TestExportOfASessionClineWrote(t *testing.T) {
	if !IsSession(session) {
		t.Fatalf("%s is not read as a Cline session", session)
	}
	var out bytes.Buffer
	if err := Export(session, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	h := gjson.Parse(lines[0])
	if h.Get("type").Str != HeaderType || h.Get("sessionId").Str != "1795898039634_e06ml" || h.Get("messages").Int() != 6 ||
		h.Get("cwd").Str != "/tmp/clh2/proj" || h.Get("compactedThrough").Exists() {
		t.Errorf("header %s", lines[0])
	}
	if len(lines) != 7 {
		t.Fatalf("%d lines, want the header and 6 messages:\n%s", len(lines), out.String())
	}
	for i, l := range lines[1:] {
		if !gjson.Valid(l) || !gjson.Get(l, "role").Exists() {
			t.Errorf("line %d: %s", i+2, l)
		}
	}
}

func TestNamed(t *testing.T) {
	for _, c := range []struct {
		path string
		want bool
	}{
		{"/h/.cline/data/sessions/17_ab/17_ab.messages.json", true},
		{"/h/.cline/data/sessions/17_ab/17_ab.json", false},
		{"/h/.cline/data/sessions/17_ab/17_ab.compaction.json", false},
		{"/h/.cline/data/sessions/17_ab/18_cd.messages.json", false},
		{"/h/x/.messages.json", false},
	} {
		if got := Named(c.path); got != c.want {
			t.Errorf("Named(%s) = %v", c.path, got)
		}
	}
}

// TestCompaction: a compaction state applies as Cline projects it.
func TestCompaction(t *testing.T) {
	msgs := gjson.Parse(`[{"id":"a","role":"user","content":"x"},{"id":"s","role":"user","content":"shown","metadata":{"displayOnly":true}},` +
		`{"id":"b","role":"assistant","content":"y"},{"role":"user","ts":7,"content":"z"},{"id":"c","role":"assistant","content":"w"}]`).Array()
	for _, c := range []struct {
		name, state string
		through     int
	}{
		{"applies", `{"source_message_count":2,"source_last_message_key":"id:b","messages":[{"role":"user","content":"sum"}]}`, 2},
		{"by ts", `{"source_message_count":3,"source_last_message_key":"ts:user:7","messages":[]}`, 3},
		{"neither key nor hash", `{"source_message_count":4,"messages":[{"role":"user","content":"sum"}]}`, 0},
		{"another last message", `{"source_message_count":2,"source_last_message_key":"id:a","messages":[]}`, 0},
		{"more than there are", `{"source_message_count":5,"messages":[]}`, 0},
		{"none", `{"source_message_count":0,"messages":[]}`, 0},
		{"no messages", `{"source_message_count":2}`, 0},
		{"not JSON", `{"source_message_count":`, 0},
	} {
		through, _ := Compaction([]byte(c.state), msgs)
		if through != c.through {
			t.Errorf("%s: through %d, want %d", c.name, through, c.through)
		}
	}
}

// TestExportWithItsCompaction: the compaction's messages follow the session's, wrapped, when
// it applies; a state that no longer does is left out.
func TestExportWithItsCompaction(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "1_x")
	os.MkdirAll(dir, 0o755)
	path := filepath.Join(dir, "1_x"+MessagesSuffix)
	os.WriteFile(path, []byte(`{"messages":[{"id":"a","role":"user","content":"q"},{"id":"b","role":"assistant","content":"r"}]}`), 0o644)
	for _, c := range []struct {
		state string
		lines int
	}{
		{`{"version":1,"source_message_count":1,"source_last_message_key":"id:a","messages":[{"role":"user","content":"Context summary:\n\ns"}]}`, 4},
		{`{"version":1,"source_message_count":1,"source_last_message_key":"id:z","messages":[{"role":"user","content":"s"}]}`, 3},
	} {
		os.WriteFile(CompactionPath(path), []byte(c.state), 0o644)
		var out bytes.Buffer
		if err := Export(path, &out); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if len(lines) != c.lines {
			t.Errorf("%d lines, want %d:\n%s", len(lines), c.lines, out.String())
		}
		if c.lines == 4 && (gjson.Get(lines[0], "compactedThrough").Int() != 1 || gjson.Get(lines[3], "type").Str != CompactedType) {
			t.Errorf("export:\n%s", out.String())
		}
	}
	os.WriteFile(path, []byte(`{"messages":[`), 0o644)
	if err := Export(path, &bytes.Buffer{}); err == nil {
		t.Error("a messages file that is not JSON is exported")
	}
}

// TestPrefixHash: the hash of a session's first messages is the one Cline's own
// hashCompactionSource gives (run under Node on these messages), a user's input normalized.
func TestPrefixHash(t *testing.T) {
	msgs := gjson.Parse(`[{"id":"a","role":"user","content":[{"type":"text","text":"<user_input mode=\"act\">hé \"q\"\n\tx</user_input>"}],"ts":1},` +
		`{"id":"b","role":"assistant","content":[{"type":"tool_use","id":"c","name":"read_files","input":{"path":"/p"}}],"modelInfo":{"id":"m","provider":"p"},"metrics":{"inputTokens":1.5,"outputTokens":2}},` +
		`{"id":"d","role":"user","content":"  plain  "}]`).Array()
	for n, want := range map[int]string{
		2: "sha256:4335280977791acbbefb36b7925655958d75644a8f658de3eabc4b94d7964a14",
		3: "sha256:8aab5eec1c66f26afa11bb82d3323ae46e70edda9ae271bc86bee83ee18d6c6e",
	} {
		if got := prefixHash(msgs, n); got != want {
			t.Errorf("%d messages: %s, want %s", n, got, want)
		}
		state := `{"source_message_count":` + fmt.Sprint(n) + `,"source_prefix_hash":"` + want + `","source_last_message_key":"id:zz","messages":[]}`
		if through, _ := Compaction([]byte(state), msgs); through != n {
			t.Errorf("%d messages: the state of their hash applies through %d", n, through)
		}
		if through, _ := Compaction([]byte(strings.Replace(state, want[:12], "sha256:00000", 1)), msgs); through != 0 {
			t.Errorf("%d messages: a state of another hash applies through %d", n, through)
		}
	}
}
