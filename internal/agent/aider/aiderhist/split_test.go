package aiderhist

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// recordsOf splits text and returns its records.
func recordsOf(t *testing.T, text string) ([]Record, Counts) {
	t.Helper()
	var out []Record
	c, err := Split(strings.NewReader(text), func(r Record) error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, c
}

// TestSplitAsAider: the history is cut as Aider's split_chat_history_markdown cuts it: "#### "
// user lines, "> " output lines, other lines the model's, "# " lines skipped without ending the
// open message, runs of white space dropped.
func TestSplitAsAider(t *testing.T) {
	cases := []struct {
		name, text string
		want       []Record
	}{
		{"a session", "\n# aider chat started at 2024-08-05 19:33:02\n\n> Aider v0.46.1  \n\n#### fix it  \n#### now  \n\nDone.\n\n",
			[]Record{{Started: "2024-08-05 19:33:02", Session: 1, Line: 2},
				{Role: RoleTool, Content: "Aider v0.46.1  \n", Session: 1, Line: 4},
				{Role: RoleUser, Content: "fix it  \nnow  \n", Session: 1, Line: 6},
				{Role: RoleAssistant, Content: "\nDone.\n\n", Session: 1, Line: 8}}},
		{"a heading in a reply is skipped, the reply goes on", "#### q  \n\nA\n# heading\nB\n",
			[]Record{{Role: RoleUser, Content: "q  \n", Line: 1}, {Role: RoleAssistant, Content: "\nA\nB\n", Line: 2}}},
		{"a session's start inside a reply follows it", "#### q  \nA\n\n# aider chat started at T\n\nB\n",
			[]Record{{Role: RoleUser, Content: "q  \n", Line: 1}, {Role: RoleAssistant, Content: "A\n\n\nB\n", Line: 2},
				{Started: "T", Session: 1, Line: 4}}},
		{"CRLF and CR end lines", "#### a  \r\n> b  \rc\r\n",
			[]Record{{Role: RoleUser, Content: "a  \n", Line: 1}, {Role: RoleTool, Content: "b  \n", Line: 2},
				{Role: RoleAssistant, Content: "c\n", Line: 3}}},
		{"a form feed cuts a line, as Python's splitlines", "#### a\f#### b\n> c\u2028d\n",
			[]Record{{Role: RoleUser, Content: "a\fb\n", Line: 1}, {Role: RoleTool, Content: "c\u2028", Line: 2},
				{Role: RoleAssistant, Content: "d\n", Line: 2}}},
		{"white space only is no message", "#### \n>  \n\n  \n", nil},
		{"the last output lines are kept", "#### a\n> out\n", []Record{{Role: RoleUser, Content: "a\n", Line: 1},
			{Role: RoleTool, Content: "out\n", Line: 2}}},
		{"no end of line at the end", "#### a", []Record{{Role: RoleUser, Content: "a", Line: 1}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := recordsOf(t, c.text)
			for i := range c.want {
				c.want[i].Type = RecordType
			}
			if len(got) != len(c.want) {
				t.Fatalf("records %+v, want %+v", got, c.want)
			}
			for i := range got {
				if got[i] != c.want[i] {
					t.Errorf("record %d: %+v, want %+v", i, got[i], c.want[i])
				}
			}
		})
	}
}

func TestSplitRefusesWhatIsNotUTF8(t *testing.T) {
	_, err := Split(strings.NewReader("#### a\n#### caf\xe9\n"), func(Record) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "line 2: not UTF-8") {
		t.Errorf("error %v", err)
	}
}

// TestPublicHistories: the counts of Aider's own split_chat_history_markdown (Aider 0.86.2) on
// public histories (testdata/aider/SOURCES.md), and the export's lines numbered as the
// Markdown's.
func TestPublicHistories(t *testing.T) {
	cases := []struct {
		path string
		want Counts
	}{
		{"../../../../testdata/aider/aider/chat-history.md", Counts{Sessions: 1133, User: 1776, Assistant: 1214, Tool: 2816}},
		{"../../../../testdata/aider/zen-mcp-server/.aider.chat.history.md", Counts{Sessions: 4, User: 8, Assistant: 0, Tool: 12}},
	}
	for _, c := range cases {
		md, err := os.ReadFile(c.path)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		got, err := Export(bytes.NewReader(md), &out)
		if err != nil || got != c.want {
			t.Errorf("%s: %+v, %v; want %+v", c.path, got, err, c.want)
		}
		mdLines := strings.Split(string(md), "\n")
		for i, l := range strings.Split(out.String(), "\n") {
			if l == "" {
				continue
			}
			var r Record
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("%s: export line %d: %v", c.path, i+1, err)
			}
			if r.Line != i+1 {
				t.Errorf("%s: export line %d holds the record of Markdown line %d", c.path, i+1, r.Line)
			}
			if src := mdLines[r.Line-1]; r.Started != "" && !strings.HasPrefix(src, SessionPrefix) ||
				r.Role == RoleUser && !strings.HasPrefix(src, "#### ") || r.Role == RoleTool && !strings.HasPrefix(src, "> ") {
				t.Errorf("%s:%d: a %s record from %q", c.path, r.Line, r.Role, src)
			}
		}
	}
}

func TestIsHistory(t *testing.T) {
	dir := t.TempDir()
	named := dir + "/" + FileName
	other := dir + "/chat.md"
	notes := dir + "/notes.md"
	os.WriteFile(named, nil, 0o600)
	os.WriteFile(other, []byte("intro\n# aider chat started at 2024-01-01 00:00:00\n"), 0o600)
	os.WriteFile(notes, []byte("# notes\n"), 0o600)
	for p, want := range map[string]bool{named: true, other: true, notes: false, dir: false, dir + "/none.md": false} {
		if got := IsHistory(p); got != want {
			t.Errorf("IsHistory(%s) = %v", p, got)
		}
	}
}

// FuzzExport: any text exports as JSON lines, each record on the line numbered as the Markdown
// line it starts at (or later, when a line starts two), in order.
func FuzzExport(f *testing.F) {
	for _, p := range []string{"../../../../testdata/aider/zen-mcp-server/.aider.chat.history.md"} {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("#### a\f#### b\r\n> c\rd\n# aider chat started at x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		if _, err := Export(bytes.NewReader(data), &out); err != nil {
			return
		}
		last := 0
		for i, l := range strings.Split(out.String(), "\n") {
			if l == "" {
				continue
			}
			var r Record
			if err := json.Unmarshal([]byte(l), &r); err != nil {
				t.Fatalf("line %d: %v: %q", i+1, err, l)
			}
			if r.Line > i+1 || i+1 <= last || r.Type != RecordType {
				t.Fatalf("line %d holds %+v (last %d)", i+1, r, last)
			}
			last = i + 1
		}
	})
}
