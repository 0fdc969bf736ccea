package expand

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/compact"
	"github.com/ctxc/ctxc/internal/testsessions"
	"github.com/ctxc/ctxc/internal/transcript"
)

// TestExpand: in each format, in place and with -o, expand returns the messages the compaction
// summarized, as the file's own lines byte for byte, and refuses a span that was changed.
func TestExpand(t *testing.T) {
	sessions, err := testsessions.LongTools(filepath.Join("..", "..", "testdata", "fixtures"))
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range sessions {
		for _, newFile := range []bool{false, true} {
			t.Run(name+map[bool]string{false: "/in-place", true: "/-o"}[newFile], func(t *testing.T) {
				dir := t.TempDir()
				p := filepath.Join(dir, name+".jsonl")
				os.WriteFile(p, []byte(content), 0o644)
				old := time.Now().Add(-time.Hour)
				os.Chtimes(p, old, old)
				o := compact.Options{Threshold: 2000, Target: 300, Idle: compact.DefaultIdle, Now: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC), Zones: compact.ZoneOptions{KeepTail: 6}}
				target := p
				if newFile {
					o.Output = filepath.Join(dir, "out", "new.jsonl")
					os.MkdirAll(filepath.Dir(o.Output), 0o755)
					target = o.Output
				}
				out, err := compact.File(context.Background(), p, o)
				if err != nil || out.Status != compact.StatusCompacted {
					t.Fatalf("compact: %+v %v", out, err)
				}
				ex, err := At(target, 0, transcript.FormatUnknown)
				if err != nil {
					t.Fatal(err)
				}
				if ex.Source != p && !sameFile(ex.Source, p) {
					t.Errorf("source %s, want %s", ex.Source, p)
				}
				if len(ex.Messages) != out.Summarized {
					t.Errorf("%d messages, the compaction summarized %d", len(ex.Messages), out.Summarized)
				}
				// Byte-identical: every line is a line of the source within the span, in order.
				src := strings.SplitAfter(content, "\n")
				var want [][]byte
				for n := ex.From; n <= ex.To; n++ {
					rec, ok := transcript.DecodeRecord(mustFormat(t, content), []byte(src[n-1]), n)
					if ok && len(rec.Messages) > 0 {
						want = append(want, []byte(src[n-1]))
					}
				}
				if len(ex.Lines) == 0 || !equalLines(ex.Lines, want) {
					t.Errorf("expanded %d lines, want the %d message lines of %d-%d", len(ex.Lines), len(want), ex.From, ex.To)
				}
				// The summarized messages' text is there, whole.
				if !strings.Contains(string(bytes.Join(ex.Lines, nil)), strings.Repeat("x ", 300)) {
					t.Error("tool results missing from the expansion")
				}
				// Tamper with one byte inside the span: an error naming the span.
				b, _ := os.ReadFile(p)
				lines := strings.SplitAfter(string(b), "\n")
				mid := (ex.From + ex.To) / 2
				k := strings.Index(lines[mid-1], "x x")
				if k < 0 {
					k = strings.LastIndex(lines[mid-1], "\"")
				}
				lines[mid-1] = lines[mid-1][:k] + "y" + lines[mid-1][k+1:]
				os.WriteFile(p, []byte(strings.Join(lines, "")), 0o644)
				_, err = At(target, 0, transcript.FormatUnknown)
				var se *SpanError
				if !errors.As(err, &se) || se.Span.From != ex.From || se.Span.To != ex.To || !strings.Contains(err.Error(), "changed") {
					t.Errorf("tampered span: %v", err)
				}
			})
		}
	}
}

func sameFile(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

func mustFormat(t *testing.T, content string) transcript.Format {
	f, err := transcript.Detect(strings.NewReader(content), "x", transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if f == transcript.FormatUnknown {
		f = transcript.FormatOpenAI
	}
	return f
}

func equalLines(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
