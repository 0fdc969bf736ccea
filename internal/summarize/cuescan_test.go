package summarize

import (
	"bytes"
	"github.com/ctxc/ctxc/internal/transcript"
	"reflect"
	"strings"
	"testing"
)

// The per-line searches that cuescan.go replaced, kept as the reference the faster scan must
// agree with.

func refErrorLines(name, t string) []string {
	var out []string
	for rest := t; rest != ""; {
		line, more, _ := strings.Cut(rest, "\n")
		rest = more
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		low := appendLowerASCII(nil, clip(line, scanLineBytes))
		match := false
		for _, p := range outputErrorStarts {
			if bytes.HasPrefix(low, []byte(p)) {
				match = true
			}
		}
		for _, c := range outputErrorContains {
			if bytes.Contains(low, []byte(c)) {
				match = true
			}
		}
		if match {
			out = append(out, name+": "+oneLine(line, capErrorLine))
		}
	}
	return out
}

func refProse(t string, cues []string) []string {
	var out []string
	for rest := t; rest != ""; {
		line, more, _ := strings.Cut(rest, "\n")
		rest = more
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "$ ") {
			out = append(out, "cmd:"+oneLine(line[2:], capCommand))
		}
		low := appendLowerASCII(nil, line)
		for _, c := range cues {
			if k := bytes.Index(low, []byte(c)); k >= 0 {
				out = append(out, "cue:"+oneLine(sentenceAround(line, k), capSentence))
				break
			}
		}
	}
	return out
}

func collected(t *testing.T, run func(e *extractor)) []pendingPush {
	t.Helper()
	pending := make([][]pendingPush, 1)
	e := &extractor{collect: pending, items: []transcript.Item{{}}}
	run(e)
	return pending[0]
}

func checkCueScan(t *testing.T, text string) {
	t.Helper()
	var got []string
	for _, p := range collected(t, func(e *extractor) { e.errorLines(0, "Bash", text) }) {
		got = append(got, p.text)
	}
	if want := refErrorLines("Bash", text); !reflect.DeepEqual(got, want) {
		t.Fatalf("errorLines(%q)\n got %q\nwant %q", text, got, want)
	}
	got = nil
	for _, p := range collected(t, func(e *extractor) { e.scanProse(0, text, text, decisionSet, secDecisions) }) {
		switch p.sec {
		case secCommands:
			got = append(got, "cmd:"+p.text)
		case secDecisions:
			got = append(got, "cue:"+p.text)
		}
	}
	if want := refProse(text, decisionCues); !reflect.DeepEqual(got, want) {
		t.Fatalf("scanProse(%q)\n got %q\nwant %q", text, got, want)
	}
}

func TestCueScanMatchesPerLineSearch(t *testing.T) {
	long := strings.Repeat("x", scanLineBytes-3)
	for _, text := range []string{
		"",
		"\n\n",
		"error: boom",
		"  Error: boom  \r\nok\n--- FAIL: TestX (0.01s)\n",
		"\u00a0\u3000fatal: not a git repository\u00a0",
		"log line\nsomething: error here\nexit status 1",
		long + "error:",       // cue cut by the 512-byte clip
		long + "ér",           // clip on a rune boundary
		long[:10] + ": error", // fits
		"e   x\ne\nE   \n",
		"We decided to use X because Y. Let's go.\n$ go test ./...\nInstead, rather than Z.",
		"let's let's\nbecause\n  because  ",
		"exit statusexit status\nerror:error:",
		"naïve café: error — 日本語 error: 🙂",
	} {
		checkCueScan(t, text)
	}
}

func FuzzCueScan(f *testing.F) {
	for _, s := range []string{"error: x\n  fail\n", "decided because\n$ ls", "\u0085error:\u00a0", "e   \n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkCueScan(t, text)
	})
}

func TestLowerASCII(t *testing.T) {
	var all []byte
	for c := 0; c < 256; c++ {
		all = append(all, byte(c))
	}
	for _, s := range []string{"", "A", "Hello, WORLD! @[`{ ÀÉ naïve ZzAa", string(all), string(all[3:]) + "XYZ"} {
		if got, want := string(lowerASCII(nil, s)), string(appendLowerASCII(nil, s)); got != want {
			t.Errorf("lowerASCII(%q) = %q, want %q", s, got, want)
		}
	}
}

// appendLowerASCII is the byte-at-a-time lowercasing that lowerASCII must agree with.
func appendLowerASCII(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// An item read only at its ends previews exactly as the whole text would.
func TestPreviewEndsMatchesPreview(t *testing.T) {
	for _, s := range []string{
		"  \n" + strings.Repeat("line of output — 日本語\n", 3000) + "FAIL: last line\n\t ",
		strings.Repeat("x", 40000), // no line breaks
	} {
		it := transcript.Item{Kind: "tool_result", Text: s[:ToolEndBytes], Tail: s[len(s)-ToolEndBytes:], Chars: len([]rune(s))}
		if got, want := previewBody(it), preview(strings.TrimSpace(s), toolResultHead, toolResultTail); got != want {
			t.Errorf("previewEnds:\n%q\nwant\n%q", got, want)
		}
	}
}
