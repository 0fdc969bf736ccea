package transcript

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// checkRanges reads data sequentially (scanLines, the reference) and in ranges of chunk bytes with
// the given number of workers (from a file, whose windows are mapped, or from memory), and fails unless both give the same error or the same
// statistics and the same messages, for stats and for a load (messages parsed while scanning),
// and for a load from the second line on (checkRangesFrom).
func checkRanges(t *testing.T, data []byte, opts Options, chunk int64, workers int) {
	t.Helper()
	file := fuzzFile
	if file == nil {
		p := filepath.Join(t.TempDir(), "f.jsonl")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		file = f
	} else if err := file.Truncate(0); err != nil {
		t.Fatal(err)
	} else if _, err := file.WriteAt(data, 0); err != nil {
		t.Fatal(err)
	}
	for _, keep := range []Format{FormatUnknown, FormatOpenAI, FormatClaude} {
		o := opts
		o.keep = keep
		var wantWarn, gotWarn []string
		o.Warn = func(w Warning) { wantWarn = append(wantWarn, w.String()) }
		want, err1 := scanLines(bytes.NewReader(data), "f", o)
		o.Warn = func(w Warning) { gotWarn = append(gotWarn, w.String()) }
		var src io.ReaderAt = bytes.NewReader(data)
		if keep == FormatUnknown {
			src = file // mapped windows
		}
		got, err2 := scanRanges(src, int64(len(data)), "f", o, chunk, workers)
		if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
			t.Fatalf("keep %q chunk %d: sequential error %v, ranges error %v", keep, chunk, err1, err2)
		}
		if !reflect.DeepEqual(wantWarn, gotWarn) {
			t.Fatalf("keep %q chunk %d: warnings differ:\n%q\n%q", keep, chunk, wantWarn, gotWarn)
		}
		if err1 != nil {
			continue
		}
		if a, b := statsView(want.Stats), statsView(got.Stats); !reflect.DeepEqual(a, b) {
			t.Fatalf("keep %q chunk %d: stats differ:\nsequential %+v\nranges     %+v", keep, chunk, a, b)
		}
		wm, err1 := want.Messages(bytes.NewReader(data))
		gm, err2 := got.Messages(bytes.NewReader(data))
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("keep %q chunk %d: Messages: %v vs %v", keep, chunk, err1, err2)
		}
		if !reflect.DeepEqual(wm, gm) {
			t.Fatalf("keep %q chunk %d: messages differ:\nsequential %+v\nranges     %+v", keep, chunk, wm, gm)
		}
	}
	checkRangesFrom(t, data, file, opts, chunk, workers)
}

// checkRangesFrom reads data from the start of its second line on, as a load reads the lines
// after the newest marker: in ranges from there (scanRangesAt, the file's windows mapped) and,
// the reference, line by line from there, and fails unless both give the same error or the
// same statistics and messages.
func checkRangesFrom(t *testing.T, data []byte, file *os.File, opts Options, chunk int64, workers int) {
	t.Helper()
	k := bytes.IndexByte(data, '\n')
	if k < 0 || k+1 == len(data) {
		return
	}
	at := rangeStart{off: int64(k + 1), lines: 1, format: FormatCtxc}
	size := int64(len(data))
	o := opts
	o.keep = FormatOpenAI
	var wantWarn, gotWarn []string
	o.Warn = func(w Warning) { wantWarn = append(wantWarn, w.String()) }
	lr := jsonl.NewLineReader(io.NewSectionReader(bytes.NewReader(data), at.off, size-at.off))
	lr.SetStart(at.off, at.lines)
	if opts.MaxLine > 0 {
		lr.SetMaxLine(opts.MaxLine)
	}
	want, err1 := scanFrom(lr, "f", o, at.format)
	o.Warn = func(w Warning) { gotWarn = append(gotWarn, w.String()) }
	got, err2 := scanRangesAt(file, at, size, "f", o, chunk, workers)
	if (err1 == nil) != (err2 == nil) || err1 != nil && err1.Error() != err2.Error() {
		t.Fatalf("from %d, chunk %d: line by line error %v, ranges error %v", at.off, chunk, err1, err2)
	}
	if !reflect.DeepEqual(wantWarn, gotWarn) {
		t.Fatalf("from %d, chunk %d: warnings differ:\n%q\n%q", at.off, chunk, wantWarn, gotWarn)
	}
	if err1 != nil {
		return
	}
	if a, b := statsView(want.Stats), statsView(got.Stats); !reflect.DeepEqual(a, b) {
		t.Fatalf("from %d, chunk %d: stats differ:\nline by line %+v\nranges       %+v", at.off, chunk, a, b)
	}
	wm, err1 := want.Messages(bytes.NewReader(data))
	gm, err2 := got.Messages(bytes.NewReader(data))
	if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(wm, gm) {
		t.Fatalf("from %d, chunk %d: messages differ (%v, %v):\nline by line %+v\nranges       %+v", at.off, chunk, err1, err2, wm, gm)
	}
}

// fuzzFile, when set, is the file checkRanges writes its input to (FuzzRanges).
var fuzzFile *os.File

// FuzzRanges: reading a file in ranges, in parallel, gives what reading it line by line gives,
// whatever the input, the range size (down to one byte: ranges inside lines, lines across many
// ranges, ranges that start on a CR, a BOM or a blank line) and the number of workers.
func FuzzRanges(f *testing.F) {
	// One file, rewritten for each input: creating a file per input made the fuzzer wait on
	// the file system more than it ran.
	file, err := os.Create(filepath.Join(f.TempDir(), "f.jsonl"))
	if err != nil {
		f.Fatal(err)
	}
	fuzzFile = file
	f.Cleanup(func() { fuzzFile = nil; file.Close() })
	addSeeds(f, "../../testdata/fixtures/*.jsonl", "../../testdata/example/*.jsonl")
	f.Add([]byte("\xef\xbb\xbf{\"role\":\"user\",\"content\":\"a\"}\r\n\n  \n{\"role\":\"assistant\",\"content\":\"b\"}\n{\"role\""))
	f.Add([]byte("{\"compact\":\"s\"}\nnot json\n{\"role\":\"user\",\"content\":\"x\"}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			checkRanges(t, data, Options{}, 1, 1)
			return
		}
		// The range size and the workers come from the input, so the fuzzer explores them.
		// At most about 64 ranges, so that the fuzzer runs fast.
		chunk := max(int64(data[0]%64)+1, int64(len(data)/64))
		workers := int(data[len(data)-1]%3) + 1
		checkRanges(t, data, Options{}, chunk, workers)
		checkRanges(t, data, Options{Top: 3, Window: 1000}, chunk+7, 2)
	})
}

// TestRangesFixturesAndSamples: every fixture and sample, every format, read in ranges of many
// sizes, gives what the sequential reader gives.
func TestRangesFixturesAndSamples(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/fixtures/*.jsonl")
	files = append(files, "../../testdata/example/session.jsonl")
	samples, _ := filepath.Glob(filepath.Join(samplesDir, "*", "*.jsonl"))
	for _, p := range append(files, samples...) {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(filepath.Base(p), func(t *testing.T) {
			for _, chunk := range []int64{1, 7, 100, 4096, 1 << 16, 1 << 30} {
				if int64(len(data))/chunk > 2000 {
					continue // a range per byte of a large sample takes long; the fuzzer does that
				}
				checkRanges(t, data, Options{Top: 5}, chunk, 3)
			}
		})
	}
}

// TestRangesLongLinesAndErrors: lines longer than a range, longer than the line cap, a file
// that ends inside a line, a strict error in a later range.
func TestRangesLongLinesAndErrors(t *testing.T) {
	long := strings.Repeat("x", 3<<19) // longer than jsonl.LineReader's buffer, and than a range
	cases := map[string]string{
		"long lines": fmt.Sprintf("{\"role\":\"user\",\"content\":%q}\n{\"role\":\"tool\",\"tool_call_id\":\"c\",\"content\":%q}\n", long, long),
		"pending":    "{\"role\":\"user\",\"content\":\"a\"}\n{\"role\":\"user\",\"content\":\"" + long,
		"bad line":   "{\"role\":\"user\",\"content\":\"a\"}\n" + strings.Repeat("{\"role\":\"user\",\"content\":\"b\"}\n", 1000) + "{oops\n{\"role\":\"user\",\"content\":\"c\"}\n",
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			for _, chunk := range []int64{4 << 10, 1 << 20, 4 << 20} {
				checkRanges(t, []byte(data), Options{}, chunk, 2)
				checkRanges(t, []byte(data), Options{Strict: true}, chunk, 2)
				checkRanges(t, []byte(data), Options{MaxLine: 5 << 18}, chunk, 2) // the long lines are over it
			}
		})
	}
}

// TestRangesFileCutShort: a file cut short while it is read (its windows mapped) is an error
// that names the file, not a crash.
func TestRangesFileCutShort(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f.jsonl")
	data := strings.Repeat("{\"role\":\"user\",\"content\":\"hello there\"}\n", 200000) // 8 MB
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := os.Truncate(p, 1000); err != nil {
		t.Fatal(err)
	}
	_, err = scanFileRanges(f, int64(len(data)), p, Options{})
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "changed while it was being read") && !strings.Contains(err.Error(), "unexpected EOF") {
		t.Fatalf("err = %v, want the file named and said to have changed", err)
	}
	t.Log(err)
}
