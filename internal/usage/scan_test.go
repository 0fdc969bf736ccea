package usage

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
)

// byLineReader is what scanLines must give: jsonl's reader's lines that hold a pattern.
func byLineReader(data []byte, want [][]byte) (heads, hits []string) {
	lr := jsonl.NewLineReader(bytes.NewReader(data))
	for {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			return
		}
		if l.Num <= describeLines {
			heads = append(heads, fmt.Sprintf("%d:%s", l.Num, l.Bytes))
		}
		if matches(l.Bytes, want) {
			hits = append(hits, fmt.Sprintf("%d:%s", l.Num, l.Bytes))
		}
	}
}

func byScan(data []byte, want [][]byte) (heads, hits []string) {
	scanLines(bytes.NewReader(data), want, func(n int, b []byte) {
		if !jsonl.IsBlank(b) {
			heads = append(heads, fmt.Sprintf("%d:%s", n, b))
		}
	}, func(n int, b []byte) {
		hits = append(hits, fmt.Sprintf("%d:%s", n, b))
	})
	return
}

func sameLines(t *testing.T, name string, data []byte) {
	t.Helper()
	want := [][]byte{[]byte(`"usage"`), []byte(`"token_count"`)}
	h1, l1 := byLineReader(data, want)
	h2, l2 := byScan(data, want)
	if strings.Join(h1, "\n") != strings.Join(h2, "\n") || strings.Join(l1, "\n") != strings.Join(l2, "\n") {
		t.Errorf("%s: scan gives heads %q lines %q; the line reader %q %q", name, h2, l2, h1, l1)
	}
}

// TestScanLinesAsLineReader: the block scan numbers and cuts lines as jsonl's reader does.
func TestScanLinesAsLineReader(t *testing.T) {
	many := strings.Repeat(`{"x":1}`+"\n", 100) + `{"usage":2}` + "\n" + strings.Repeat("\n", 5) + `{"usage":3}` + "\r\n"
	long := `{"usage":"` + strings.Repeat("a", scanBlock+100) + `"}` + "\n" + `{"usage":4}` + "\n"
	for name, data := range map[string]string{
		"empty":                  "",
		"one line":               `{"usage":1}` + "\n",
		"BOM, CRLF, blank lines": "\xEF\xBB\xBF" + `{"usage":1}` + "\r\n\n\n" + `{"token_count":1}` + "\n",
		"unterminated last line": `{"usage":1}` + "\n" + `{"usage":2}`,
		"after the first lines":  many,
		"a line over a block":    long,
		"two patterns on a line": `{"usage":1,"token_count":2}` + "\n" + `{"a":"usage"}` + "\n",
	} {
		sameLines(t, name, []byte(data))
	}
}

func FuzzScanLines(f *testing.F) {
	f.Add([]byte("{\"usage\":1}\n\n\r\n{\"token_count\":2}\r\n{\"usage\""))
	f.Add([]byte("\xEF\xBB\xBF\"usage\"\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameLines(t, "fuzz", data)
	})
}

// TestScanSkipsLinesTooLongForAResponse: a line longer than longLine (a tool's output) is counted
// but never held nor given, even when it holds a pattern; the lines after it keep their numbers.
func TestScanSkipsLinesTooLongForAResponse(t *testing.T) {
	defer func(n int) { longLine = n }(longLine)
	longLine = 2 * scanBlock
	huge := `{"type":"user","content":"` + strings.Repeat("x", 5*scanBlock) + `","usage":9}`
	for name, tc := range map[string]struct {
		data string
		want []string
	}{
		"between responses":  {`{"usage":1}` + "\n" + huge + "\n" + `{"usage":2}` + "\n", []string{"1", "3"}},
		"last, unterminated": {`{"usage":1}` + "\n" + huge, []string{"1"}},
		"first, then lines":  {huge + "\n\n" + `{"usage":3}` + "\r\n", []string{"3"}},
		"under the limit":    {`{"usage":"` + strings.Repeat("y", scanBlock+10) + `"}` + "\n" + `{"usage":4}` + "\n", []string{"1", "2"}},
	} {
		var got []string
		err := scanLines(strings.NewReader(tc.data), [][]byte{[]byte(`"usage"`)}, func(int, []byte) {}, func(n int, b []byte) {
			if len(b) > longLine {
				t.Errorf("%s: a line of %d bytes was given", name, len(b))
			}
			got = append(got, fmt.Sprint(n))
		})
		if err != nil || strings.Join(got, ",") != strings.Join(tc.want, ",") {
			t.Errorf("%s: lines %v (err %v), want %v", name, got, err, tc.want)
		}
	}
}

// TestRecordedFormats: the formats whose usage is read are the agents that record it per
// response with its model, and a stream's lines are searched for every one of their probes.
func TestRecordedFormats(t *testing.T) {
	var got []string
	for _, f := range transcript.Formats() {
		if Recorded(f) {
			got = append(got, string(f))
		}
	}
	if want := "claude-code codex pi opencode kilo goose omp"; strings.Join(got, " ") != want {
		t.Errorf("Recorded: %s, want %s", strings.Join(got, " "), want)
	}
	var probes []string
	for _, p := range patterns(transcript.FormatUnknown) {
		probes = append(probes, string(p))
	}
	if want := `"usage" "turn_context" "token_count" "step-finish" "inputTokens"`; strings.Join(probes, " ") != want {
		t.Errorf("a stream's probes: %s, want %s", strings.Join(probes, " "), want)
	}
}

// TestGooseUsage: the answers of a session the real Goose wrote (its store's export) are read
// with their usage, model and time, as stats --json counts them.
func TestGooseUsage(t *testing.T) {
	f, err := os.Open("../../testdata/fixtures/goose-1.52-tool-resumed.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := Read(f, transcript.Format("goose"))
	if err != nil {
		t.Fatal(err)
	}
	var in, out int64
	for _, r := range rs {
		in, out = in+r.Input, out+r.Output
		if r.Model != "fake-model" || r.Time.IsZero() {
			t.Errorf("line %d: model %q, time %v", r.Line, r.Model, r.Time)
		}
	}
	if len(rs) != 3 || in != 300 || out != 15 {
		t.Errorf("%d responses, %d in, %d out; want 3, 300, 15 (stats --json)", len(rs), in, out)
	}
}
