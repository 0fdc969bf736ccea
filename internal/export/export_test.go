package export

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/parquet"
	"github.com/ctxc/ctxc/internal/testsessions"
	"github.com/ctxc/ctxc/internal/transcript"
)

// exportOnce exports srcs into dest and returns the results.
func exportOnce(t *testing.T, dest string, o Options, srcs ...Source) []Result {
	t.Helper()
	e, err := Open(dest, o)
	if err != nil {
		t.Fatal(err)
	}
	var out []Result
	for _, s := range srcs {
		r, err := e.File(context.Background(), s)
		if err != nil {
			t.Fatalf("%s: %v", s.Path, err)
		}
		out = append(out, r)
	}
	if err := e.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	return out
}

// tree lists every file under dir with its modification time and size.
func tree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, _ := d.Info()
		out[p] = fmt.Sprint(fi.ModTime().UnixNano(), " ", fi.Size())
		return nil
	})
	return out
}

// TestExportIsIncremental: a second run over unchanged sessions writes nothing; a session that
// grew is exported anew, its part replaced in place, holding every message stats counts.
func TestExportIsIncremental(t *testing.T) {
	dir := t.TempDir()
	sessions := testsessions.Agent()
	var srcs []Source
	for name, data := range sessions {
		p := filepath.Join(dir, name+".jsonl")
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, Source{Path: p, Name: "s/" + name + ".jsonl"})
	}
	dest := filepath.Join(dir, "out")
	first := exportOnce(t, dest, Options{Redact: true}, srcs...)
	before := tree(t, dest)
	for _, r := range exportOnce(t, dest, Options{Redact: true}, srcs...) {
		if r.Status != StatusUnchanged {
			t.Errorf("%s: %s on a second run", r.Path, r.Status)
		}
	}
	if after := tree(t, dest); !equalMaps(before, after) {
		t.Fatalf("a run with nothing changed wrote files:\n%v\n%v", before, after)
	}

	grown := srcs[0]
	fmtName := strings.TrimSuffix(filepath.Base(grown.Path), ".jsonl")
	data, _ := os.ReadFile(grown.Path)
	more := testsessions.MoreTurns(fmtName, data)
	os.WriteFile(grown.Path, append(data, more...), 0o644)
	later := time.Now().Add(time.Second)
	os.Chtimes(grown.Path, later, later)
	r := exportOnce(t, dest, Options{Redact: true}, grown)[0]
	if r.Status != StatusChanged || r.Messages <= first[0].Messages {
		t.Fatalf("grown session: %s, %d messages (was %d)", r.Status, r.Messages, first[0].Messages)
	}
	if strings.Join(r.Parts, " ") != strings.Join(first[0].Parts, " ") {
		t.Fatalf("parts moved: %v, were %v", r.Parts, first[0].Parts)
	}
	res, err := transcript.ScanFile(grown.Path, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	part, err := os.ReadFile(filepath.Join(dest, PartPath(TableMessages, r.Agent, r.Date, partKey(grown.Name))))
	if err != nil {
		t.Fatal(err)
	}
	footer, err := parquet.ReadFooter(bytes.NewReader(part), int64(len(part)))
	if err != nil {
		t.Fatal(err)
	}
	if footer.Rows != int64(res.Stats.Messages.Total()) {
		t.Fatalf("the part holds %d messages, stats counts %d", footer.Rows, res.Stats.Messages.Total())
	}
	matches, _ := filepath.Glob(filepath.Join(dest, "*", "*", "*", ".ctxc-*"))
	if len(matches) > 0 {
		t.Fatalf("temporary files left: %v", matches)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestExportDryRunWritesNothing: a dry run reads and counts, and leaves DEST as it was.
func TestExportDryRunWritesNothing(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "s.jsonl")
	os.WriteFile(p, []byte(testsessions.Agent()["codex"]), 0o644)
	dest := filepath.Join(dir, "out")
	r := exportOnce(t, dest, Options{DryRun: true}, Source{Path: p, Name: "s.jsonl"})[0]
	if r.Status != StatusNew || r.Messages == 0 {
		t.Fatalf("dry run: %+v", r)
	}
	if _, err := os.Stat(dest); !os.IsNotExist(err) {
		t.Fatalf("a dry run made DEST: %v", err)
	}
}
