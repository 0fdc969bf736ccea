package clinetask

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func parse(t *testing.T, doc string) []gjson.Result {
	t.Helper()
	if !gjson.Valid(doc) {
		t.Fatalf("not JSON: %s", doc)
	}
	return gjson.Parse(doc).Array()
}

// sentOf lists the sent indexes, with a line's calls and dropped results.
func sentOf(lines []Line) string {
	var out []string
	for _, l := range lines {
		if !l.Sent {
			continue
		}
		s := fmt.Sprint(l.Index)
		if len(l.Calls) > 0 {
			s += fmt.Sprint("c", l.Calls)
		}
		if l.DropResults {
			s += "d"
		}
		if len(l.Drop) > 0 {
			s += fmt.Sprint("x", l.Drop)
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

func TestClineReloadRule(t *testing.T) {
	six := `[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{}}]},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r"}]},{"role":"assistant","content":"b"},
	{"role":"user","content":[{"type":"tool_result","tool_use_id":"t9","content":"r"},{"type":"text","text":"c"}]},
	{"role":"assistant","content":[{"type":"tool_use","id":"t2","name":"read_file","input":{}}]}]`
	for _, tc := range []struct {
		name    string
		deleted []int
		want    string
		open    string
	}{
		{"no range: every message, a user message after calls names them", nil, "0 1 2c[t1] 3 4 5", "[t2]"},
		{"a range: the first pair, then the messages after it, the first one's results dropped and the pair's calls answered", []int{2, 3}, "0 1 4c[t1]d 5", "[t2]"},
		{"a range past the end: the first pair, its calls open", []int{2, 9}, "0 1", "[t1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines, open := clineLines(parse(t, six), tc.deleted, nil)
			if got := sentOf(lines); got != tc.want {
				t.Errorf("sent %q, want %q", got, tc.want)
			}
			if got := fmt.Sprint(open); (len(open) > 0 || tc.open != "") && got != tc.open {
				t.Errorf("open calls %s, want %s", got, tc.open)
			}
		})
	}
}

func TestRooReloadRule(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"after a summary: it and what follows, orphan results dropped",
			`[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"x","input":{}}]},
			{"role":"user","content":"summary","isSummary":true,"condenseId":"c1"},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"r"},{"type":"text","text":"b"}]}]`,
			"2 3x[t1]"},
		{"no summary: condensed messages whose summary is gone are sent, truncated ones not",
			`[{"role":"user","content":"a","condenseParent":"gone"},{"role":"assistant","content":"b","truncationParent":"k"},
			{"role":"user","content":"marker","isTruncationMarker":true,"truncationId":"k"},{"role":"assistant","content":"c"}]`,
			"0 2 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := sentOf(rooLines(parse(t, tc.doc))); got != tc.want {
				t.Errorf("sent %q, want %q", got, tc.want)
			}
		})
	}
}

// FuzzExport: a task's history and its context edits, whatever they hold, export without a
// panic, each message on a line of valid JSON.
func FuzzExport(f *testing.F) {
	f.Add([]byte(`[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}]`),
		[]byte(`[[1,[0,[[0,[[1,"text",["edited"],[]]]]]]]]`))
	f.Add([]byte(`[{"role":"user","content":"s","isSummary":true,"condenseId":"c"}]`), []byte(`[]`))
	f.Fuzz(func(t *testing.T, history, edits []byte) {
		dir := filepath.Join(t.TempDir(), "tasks", "1")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, HistoryFile)
		os.WriteFile(path, history, 0o644)
		os.WriteFile(filepath.Join(dir, contextHistoryFile), edits, 0o644)
		var out bytes.Buffer
		if err := Export(path, &out); err != nil {
			return
		}
		for i, l := range bytes.Split(bytes.TrimSuffix(out.Bytes(), []byte("\n")), []byte("\n")) {
			if !json.Valid(l) {
				t.Fatalf("line %d is not JSON: %s", i+1, l)
			}
		}
	})
}
