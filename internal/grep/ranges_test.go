package grep

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/transcript"
)

// lineRanges cuts data into ranges of whole lines, each holding the lines of group lines
// that hold lit (as an index's blocks that hold it would), in file order.
func lineRanges(data []byte, lit string, group int) []Range {
	var out []Range
	at, num := 0, 1
	for at < len(data) {
		from, first, hold := at, num, false
		for k := 0; k < group && at < len(data); k++ {
			end := bytes.IndexByte(data[at:], '\n')
			if end < 0 {
				return out // an unterminated last line: an index has no block of it
			}
			hold = hold || bytes.Contains(asciiLower(data[at:at+end]), asciiLower([]byte(lit)))
			at, num = at+end+1, num+1
		}
		if hold {
			out = append(out, Range{From: int64(from), To: int64(at), Line: first})
		}
	}
	return out
}

// asciiLower lower-cases the ASCII letters of b (as the index's trigrams are), in a copy.
func asciiLower(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		out[i] = c
	}
	return out
}

// TestFileRangesAgreesWithFile: searching only the ranges of lines that hold the literal gives
// File's hits (lines, roles, snippets), read in chunks smaller than a line and mapped in
// segments smaller than a range; and ranges are ignored where they could lose a hit or a
// marker (a file of another size, ranges out of order, the full path).
func TestFileRangesAgreesWithFile(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.jsonl"))
	tests := []struct {
		pat         string
		fixed, fold bool
		opts        Options
	}{
		{"the", true, false, Options{}},
		{"MAIN.GO", true, true, Options{}},
		{`x x \w`, false, false, Options{Roles: map[string]bool{"tool": true}}},
		{"thing", true, false, Options{Around: 1}},
		{"Step", true, false, Options{Indexed: true}},
	}
	checked := 0
	for _, f := range files {
		data, _ := os.ReadFile(f)
		for _, tt := range tests {
			p, err := Compile(tt.pat, tt.fixed, tt.fold)
			if err != nil {
				t.Fatal(err)
			}
			want := hitsOf(t, f, p, tt.opts, Ranges{})
			for _, group := range []int{1, 3} {
				parts := lineRanges(data, string(p.Literal()), group)
				got := hitsOf(t, f, p, tt.opts, Ranges{Size: int64(len(data)), Parts: parts})
				if !reflect.DeepEqual(got, want) {
					t.Errorf("%s %q (lines by %d): ranges %v, whole %v", f, tt.pat, group, got, want)
				}
				withFormat := hitsOf(t, f, p, tt.opts, Ranges{Size: int64(len(data)), Parts: parts, Format: formatOf(t, f)})
				if !reflect.DeepEqual(withFormat, want) {
					t.Errorf("%s %q (lines by %d): ranges with the index's format %v, whole %v", f, tt.pat, group, withFormat, want)
				}
				if len(parts) > 0 && len(want) > 0 {
					checked++
				}
				if mapped := mappedHits(t, f, p, parts); tt.opts.Roles == nil && tt.opts.Around == 0 && !tt.opts.Indexed &&
					!reflect.DeepEqual(mapped, lineKeys(want)) {
					t.Errorf("%s %q mapped (lines by %d): %v, whole %v", f, tt.pat, group, mapped, lineKeys(want))
				}
			}
			// Ranges that do not fit the file are not trusted: the whole file is read.
			for _, bad := range []Ranges{{Size: int64(len(data)) + 1, Parts: []Range{{0, 1, 1}}},
				{Size: int64(len(data)), Parts: []Range{{10, 20, 2}, {0, 5, 1}}}} {
				if got := hitsOf(t, f, p, tt.opts, bad); !reflect.DeepEqual(got, want) {
					t.Errorf("%s %q: ranges %+v read: %v, whole %v", f, tt.pat, bad, got, want)
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no file was searched in ranges")
	}
}

func hitsOf(t *testing.T, f string, p *Pattern, opts Options, rs Ranges) []string {
	t.Helper()
	var out []string
	err := FileRanges(f, p, opts, rs, func(h Hit) error {
		out = append(out, fmt.Sprintf("%d %s %v %q", h.Line, h.Role, h.Match, h.Snippet.Text))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// lineKeys keeps the line and role of hits (hitsOf's).
func lineKeys(hits []string) []string {
	var out []string
	for _, h := range hits {
		var line int
		var role string
		fmt.Sscanf(h, "%d %s", &line, &role)
		out = append(out, fmt.Sprintf("%d %s", line, role))
	}
	return out
}

// mappedHits searches the parts of the mapped file f in segments of 200 bytes (in an agent's
// format; the whole file in a generic one, as FileRanges does).
func mappedHits(t *testing.T, f string, p *Pattern, parts []Range) []string {
	t.Helper()
	fh, err := os.Open(f)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	info, _ := fh.Stat()
	format, _ := transcript.Detect(fh, f, transcript.Options{})
	if format == transcript.FormatUnknown {
		format = transcript.FormatOpenAI
	}
	if !format.Native() || p.MayMatchOutside(format) || len(parts) == 0 {
		parts = []Range{{From: 0, To: info.Size(), Line: 1}}
	}
	data, release := mapFile(fh, info.Size())
	defer release()
	var out []string
	g := &grepper{path: f, p: p, format: format, seg: 200, emit: func(h Hit) error {
		out = append(out, fmt.Sprintf("%d %s", h.Line, h.Role))
		return nil
	}}
	if err := g.mapped(data, parts); err != nil {
		t.Fatal(err)
	}
	return out
}

// formatOf detects a session's format as the index does.
func formatOf(t *testing.T, path string) transcript.Format {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	format, err := transcript.Detect(f, path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return format
}

// TestFileRangesTrustsTheIndexFormat: with parts to read and the index's format, the file's
// first records are not read to detect it (here they would say it is a Codex session, where
// the Claude Code line holds no message); a format given with --format, a file of another size
// or no parts, and the format is the one detected or given.
func TestFileRangesTrustsTheIndexFormat(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	head := `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x","cwd":"/w"}}` + "\n"
	line := `{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"find the quokka"}}` + "\n"
	data := head + line
	os.WriteFile(path, []byte(data), 0o644)
	if f := formatOf(t, path); f != transcript.FormatCodex {
		t.Fatalf("detected as %s, want codex", f)
	}
	p, _ := Compile("quokka", true, false)
	size := int64(len(data))
	parts := []Range{{From: int64(len(head)), To: size, Line: 2}}
	for _, c := range []struct {
		name string
		opts Options
		rs   Ranges
		hits int
	}{
		{"the index's format", Options{}, Ranges{Size: size, Parts: parts, Format: transcript.FormatClaude}, 1},
		{"--format", Options{Format: transcript.FormatCodex}, Ranges{Size: size, Parts: parts, Format: transcript.FormatClaude}, 0},
		{"another size", Options{}, Ranges{Size: size - 1, Parts: parts, Format: transcript.FormatClaude}, 0},
		{"no parts", Options{}, Ranges{Size: size, Format: transcript.FormatClaude}, 0},
	} {
		if got := hitsOf(t, path, p, c.opts, c.rs); len(got) != c.hits {
			t.Errorf("%s: hits %q, want %d", c.name, got, c.hits)
		}
	}
}

// TestFileRangesGenericOnlyWithoutCompactions: a generic session is read in its parts only when
// the index read it in the same format and found no compaction record; else it is read whole,
// and the copies a ctxc marker made are not hits. (Here the index's word is a lie, to see which
// way the file was read: in parts, the copy on line 3 is taken for a new line.)
func TestFileRangesGenericOnlyWithoutCompactions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.jsonl")
	tail := `{"role":"user","content":"find the quokka"}` + "\n"
	marker := `{"compact":"the start","ctxc":{"v":1,"tail_lines":1}}` + "\n"
	data := tail + marker + tail
	os.WriteFile(path, []byte(data), 0o644)
	p, _ := Compile("quokka", true, false)
	size := int64(len(data))
	parts := []Range{{From: int64(len(tail + marker)), To: size, Line: 3}}
	for _, c := range []struct {
		name string
		opts Options
		rs   Ranges
		line string // the line of the one hit
	}{
		{"a compaction record", Options{}, Ranges{Size: size, Parts: parts, Format: transcript.FormatOpenAI}, "1 "},
		{"none, in parts", Options{}, Ranges{Size: size, Parts: parts, Format: transcript.FormatOpenAI, NoCompactions: true}, "3 "},
		{"another format given", Options{Format: transcript.FormatAnthropic}, Ranges{Size: size, Parts: parts, Format: transcript.FormatOpenAI, NoCompactions: true}, "1 "},
	} {
		got := hitsOf(t, path, p, c.opts, c.rs)
		if len(got) != 1 || !strings.HasPrefix(got[0], c.line) {
			t.Errorf("%s: hits %q, want one on line %s", c.name, got, c.line)
		}
	}
}
