package index

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/tidwall/gjson"
)

func TestEachTerm(t *testing.T) {
	cases := []struct {
		text string
		want []string
	}{
		{"Fix the Reconnect bug!", []string{"fix", "the", "reconnect", "bug"}},
		{"client.go:42 retries", []string{"client", "go", "42", "retry"}},
		{"tests goroutines classes status", []string{"test", "goroutine", "classe", "status"}},
		{"naïve CAFÉ Ünïcode", []string{"naïve", "café", "ünïcode"}},
		{"a b x", nil},
		{strings.Repeat("z", maxTerm) + " ok " + strings.Repeat("y", maxTerm+1) + "é end", []string{strings.Repeat("z", maxTerm), "ok", "end"}},
		{"snake_case-and/path", []string{"snake", "case", "and", "path"}},
		{"id=8f3a9c21 v2 utf8 sha256 0042 1700000000 170000001 vector2d", []string{"id", "v2", "utf8", "sha256", "0042", "vector2d"}},
	}
	for _, c := range cases {
		var got []string
		eachTerm(c.text, nil, func(term []byte) { got = append(got, string(term)) })
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %q, want %q", c.text, got, c.want)
		}
	}
	if got := queryTerms("The tests and THE test of it"); !reflect.DeepEqual(got, []string{"test"}) {
		t.Errorf("query terms: %q", got)
	}
}

func TestTrigramSet(t *testing.T) {
	cases := []struct {
		raw     string
		has     []string
		lacks   []string
		escaped string
	}{
		{`{"a":"Quokka"}`, []string{"quo", "kka", `":"`}, []string{"Quo", "qkk"}, ""},
		{`"qu\u006fkka \/x \\u0041 \n"`, []string{"kka"}, []string{"uok"}, "/o"},
		{`\u00E9 \u0022 \u004B`, nil, nil, "\"k"},
	}
	for _, c := range cases {
		s := newTrigramSet()
		s.add([]byte(c.raw))
		for _, tri := range c.has {
			if !s.contains(litTrigrams([]byte(tri))[0]) || tri != strings.ToLower(tri) && false {
				t.Errorf("%s: lacks %q", c.raw, tri)
			}
		}
		for _, tri := range c.lacks {
			if tri == strings.ToLower(tri) && s.contains(litTrigrams([]byte(tri))[0]) {
				t.Errorf("%s: has %q", c.raw, tri)
			}
		}
		var esc []byte
		for ch := byte(0x20); ch < 0x7f; ch++ {
			if s.escaped.has(ch) {
				esc = append(esc, ch)
			}
		}
		if string(esc) != c.escaped {
			t.Errorf("%s: escapes %q, want %q", c.raw, esc, c.escaped)
		}
		s.reset()
		if len(s.list) != 0 || s.escaped.any() || s.contains(litTrigrams([]byte("kka"))[0]) {
			t.Errorf("%s: reset left %d trigrams", c.raw, len(s.list))
		}
	}
}

func TestLineTime(t *testing.T) {
	cases := []struct {
		line string
		want uint32
	}{
		{`{"timestamp":"2026-11-01T10:00:00Z"}`, 1793527200},
		{`{"timestamp":"2026-11-01T10:00:00.123+01:00"}`, 1793523600},
		{`{"timestamp":1793527200000}`, 1793527200},
		{`{"timestamp":1793527200}`, 1793527200},
		{`{"timestamp":"yesterday"}`, 0},
		{`{"role":"user"}`, 0},
		{`{"message":{"timestamp":1,"content":"a \"timestamp\": 2"},"timestamp":"2026-11-01T10:00:00Z"}`, 1793527200},
		{`{"timestamp":"2026-11-01T10:00:00Z","timestamp":"2027-01-01T00:00:00Z"}`, 1793527200},
		{`{"time\u0073tamp":"2026-11-01T10:00:00Z"}`, 1793527200},
		{`{"info":{"role":"user","time":{"created":1793527200123}}}`, 1793527200},
		{`{"info":"x","timestamp":1793527200}`, 1793527200},
		{`{"info":[1,2]}`, 0},
		{` { "timestamp" : 1793527200 } `, 1793527200},
	}
	for _, c := range cases {
		d := gjson.Parse(c.line) // (what gjson reads of the whole line: the reading lineTime must match)
		ref := d.Get("timestamp")
		if !ref.Exists() {
			ref = d.Get("info.time.created")
		}
		if got := timeOf(ref); got != c.want {
			t.Errorf("%s: gjson reads %d, want %d", c.line, got, c.want)
		}
		if got := lineTime([]byte(c.line)); got != c.want {
			t.Errorf("%s: %d, want %d (%v)", c.line, got, c.want, time.Unix(int64(c.want), 0).UTC())
		}
	}
}

func TestResumeCommand(t *testing.T) {
	cases := []struct{ agent, session, project, path, want string }{
		{"claude-code", "abc-1", "/home/me/app", "/x/abc-1.jsonl", "cd /home/me/app && claude --resume abc-1"},
		{"codex", "019a", "/home/me/my app", "/x/r.jsonl", "cd '/home/me/my app' && codex resume 019a"},
		{"pi", "", "/w", "/s/it's.jsonl", `cd /w && pi --session '/s/it'\''s.jsonl'`},
		{"claude-code", "", "", "/x.jsonl", ""},
		{"openai", "", "", "/x.jsonl", ""},
		{"copilot", "1111", "/w/proj", "/x/events.jsonl", "cd /w/proj && copilot --resume=1111"},
		{"droid", "6666", "/w/proj", "/x/6666.jsonl", "cd /w/proj && droid --resume 6666"},
		{"gemini-cli", "5267", "", "/x/session.jsonl", "gemini --resume 5267"},
		{"qwen-code", "6dcf", "/w/p", "/x/6dcf.jsonl", "cd /w/p && qwen --resume 6dcf"},
		{"opencode", "ses_dd", "/w/p", "/d/opencode.db#ses_dd", "cd /w/p && opencode --session ses_dd"},
		{"kilo", "ses_dd", "/w/p", "/d/kilo.db#ses_dd", "cd /w/p && kilo --session ses_dd"},
		{"cline", "17_ab", "/w/p", "/h/17_ab/17_ab.messages.json", "cd /w/p && cline --id 17_ab"},
		{"nanocoder", "2e8ad5ce-ca6d-45e3-b8e7-f38a9ee5d892", "/w/p", "/h/s/2e8ad5ce-ca6d-45e3-b8e7-f38a9ee5d892.json",
			"cd /w/p && nanocoder --resume 2e8ad5ce-ca6d-45e3-b8e7-f38a9ee5d892"},
	}
	for _, c := range cases {
		if got := ResumeCommand(c.agent, c.session, c.project, c.path); got != c.want {
			t.Errorf("%s %s: %q, want %q", c.agent, c.session, got, c.want)
		}
	}
}

// TestSessionDetails: each agent's session id and project folder, from the fixtures the agents
// wrote or that were checked against them.
func TestSessionDetails(t *testing.T) {
	cases := []struct{ fixture, format, session, project string }{
		{"copilot-compacted.jsonl", "copilot", "11111111-2222-4333-8444-555555555555", "/w/proj"},
		{"droid-compacted.jsonl", "droid", "66666666-7777-4888-9999-000000000000", "/w/proj"},
		{"codex-bare.jsonl", "codex", "", ""},
		{"gemini-0.61-tool-resumed.jsonl", "gemini-cli", "5267ac08-f37b-4dba-8b75-03516e6d5b17", ""},
		{"qwen-0.24-tool-resumed.jsonl", "qwen-code", "6dcf41ac-0efc-4c99-a20c-424ba1470c63", "/tmp/TestAgentQwenSession530154303/001/proj"},
		{"opencode-1.18-tool.jsonl", "opencode", "ses_ddda26219ffeuyiU5usHydCG74", "/tmp/oc-explore/proj"},
		{"kilo-7.7-compacted.jsonl", "kilo", "ses_ddce0f95dffezPP2j0u8jUTd7y", "/tmp/kilo-x/run3/proj"},
		{"cline-3.0-tool-resumed.jsonl", "cline", "1795898977811_3xsx5", "/tmp/TestAgentClineSession1662790016/001/proj"},
		{"nanocoder-1.30-tool-resumed.jsonl", "nanocoder", "2e8ad5ce-ca6d-45e3-b8e7-f38a9ee5d892", "/tmp/TestAgentNanocoderSession521389683/001/proj"},
	}
	for _, c := range cases {
		p := filepath.Join("..", "..", "testdata", "fixtures", c.fixture)
		dir := filepath.Join(t.TempDir(), "index")
		if _, err := Update(dir, []string{p}, nil, UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		m, _ := readManifest(dir)
		abs, _ := filepath.Abs(p)
		e := m.Files[abs]
		if e == nil || e.Format != c.format || c.session != "" && (e.Session != c.session || e.Project != c.project) {
			t.Errorf("%s: %+v", c.fixture, e)
		}
	}
}
