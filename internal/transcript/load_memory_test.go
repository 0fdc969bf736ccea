package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/bigbuf"
	"github.com/ctxc/ctxc/internal/msglist"
	"github.com/ctxc/ctxc/internal/testsessions"
)

// longClaudeSession writes a Claude Code session whose third line is a tool result of n bytes
// of text (escapes included when escaped), and returns its path and the length of that line.
func longClaudeSession(t *testing.T, n int, escaped bool) (string, int) {
	t.Helper()
	unit := "abcdefghij klmnopq rstuvwxyz 0123456789 "
	if escaped {
		unit = "abcdefghij \"quoted\" \\ tab\t é\n"
	}
	text := strings.Repeat(unit, n/len(unit)+1)[:n]
	lines := []any{
		map[string]any{"type": "user", "uuid": "u1", "parentUuid": nil, "sessionId": "s", "message": map[string]any{"role": "user", "content": "read the big file"}},
		map[string]any{"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "tool_use", "id": "t1", "name": "Read", "input": map[string]any{"path": "big"}}}}},
		map[string]any{"type": "user", "uuid": "u2", "parentUuid": "a1", "sessionId": "s", "message": map[string]any{"role": "user", "content": []any{map[string]any{"type": "tool_result", "tool_use_id": "t1", "content": text}}}},
		map[string]any{"type": "assistant", "uuid": "a2", "parentUuid": "u2", "sessionId": "s", "message": map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": "done"}}}},
	}
	var buf bytes.Buffer
	long := 0
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		long = max(long, len(b))
		buf.Write(b)
		buf.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, long
}

// TestLoadLongLineAllocates: a load of a session whose one line is a tool result of 20 MB, as
// `ctxc load` runs it (load, repair, UTF-8 check, openai output), allocates about one copy of
// that text (its decoded text) and what reading a line past its window takes, not the copies it
// once made: the message parsed from a copy of the line, the quoted output line built whole
// (grown twice), then copied again to be checked for UTF-8 — six times the line in all.
func TestLoadLongLineAllocates(t *testing.T) {
	for _, escaped := range []bool{false, true} {
		t.Run(fmt.Sprintf("escaped=%v", escaped), func(t *testing.T) {
			path, long := longClaudeSession(t, 20<<20, escaped)
			var out countWriter
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, msgs, err := LoadFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			msgs, _ = msglist.PairToolCalls(msgs)
			if err := CheckUTF8(path, msgs, false, nil); err != nil {
				t.Fatal(err)
			}
			if err := msglist.WriteMessages(&out, msgs, msglist.AsOpenAI); err != nil {
				t.Fatal(err)
			}
			runtime.ReadMemStats(&after)
			if out.n < int64(long)-1000 {
				t.Fatalf("wrote %d bytes, the long line has %d", out.n, long)
			}
			alloc := after.TotalAlloc - before.TotalAlloc
			t.Logf("line %d bytes, allocated %d (%.2f× the line)", long, alloc, float64(alloc)/float64(long))
			if alloc > uint64(long)*7/4 {
				t.Errorf("a load of a %d-byte line allocated %d bytes (%.2f× the line), want under 1.75×", long, alloc, float64(alloc)/float64(long))
			}
		})
	}
}

type countWriter struct{ n int64 }

func (w *countWriter) Write(b []byte) (int, error) { w.n += int64(len(b)); return len(b), nil }

// longMessageList writes a plain message list (the OpenAI, Anthropic or ctxc dialect, the
// last with a marker) with an assistant message of n bytes of text, and returns its path and
// the length of that message's line.
func longMessageList(t *testing.T, dialect msglist.OutputDialect, n int) (string, int) {
	t.Helper()
	text := strings.Repeat("word ", n/5+1)[:n]
	assistant := map[string]any{"role": "assistant", "content": text}
	var lines []any
	switch dialect {
	case msglist.AsAnthropic:
		// A thinking block makes it an Anthropic message (text blocks alone are OpenAI's too).
		assistant["content"] = []any{map[string]any{"type": "thinking", "thinking": "so", "signature": "c2ln"}, map[string]any{"type": "text", "text": text}}
	case msglist.AsCtxc:
		// A marker: a load reads the lines after it.
		lines = append(lines, map[string]any{"created_by": "ctxc", "created_at": "2026-01-02T03:04:05Z"},
			map[string]any{"compact": "what came before", "head": []any{}})
	}
	lines = append(lines, map[string]any{"role": "user", "content": "start"}, assistant, map[string]any{"role": "user", "content": "end"})
	var buf bytes.Buffer
	long := 0
	for _, l := range lines {
		b, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		long = max(long, len(b))
		buf.Write(b)
		buf.WriteByte('\n')
	}
	p := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return p, long
}

// allocated is what fn allocates.
func allocated(fn func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestMessageListLongLineAllocates: a plain message list (OpenAI, Anthropic, ctxc) whose one
// message is 20 MB is read where it is, as an agent's session is: its statistics allocate a
// small part of the line (besides the buffer of up to inPlaceFrom bytes a long line is read
// into before it is mapped), and a load written back in the file's dialect about one copy of
// it (the message, which outlives the mapped line). They once allocated four to six times the
// line: format detection gathered the line into a buffer that doubled, the scan copied it
// again to hold it until the (weak) format of a message list was settled, and the lines after
// a marker were gathered as detection's were.
func TestMessageListLongLineAllocates(t *testing.T) {
	for _, dialect := range []msglist.OutputDialect{msglist.AsOpenAI, msglist.AsAnthropic, msglist.AsCtxc} {
		t.Run(string(dialect), func(t *testing.T) {
			path, long := longMessageList(t, dialect, 20<<20)
			alloc := allocated(func() {
				if _, err := ScanFile(path, Options{}); err != nil {
					t.Fatal(err)
				}
			})
			t.Logf("stats: line %d bytes, allocated %d (%.2f× the line)", long, alloc, float64(alloc)/float64(long))
			if alloc > 2*inPlaceFrom+uint64(long)/8 {
				t.Errorf("stats of a %d-byte line allocated %d bytes (%.2f× the line), want under 0.125× and twice %d", long, alloc, float64(alloc)/float64(long), inPlaceFrom)
			}
			var out countWriter
			alloc = allocated(func() {
				_, msgs, err := LoadFile(path, Options{})
				if err != nil {
					t.Fatal(err)
				}
				msgs, _ = msglist.PairToolCalls(msgs)
				if err := CheckUTF8(path, msgs, false, nil); err != nil {
					t.Fatal(err)
				}
				if err := msglist.WriteMessages(&out, msgs, dialect); err != nil {
					t.Fatal(err)
				}
			})
			if out.n < int64(long)-1000 {
				t.Fatalf("wrote %d bytes, the long line has %d", out.n, long)
			}
			t.Logf("load: line %d bytes, allocated %d (%.2f× the line)", long, alloc, float64(alloc)/float64(long))
			if alloc > uint64(long)*7/4 {
				t.Errorf("a load of a %d-byte line allocated %d bytes (%.2f× the line), want under 1.75×", long, alloc, float64(alloc)/float64(long))
			}
		})
	}
}

// TestArchivedLongLineAllocates: a load of an archived message list (held in memory, under
// spillSize) whose one message is 20 MB holds its decompressed text once outside the heap while
// it is decompressed (bigbuf, freed once it is copied, at its size, into the heap) and allocates
// that copy and one copy of the message, where it allocated fifteen times the line: the text is
// read in place (memSource), as a mapped file is, where its windows and its long line were
// copied, and it is no longer read into a slice grown by doubling (4.7× the line in all).
func TestArchivedLongLineAllocates(t *testing.T) {
	plain, long := longMessageList(t, msglist.AsOpenAI, 20<<20)
	path := archive(t, plain)
	var out countWriter
	bigbuf.ResetPeak()
	alloc := allocated(func() {
		_, msgs, err := LoadFile(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if err := msglist.WriteMessages(&out, msgs, msglist.AsOpenAI); err != nil {
			t.Fatal(err)
		}
	})
	if out.n < int64(long)-1000 {
		t.Fatalf("wrote %d bytes, the long line has %d", out.n, long)
	}
	held := bigbuf.Peak()
	t.Logf("load: line %d bytes, allocated %d (%.2f× the line), held %d outside the heap", long, alloc, float64(alloc)/float64(long), held)
	bound := uint64(long) * 5 / 2
	if !bigbuf.Mapped {
		bound = uint64(long) * 5 // the text is read into the heap, doubling
	}
	if alloc > bound {
		t.Errorf("a load of a %d-byte line allocated %d bytes (%.2f× the line), want under %.2f×", long, alloc, float64(alloc)/float64(long), float64(bound)/float64(long))
	}
	if held > int64(long)*11/10 {
		t.Errorf("held %d bytes outside the heap, want the text once (%d)", held, long)
	}
}

// archive writes the archived copy of the session at path (path.zst) and returns its path.
func archive(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	z := path + ".zst"
	if err := os.WriteFile(z, testsessions.Archived(data, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	return z
}

// TestStreamLongLineAllocates: a message list (OpenAI, Anthropic, ctxc) whose one message is
// 20 MB, read as a stream — standard input (`stats -`), an archived session (`stats`, which
// asks for its format first) — has its long line read once, into memory of its own outside the
// heap (bigbuf), and parsed there: the heap gets the pipeline's batches and the decoder's
// buffers, a fraction of the line. The stream's line reader gathered the line into a slice
// grown by append (the old arrays left to the collector), the pipeline copied it into a batch,
// and the scanner copied it again to hold it until the list's weak format was settled: 6.5–7.7×
// the line in the heap; detection gathered it as the line reader did (6×).
func TestStreamLongLineAllocates(t *testing.T) {
	if !bigbuf.Mapped {
		t.Skip("no mappings here: a long line is read into the heap")
	}
	for _, dialect := range []msglist.OutputDialect{msglist.AsOpenAI, msglist.AsAnthropic, msglist.AsCtxc} {
		path, long := longMessageList(t, dialect, 20<<20)
		archived := archive(t, path)
		for _, tc := range []struct {
			name string
			read func() error
		}{
			{"stdin", func() error {
				f, err := os.Open(path)
				if err != nil {
					return err
				}
				defer f.Close()
				_, err = Scan(struct{ io.Reader }{f}, "<stdin>", Options{}) // a stream: no size, no mapping
				return err
			}},
			{"archived", func() error {
				_, err := ScanFile(archived, Options{})
				return err
			}},
			{"archived, detected", func() error {
				f, err := OpenFile(archived)
				if err != nil {
					return err
				}
				defer f.Close()
				_, err = DetectFile(f, Options{})
				return err
			}},
		} {
			t.Run(string(dialect)+"/"+tc.name, func(t *testing.T) {
				var err error
				bigbuf.ResetPeak()
				alloc := allocated(func() { err = tc.read() })
				if err != nil {
					t.Fatal(err)
				}
				held := bigbuf.Peak()
				waitFreed(t)
				t.Logf("line %d bytes: allocated %d (%.2f× the line), held %d outside the heap", long, alloc, float64(alloc)/float64(long), held)
				if alloc > uint64(long)*3/4 {
					t.Errorf("allocated %d bytes (%.2f× the line), want under 0.75×", alloc, float64(alloc)/float64(long))
				}
				if held > int64(long)+1<<20 {
					t.Errorf("held %d bytes outside the heap, want the line once (%d)", held, long)
				}
			})
		}
	}
}

// TestSpilledLongLineAllocates: a load of an archived message list too large to be held in
// memory (over spillSize) whose one message is 20 MB holds at most spillSize bytes of its text
// outside the heap while it decompresses them (freed once they are written to the temporary
// file it then maps) and allocates about one copy of the message, as a plain file's load does;
// its text was read into a slice grown by doubling (2.1× the line in all).
func TestSpilledLongLineAllocates(t *testing.T) {
	if !bigbuf.Mapped {
		t.Skip("no mappings here: the text is read into the heap")
	}
	defer func(old int64) { spillSize = old }(spillSize)
	spillSize = 4 << 20
	for _, dialect := range []msglist.OutputDialect{msglist.AsOpenAI, msglist.AsCtxc} {
		t.Run(string(dialect), func(t *testing.T) {
			path, long := longMessageList(t, dialect, 20<<20)
			archived := archive(t, path)
			var out countWriter
			bigbuf.ResetPeak()
			alloc := allocated(func() {
				_, msgs, err := LoadFile(archived, Options{})
				if err != nil {
					t.Fatal(err)
				}
				if err := msglist.WriteMessages(&out, msgs, dialect); err != nil {
					t.Fatal(err)
				}
			})
			if out.n < int64(long)-1000 {
				t.Fatalf("wrote %d bytes, the long line has %d", out.n, long)
			}
			held := bigbuf.Peak()
			waitFreed(t)
			t.Logf("load: line %d bytes, allocated %d (%.2f× the line), held %d outside the heap", long, alloc, float64(alloc)/float64(long), held)
			if alloc > uint64(long)*7/4 {
				t.Errorf("a load of a %d-byte line allocated %d bytes (%.2f× the line), want under 1.75×", long, alloc, float64(alloc)/float64(long))
			}
			if held > spillSize+1<<20 {
				t.Errorf("held %d bytes outside the heap, want at most spillSize (%d)", held, spillSize)
			}
		})
	}
}

// TestShortStreamAllocates: a short stream (`stats -` of a small session, each input of the
// reader fuzz targets) is charged for what it holds, not for the pipeline's four 2 MiB batches
// made up front and cleared (8 MiB a scan).
func TestShortStreamAllocates(t *testing.T) {
	data := []byte(`{"role":"user","content":"hello"}` + "\n" + `{"role":"assistant","content":"hi"}` + "\n")
	var err error
	alloc := allocated(func() { _, err = Scan(bytes.NewReader(data), "<stdin>", Options{}) })
	if err != nil {
		t.Fatal(err)
	}
	if alloc > 2<<20 {
		t.Errorf("a scan of a %d-byte stream allocated %d bytes, want under 2 MiB", len(data), alloc)
	}
}
