package grep

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/testsessions"
)

// TestArchivedAgrees: an archived session (zstd, in one frame or many) gives exactly the hits
// of the plain file (every field, line numbers of the decompressed text, in order) for every
// kind of pattern, with --json's indexes and covering compactions, -C, roles, the effective
// context only, and with every line decoded; on the fixtures, the agents' generated sessions
// and the samples.
func TestArchivedAgrees(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "fixtures", "*.jsonl"))
	if len(files) == 0 {
		t.Fatal("no fixtures")
	}
	gen := t.TempDir()
	for name, s := range testsessions.Agent() {
		p := filepath.Join(gen, name+".jsonl")
		os.WriteFile(p, []byte(s), 0o644)
		files = append(files, p)
	}
	t.Run("fixtures", func(t *testing.T) { archivedAgrees(t, files, archivedOptions) })
	t.Run("samples", func(t *testing.T) {
		samples, _ := filepath.Glob(filepath.Join("..", "..", "..", "shared", "samples", "*", "*.jsonl"))
		if len(samples) == 0 {
			t.Skip("no samples in ../shared/samples")
		}
		archivedAgrees(t, samples, archivedOptions[:2])
	})
}

// archivedPatterns are one pattern of each kind of decodeAllPatterns: a fixed string, a
// regexp, a case-folded one, text written with JSON escapes, and one that matches nothing.
var archivedPatterns = []int{0, 3, 7, 10, 13}

// archivedOptions are grep's modes: the fast readers, --json's indexes and covering
// compactions, -C, the effective context only, some roles.
var archivedOptions = []Options{{}, {Indexed: true}, {Around: 1}, {Context: true}, {Roles: map[string]bool{"tool": true, "assistant": true}}}

func archivedAgrees(t *testing.T, files []string, optionSets []Options) {
	dir := t.TempDir()
	total := 0
	for i, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		frame := []int{0, 333, 1 << 16}[i%3]
		arch := filepath.Join(dir, strings.TrimSuffix(filepath.Base(f), ".jsonl")+".jsonl.zst")
		os.WriteFile(arch, testsessions.Archived(data, frame), 0o644)
		for _, k := range archivedPatterns {
			pt := decodeAllPatterns[k]
			for j, opts := range optionSets {
				for _, every := range []string{"", "1"} {
					if every != "" && j > 0 {
						continue // every line decoded: the default mode is enough
					}
					t.Setenv(DecodeAllEnv, every)
					want := grepAll(t, f, pt.p, pt.fixed, pt.fold, opts)
					got := grepAll(t, arch, pt.p, pt.fixed, pt.fold, opts)
					for i := range got {
						if got[i].Path == arch {
							got[i].Path = f
						}
					}
					if !reflect.DeepEqual(got, want) {
						t.Errorf("%s %q %+v decode-all=%q: %d hits archived, %d plain\n%v\n%v", f, pt.p, opts, every, len(got), len(want), hitKeys(got), hitKeys(want))
					}
					total += len(want)
				}
			}
		}
	}
	if total == 0 {
		t.Fatal("no hits at all")
	}
}
