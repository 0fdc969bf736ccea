package transcript

import (
	"os"
	"strings"
	"testing"
)

func scanFile(t *testing.T, path string, opts Options) (*Result, []Message) {
	t.Helper()
	res, msgs, err := ReadFile(path, opts)
	if err != nil {
		t.Fatalf("ReadFile(%s): %v", path, err)
	}
	return res, msgs
}

func TestGenericOpenAI(t *testing.T) {
	res, msgs := scanFile(t, "../testdata/fixtures/openai-tools.jsonl", Options{})
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
	lines := strings.Split(strings.TrimSpace(readString(t, "../testdata/fixtures/openai-tools.jsonl")), "\n")
	if string(msgs[3].Raw) != lines[3] {
		t.Errorf("raw = %s", msgs[3].Raw)
	}
}

func TestBOMCRLFBadAndPending(t *testing.T) {
	var warns []Warning
	res, msgs := scanFile(t, "../testdata/fixtures/bom-crlf-bad.jsonl", Options{Warn: func(w Warning) { warns = append(warns, w) }})
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
	if _, _, err := ReadFile("../testdata/fixtures/bom-crlf-bad.jsonl", Options{Strict: true}); err == nil || !strings.Contains(err.Error(), "bom-crlf-bad.jsonl:4:") {
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
