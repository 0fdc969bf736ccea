package summarize

import (
	"fmt"
	"github.com/ctxc/ctxc/internal/transcript"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/estimate"
)

// genSession builds a deterministic synthetic agent session of about size bytes.
func genSession(seed uint64, size int) []transcript.Item {
	r := rand.New(rand.NewPCG(seed, 7))
	words := strings.Fields("the a reader parser config token window chunk merge file test build error value " +
		"function module package server client request response context stream output input because instead")
	sentence := func(n int) string {
		var b strings.Builder
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		return b.String()
	}
	var items []transcript.Item
	total, line, group := 0, 0, 0
	for total < size {
		line++
		var it transcript.Item
		switch k := r.IntN(10); {
		case k < 2:
			it = transcript.Item{Role: "user", Kind: "text", Text: "Please " + sentence(12) + ". Never " + sentence(4) + ". See internal/pkg" + fmt.Sprint(r.IntN(50)) + "/file.go"}
		case k < 4:
			it = transcript.Item{Role: "assistant", Kind: "text", Text: "We decided to " + sentence(10) + " because " + sentence(8) + ".\nNext I run parseConfig() on ./data/x" + fmt.Sprint(r.IntN(99)) + ".json"}
		case k < 5:
			it = transcript.Item{Role: "assistant", Kind: "thinking", Text: sentence(80)}
		default:
			group++
			cmd := fmt.Sprintf(`{"command":"go test ./pkg%d/ -run Test%d"}`, r.IntN(30), r.IntN(1000))
			items = append(items, transcript.Item{Role: "assistant", Kind: "tool_call", Name: "Bash", Text: cmd, Group: group, Line: line})
			total += len(cmd)
			line++
			var out strings.Builder
			for j := r.IntN(60); j >= 0; j-- {
				if r.IntN(15) == 0 {
					out.WriteString("error: " + sentence(6) + "\n")
				} else {
					out.WriteString(sentence(9) + "\n")
				}
			}
			it = transcript.Item{Role: "tool", Kind: "tool_result", Name: "Bash", Text: out.String(), IsError: r.IntN(6) == 0, Group: group}
		}
		it.Line = line
		items = append(items, it)
		total += len(it.Text)
	}
	items = append(items, transcript.Item{Role: "user", Kind: "text", Text: "LAST REQUEST: ship the reader refactor and tag v1.2.3", Line: line + 1})
	return items
}

func TestExtractiveDeterministic(t *testing.T) {
	for _, items := range [][]transcript.Item{sampleItems(), bigItems(50, 800), genSession(1, 300_000)} {
		for _, target := range []int{40, 300, 2000} {
			a := Extractive(Request{Items: items, TargetTokens: target})
			b := Extractive(Request{Items: append([]transcript.Item(nil), items...), TargetTokens: target})
			if a.Text != b.Text {
				t.Fatalf("target %d: output differs between runs", target)
			}
			if a.Provider != "extractive" || a.Prompt != PromptExtractive || a.Model != "" || a.Fallback != "none" {
				t.Errorf("result metadata = %+v", a)
			}
		}
	}
}

func TestExtractiveWithinTarget(t *testing.T) {
	inputs := map[string][]transcript.Item{"sample": sampleItems(), "big": bigItems(50, 800), "session": genSession(2, 500_000)}
	for name, items := range inputs {
		for _, target := range []int{25, 60, 150, 500, 2000, 8000} {
			res := Extractive(Request{Items: items, TargetTokens: target})
			if got := estimate.Tokens(res.Text); got > target {
				t.Errorf("%s target %d: got ~%d tokens", name, target, got)
			}
			if res.Text == "" {
				t.Errorf("%s target %d: empty", name, target)
			}
		}
	}
}

func TestExtractiveKeeps(t *testing.T) {
	res := Extractive(Request{Items: sampleItems(), TargetTokens: 2000})
	for _, want := range []string{
		"## Last user request\n[line 10] Now also add a benchmark for Tokens and run it once.",
		"/home/dev/ctxc/estimate/estimate.go",
		"estimate/estimate_test.go",
		"[line 6] Bash: --- FAIL: TestTokens",
		"go test ./estimate/",
		"Never touch go.mod",
		"[line 7] We decided to use utf8.RuneCountInString instead of len, because len counts bytes.",
		"## Last state\n[line 11] assistant: Adding BenchmarkTokens",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("missing %q in:\n%s", want, res.Text)
		}
	}
}

// TestExtractiveLastRequestAlways: however much else there is and however small the target,
// the last user request survives.
func TestExtractiveLastRequestAlways(t *testing.T) {
	items := genSession(3, 2_000_000)
	for _, target := range []int{30, 100, 2000} {
		res := Extractive(Request{Items: items, TargetTokens: target})
		if !strings.Contains(res.Text, "LAST REQUEST: ship") {
			t.Errorf("target %d: last request lost:\n%s", target, res.Text)
		}
	}
	res := Extractive(Request{Items: items, TargetTokens: 2000})
	for _, want := range []string{"## Errors", "## Decisions", "## Files", "## Commands", "## User requests", "more lines left out"} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("missing %q", want)
		}
	}
}

func TestExtractiveEarlierSummaryAndCodex(t *testing.T) {
	items := []transcript.Item{
		{Role: "user", Kind: "summary", Text: "## Goal\n- migrate the db to sqlite\n## Decisions\n- none\n- keep WAL mode because of concurrent readers", Line: 2},
		{Role: "assistant", Kind: "tool_call", Name: "shell", Text: `{"command":["bash","-lc","sqlite3 app.db .schema"]}`, Line: 3},
		{Role: "tool", Kind: "tool_result", Name: "shell", Text: "Error: unable to open database file", IsError: true, Line: 4},
		{Role: "user", Kind: "text", Text: "retry with the path /var/lib/app/app.db", Line: 5},
	}
	res := Extractive(Request{Items: items, TargetTokens: 500})
	for _, want := range []string{
		"## Earlier summary\n- migrate the db to sqlite\n- keep WAL mode because of concurrent readers",
		"- sqlite3 app.db .schema",
		"[line 4] shell: Error: unable to open database file",
		"/var/lib/app/app.db",
	} {
		if !strings.Contains(res.Text, want) {
			t.Errorf("missing %q in:\n%s", want, res.Text)
		}
	}
	if strings.Contains(res.Text, "- none") {
		t.Errorf("'none' placeholder copied:\n%s", res.Text)
	}
}

func TestExtractiveEmpty(t *testing.T) {
	if got := Extractive(Request{}).Text; got != "" {
		t.Errorf("empty input gave %q", got)
	}
}

// TestExtractiveLinear guards against quadratic behaviour: 8× the input must not take much
// more than 8× the time (generous bounds: the machine is shared).
func TestExtractiveLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	small, large := genSession(4, 1_000_000), genSession(4, 8_000_000)
	timeIt := func(items []transcript.Item) time.Duration {
		best := time.Duration(1 << 62)
		for range 3 {
			runtime.GC()
			start := time.Now()
			Extractive(Request{Items: items})
			best = min(best, time.Since(start))
		}
		return best
	}
	ts, tl := timeIt(small), timeIt(large)
	// Linear would be 8×; quadratic 64×. The slack absorbs a busy shared machine.
	if tl > 30*ts+time.Second {
		t.Errorf("1 MB: %v, 8 MB: %v: worse than linear", ts, tl)
	}
	t.Logf("1 MB: %v, 8 MB: %v", ts, tl)
}

func TestPathsAndIdentifiers(t *testing.T) {
	paths := []string{"/etc/hosts", "./cmd/ctxc", "../x/y.go", "~/.config/ctxc/config.toml", "src/main.rs", "main.go",
		"C:\\Users\\me\\file.txt", "cmd/", "a/b/c", "Makefile"}
	for _, p := range paths {
		if !isPath(p) {
			t.Errorf("isPath(%q) = false", p)
		}
	}
	for _, p := range []string{"and/or", "TCP/IP", "10/12/2024", "hello", "e.g", "http://x.y/z", "1.2.3", ".5"} {
		if isPath(p) {
			t.Errorf("isPath(%q) = true", p)
		}
	}
	for _, id := range []string{"38620ce", "0f8fad5b-d9cb-469f-a165-70867728950e", "--keep-tail", "OPENAI_API_KEY", "parseConfig", "estimate.Tokens"} {
		if !isIdentifier(id) {
			t.Errorf("isIdentifier(%q) = false", id)
		}
	}
	for _, id := range []string{"hello", "Hello", "1234567", "deadline", "e.g", "--", "_x_"} {
		if isIdentifier(id) {
			t.Errorf("isIdentifier(%q) = true", id)
		}
	}
}

func TestOneLineAndCaps(t *testing.T) {
	if got := oneLine("  a\n\n b\tc  ", 10); got != "a b c" {
		t.Errorf("oneLine = %q", got)
	}
	if got := oneLine("abcdefghij", 4); got != "abcd…" {
		t.Errorf("oneLine cap = %q", got)
	}
	if got := capRunes("ééééé", 3); got != "éé…" || estimate.Chars(got) != 3 {
		t.Errorf("capRunes = %q", got)
	}
	if got := capRunes("ééé", 3); got != "ééé" {
		t.Errorf("capRunes exact = %q", got)
	}
	if got := clip("aé", 2); got != "a" {
		t.Errorf("clip = %q", got)
	}
}

func BenchmarkExtractive(b *testing.B) {
	items := genSession(5, 4_000_000)
	size := 0
	for _, it := range items {
		size += len(it.Text)
	}
	b.SetBytes(int64(size))
	b.ResetTimer()
	for b.Loop() {
		Extractive(Request{Items: items})
	}
}

func TestToolCallArgumentKeys(t *testing.T) {
	for _, tc := range []struct {
		name, args string
		files, ids []string
	}{
		{"Edit", `{"file_path":"/srv/app/main.go","old_string":"a\nb","new_string":"c"}`, []string{"/srv/app/main.go"}, nil},
		{"Read", `{"paths":["x"],"path":["a/b.go","c/d.py"],"file":"e.txt"}`, []string{"a/b.go", "c/d.py", "e.txt"}, nil},
		{"Fetch", `{"url":"https://example.com/x","file_path":""}`, nil, []string{"https://example.com/x"}},
		{"edit", `{"path":"first.go","path":"second.go","nested":{"path":"inner.go"}}`, []string{"first.go"}, nil},
		{"Odd", `{"path":12,"dir":null,"url":["u"]}`, nil, nil},
		// A tool that neither reads nor writes a file names no file of the session, whatever
		// its arguments' keys: the ledger judges a summary's files by the same tools.
		{"Grep", `{"pattern":"TODO","path":"src"}`, nil, nil},
		{"list_directory", `{"dir":"/srv/app"}`, nil, nil},
	} {
		pending := make([][]pendingPush, 1)
		e := &extractor{collect: pending, items: []transcript.Item{{}}}
		e.toolCall(0, transcript.Item{Role: "assistant", Kind: "tool_call", Name: tc.name, Text: tc.args})
		var files, ids []string
		for _, p := range pending[0] {
			switch p.sec {
			case secFiles:
				files = append(files, p.text)
			case secIdentifiers:
				ids = append(ids, p.text)
			}
		}
		if strings.Join(files, "|") != strings.Join(tc.files, "|") || strings.Join(ids, "|") != strings.Join(tc.ids, "|") {
			t.Errorf("%s %s: files %q ids %q, want %q %q", tc.name, tc.args, files, ids, tc.files, tc.ids)
		}
	}
}

func TestExtractiveErrorLinesOfRecentResults(t *testing.T) {
	var items []transcript.Item
	items = append(items, transcript.Item{Role: "user", Kind: "text", Text: "fix the build"})
	for i := 0; i < errorScanResults+500; i++ {
		out := "ok"
		isErr := false
		switch i {
		case 10:
			out = "error: old failure in a successful run"
		case 11:
			out, isErr = "fatal: old failed call", true
		case errorScanResults + 400:
			out = "error: recent failure"
		}
		items = append(items, transcript.Item{Role: "assistant", Kind: "tool_call", Name: "Bash", Text: `{"command":"make"}`, Group: i + 2},
			transcript.Item{Role: "tool", Kind: "tool_result", Name: "Bash", Text: out, IsError: isErr, Group: i + 2})
	}
	got := Extractive(Request{Items: items, TargetTokens: 4000}).Text
	if !strings.Contains(got, "error: recent failure") || !strings.Contains(got, "fatal: old failed call") {
		t.Errorf("recent error line or failed call missing:\n%s", got)
	}
	if strings.Contains(got, "old failure in a successful run") {
		t.Errorf("error line older than the last %d results searched:\n%s", errorScanResults, got)
	}
}

// A shell is told by its whole name as the registry has it: "command" in "SlashCommand" or
// "shell" in "shell_history" does not make a shell of a tool.
func TestShellToolsByWholeName(t *testing.T) {
	for name, shell := range map[string]bool{"Bash": true, "run_shell_command": true, "exec_command": true,
		"SlashCommand": false, "shell_history": false} {
		pending := make([][]pendingPush, 1)
		e := &extractor{collect: pending, items: []transcript.Item{{}}}
		e.toolCall(0, transcript.Item{Role: "assistant", Kind: "tool_call", Name: name, Text: `{"command":"make test"}`})
		got := false
		for _, p := range pending[0] {
			got = got || p.sec == secCommands
		}
		if got != shell {
			t.Errorf("%s: listed as a command %v, want %v", name, got, shell)
		}
	}
}
