package recall

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzGrepPrefilter: on any file and pattern, the prefiltered search (only lines holding the
// pattern's literal are decoded) finds exactly what decoding every line finds, or both fail.
func FuzzGrepPrefilter(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "fixtures", "*.jsonl"))
	for i, p := range files {
		if b, err := os.ReadFile(p); err == nil && len(b) < 64<<10 {
			pats := []string{"the", "main.go", `fo[or]\w+`, "ls", `"`, "café"}
			f.Add(b, pats[i%len(pats)], i%2 == 0, i%3 == 0)
		}
	}
	f.Add([]byte(`{"role":"user","content":"caf\u00e9 \"quoted\" \\ path\/x"}`+"\n"), `café "quoted"`, true, false)
	f.Fuzz(func(t *testing.T, data []byte, pattern string, fixed, fold bool) {
		p, err := Compile(pattern, fixed, fold)
		if err != nil || pattern == "" {
			return
		}
		path := filepath.Join(t.TempDir(), "s.jsonl")
		os.WriteFile(path, data, 0o644)
		run := func(opts GrepOptions) ([]string, error) {
			var out []string
			err := Grep(path, p, opts, func(h Hit) error {
				out = append(out, fmt.Sprintf("%d %s %s", h.Line, h.Role, h.Snippet.Text))
				return nil
			})
			return out, err
		}
		fast, err1 := run(GrepOptions{})
		full, err2 := run(GrepOptions{Indexed: true})
		if (err1 == nil) != (err2 == nil) {
			t.Fatalf("prefiltered err %v, full err %v", err1, err2)
		}
		if err1 == nil && !reflect.DeepEqual(fast, full) {
			t.Fatalf("pattern %q fixed %v fold %v: prefiltered %v, full %v", pattern, fixed, fold, fast, full)
		}
	})
}
