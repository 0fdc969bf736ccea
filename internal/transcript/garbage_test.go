package transcript

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGarbageIsOneError: a file that is not a transcript is said to be so in one error naming
// the file, decided from its first lines, by every way a file is read (a stream, ranges read on
// every core, a load); a transcript with a few bad lines keeps a warning for each.
func TestGarbageIsOneError(t *testing.T) {
	random := make([]byte, 1<<20)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range random {
		random[i] = byte(rng.Uint32())
	}
	pretty := "[\n  {\n    \"role\": \"user\",\n    \"content\": \"hi\"\n  },\n  {\n    \"role\": \"assistant\",\n    \"content\": \"yo\"\n  }\n]\n"
	prettyObject := "{\n  \"messages\": [\n    {\"role\": \"user\", \"content\": \"hi\"}\n  ]\n}\n"
	msg := `{"role":"user","content":"hi"}` + "\n"
	for _, tc := range []struct {
		name     string
		data     string
		want     string // the error; "" none
		warnings []int  // lines warned about
	}{
		{"random bytes", string(random), "not a JSONL transcript (its first 16 lines are not JSON)", nil},
		{"pretty-printed array", pretty, "a JSON array (pretty-printed?), not a JSONL transcript", nil},
		{"pretty-printed object", prettyObject, "a pretty-printed JSON object, not a JSONL transcript", nil},
		{"a few lines of text", "hello\nworld\n", "no valid JSON line: not a JSONL transcript", nil},
		{"bad lines first", "garbage\n\x00\x01\n" + msg + "bad\n" + msg, "", []int{1, 2, 4}},
		{"fifteen bad lines first", strings.Repeat("x\n", garbageLines-1) + msg, "", seq(1, garbageLines-1)},
		{"bad lines after", msg + strings.Repeat("x\n", 40) + msg, "", seq(2, 41)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.jsonl")
			if err := os.WriteFile(path, []byte(tc.data), 0o644); err != nil {
				t.Fatal(err)
			}
			reads := map[string]func(Options) error{
				"stream":   func(o Options) error { _, err := scanLines(strings.NewReader(tc.data), path, o); return err },
				"Scan":     func(o Options) error { _, err := Scan(bytes.NewReader([]byte(tc.data)), path, o); return err },
				"ScanFile": func(o Options) error { _, err := ScanFile(path, o); return err },
				"LoadFile": func(o Options) error { _, _, err := LoadFile(path, o); return err },
			}
			for name, read := range reads {
				var warned []int
				err := read(Options{Warn: func(w Warning) { warned = append(warned, w.Line) }})
				var de *DataError
				switch {
				case tc.want == "" && err != nil:
					t.Fatalf("%s: %v", name, err)
				case tc.want != "" && (!errors.As(err, &de) || de.Path != path || !strings.Contains(de.Msg, tc.want)):
					t.Fatalf("%s: error %v, want a DataError of %s saying %q", name, err, path, tc.want)
				}
				if !equalInts(warned, tc.warnings) {
					t.Fatalf("%s: warnings for lines %v, want %v", name, warned, tc.warnings)
				}
			}
		})
	}
}

func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}
