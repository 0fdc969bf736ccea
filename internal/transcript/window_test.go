package transcript

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A windowed load keeps the ends of big tool results and none of their lines' bytes;
// Materialize gives back exactly what a full load reads, in every format that windows.
func TestWindowedLoadAndMaterialize(t *testing.T) {
	big := func(i int) string {
		return fmt.Sprintf("START %d\n", i) + strings.Repeat("line of tool output\twith a tab, \"quotes\" and 日本語\n", 3000) + fmt.Sprintf("END %d", i)
	}
	var openai, claude strings.Builder
	openai.WriteString("\ufeff" + `{"role":"tool","tool_call_id":"c0","content":` + mustJSON(t, big(0)) + "}\r\n") // BOM, CRLF
	claude.WriteString(`{"type":"user","uuid":"u0","parentUuid":null,"message":{"role":"user","content":"go"}}` + "\n")
	parent := "u0"
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&openai, `{"role":"assistant","content":null,"tool_calls":[{"id":"c%d","type":"function","function":{"name":"sh","arguments":"{}"}}]}`+"\n", i)
		fmt.Fprintf(&openai, `{"role":"tool","tool_call_id":"c%d","content":%s}`+"\n", i, mustJSON(t, big(i)))
		a, r := fmt.Sprintf("a%d", i), fmt.Sprintf("r%d", i)
		fmt.Fprintf(&claude, `{"type":"assistant","uuid":"%s","parentUuid":"%s","message":{"id":"m%d","role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{}}]}}`+"\n", a, parent, i, i)
		fmt.Fprintf(&claude, `{"type":"user","uuid":"%s","parentUuid":"%s","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":%s}]}}`+"\n", r, a, i, mustJSON(t, big(i)))
		parent = r
	}
	for name, content := range map[string]string{"openai": openai.String(), "claude": claude.String()} {
		p := filepath.Join(t.TempDir(), name+".jsonl")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		_, full, err := LoadFile(p, Options{})
		if err != nil {
			t.Fatal(err)
		}
		_, win, err := LoadFile(p, Options{Windowed: true})
		if err != nil {
			t.Fatal(err)
		}
		cut := 0
		for _, m := range win {
			for _, b := range m.Blocks {
				if b.Cut {
					cut++
					if !strings.HasPrefix(b.Text, "START") || !strings.HasPrefix(b.Tail[len(b.Tail)-5:], "END") || len(b.Text) < ToolTextWindow || len(b.Tail) < ToolTextWindow {
						t.Errorf("%s: windowed block: head %d bytes, tail %d bytes", name, len(b.Text), len(b.Tail))
					}
				}
			}
		}
		if want := strings.Count(content, "START"); cut != want {
			t.Fatalf("%s: %d windowed blocks, want %d", name, cut, want)
		}
		f, _ := os.Open(p)
		if err := Materialize(f, win); err != nil {
			t.Fatal(err)
		}
		f.Close()
		if !reflect.DeepEqual(win, full) {
			t.Errorf("%s: materialized messages differ from a full load", name)
		}
		// A file changed since the load is noticed, not read as different text.
		_, win, _ = LoadFile(p, Options{Windowed: true})
		os.WriteFile(p, []byte(strings.ReplaceAll(content, "START", "BEGIN")), 0o644)
		f, _ = os.Open(p)
		if err := Materialize(f, win); err == nil || !strings.Contains(err.Error(), "changed") {
			t.Errorf("%s: materialize after a change: %v", name, err)
		}
		f.Close()
	}
}

func mustJSON(t *testing.T, s string) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestUnnumberedLoadAfterMarker(t *testing.T) {
	content := `{"role":"user","content":"a"}` + "\n" + `{"role":"assistant","content":"b"}` + "\n" +
		`{"compact":"summary of a and b"}` + "\n" + `{"role":"user","content":"c"}` + "\n" + `{"role":"assistant","content":"d"}` + "\n"
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	lines := func(o Options) []int {
		_, ms, err := LoadFile(p, o)
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, m := range ms {
			out = append(out, m.Line)
		}
		return out
	}
	if got := lines(Options{}); !reflect.DeepEqual(got, []int{3, 4, 5}) {
		t.Errorf("numbered: %v", got)
	}
	// Without counting the lines before the marker, the marker is line 1.
	if got := lines(Options{Unnumbered: true}); !reflect.DeepEqual(got, []int{1, 2, 3}) {
		t.Errorf("unnumbered: %v", got)
	}
}
