package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/testsessions"
)

// archivedPair makes a folder of plain sessions (the fixtures, and one compacted in place so
// that it holds a ctxc marker with its span) and the same sessions archived in zstd frames of
// frame bytes, and returns both folders.
func archivedPair(t *testing.T, frame int) (plain, archived string) {
	t.Helper()
	dir := t.TempDir()
	plain, archived = filepath.Join(dir, "plain"), filepath.Join(dir, "archived")
	os.MkdirAll(plain, 0o755)
	os.MkdirAll(archived, 0o755)
	fixtures, _ := filepath.Glob("../testdata/fixtures/*.jsonl")
	if len(fixtures) == 0 {
		t.Fatal("no fixtures")
	}
	for _, p := range fixtures {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(plain, filepath.Base(p)), data, 0o644)
	}
	// A Codex session with a call left unanswered: lint's problem, repair's work.
	var kept []string
	for _, l := range strings.SplitAfter(testsessions.Agent()["codex"], "\n") {
		if !strings.Contains(l, `"function_call_output","call_id":"c29"`) {
			kept = append(kept, l)
		}
	}
	os.WriteFile(filepath.Join(plain, "unanswered-codex.jsonl"), []byte(strings.Join(kept, "")), 0o644)
	chat := filepath.Join(plain, "compacted.jsonl")
	os.WriteFile(chat, []byte(genSession(1, 30)), 0o644)
	if code, _, errOut := runCLI(t, dir, "compact", "--provider", "extractive", "--threshold", "2000", "--keep-tail", "4",
		"--now", "2026-01-02T03:04:05Z", "--force", chat); code != 0 {
		t.Fatalf("compact: exit %d: %s", code, errOut)
	}
	files, _ := filepath.Glob(filepath.Join(plain, "*.jsonl"))
	for _, p := range files {
		data, _ := os.ReadFile(p)
		arch := filepath.Join(archived, filepath.Base(p)+".zst")
		os.WriteFile(arch, testsessions.Archived(data, frame), 0o644)
		// memory dates lines without a time of their own by the file's
		if info, err := os.Stat(p); err == nil {
			os.Chtimes(arch, info.ModTime(), info.ModTime())
		}
	}
	return plain, archived
}

// TestArchivedCommandsAgree: every reading command gives of an archived session (one zstd frame
// or many) what it gives of the plain file: stats --json, load, grep --json, audit, expand, lint
// --json and memory --json, over the folder and file by file; line numbers are the plain file's.
func TestArchivedCommandsAgree(t *testing.T) {
	for _, frame := range []int{0, 211} {
		plain, archived := archivedPair(t, frame)
		same := func(args ...string) {
			t.Helper()
			wc, wout, werr := runCLI(t, t.TempDir(), append(args, plain)...)
			gc, gout, gerr := runCLI(t, t.TempDir(), append(args, archived)...)
			gout = strings.ReplaceAll(strings.ReplaceAll(gout, archived, plain), ".jsonl.zst", ".jsonl")
			gerr = strings.ReplaceAll(strings.ReplaceAll(gerr, archived, plain), ".jsonl.zst", ".jsonl")
			if gc != wc || gout != wout || gerr != werr {
				t.Errorf("frames of %d: ctxc %s: archived exit %d\n%s%s\nplain exit %d\n%s%s", frame, strings.Join(args, " "), gc, gout, gerr, wc, wout, werr)
			}
			if wout == "" {
				t.Errorf("ctxc %s: no output at all", strings.Join(args, " "))
			}
		}
		same("stats", "--json")
		same("grep", "--json", "the")
		same("grep", "-C", "1", "pkg/parse")
		same("lint", "--json")
		same("audit", "--json")
		same("memory", "--json")
		files, _ := filepath.Glob(filepath.Join(plain, "*.jsonl"))
		for _, p := range files {
			arch := filepath.Join(archived, filepath.Base(p)+".zst")
			for _, args := range [][]string{{"load"}, {"load", "--as", "anthropic"}, {"expand"}, {"expand", "--as", "text"}, {"expand", "--json", "--marker", "1"}} {
				wc, wout, _ := runCLI(t, t.TempDir(), append(args, p)...)
				gc, gout, _ := runCLI(t, t.TempDir(), append(args, arch)...)
				if filepath.Base(p) == "compacted.jsonl" && wc != 0 {
					t.Fatalf("ctxc %s %s: exit %d: the compacted session loads and has a span to read back", strings.Join(args, " "), p, wc)
				}
				if gc != wc || strings.ReplaceAll(gout, arch, p) != wout {
					t.Errorf("frames of %d: ctxc %s %s: exit %d, plain %d; output differs:\n%.300s\n%.300s", frame, strings.Join(args, " "), filepath.Base(arch), gc, wc, gout, wout)
				}
			}
		}
	}
}

var isoTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT[\d:.]+Z`)

// TestArchivedReadOnly: compact and repair refuse to write into an archived session (exit 2,
// naming it, saying to use -o) and leave it byte for byte; with -o they read it and write a
// plain file, the one they write from the plain session.
func TestArchivedReadOnly(t *testing.T) {
	plain, archived := archivedPair(t, 0)
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"unanswered-codex.jsonl", []string{"repair"}},
		{"compacted.jsonl", []string{"compact", "--provider", "extractive", "--threshold", "500", "--force"}},
	} {
		arch := filepath.Join(archived, tc.name+".zst")
		before, _ := os.ReadFile(arch)
		code, _, errOut := runCLI(t, dir, append(tc.args, arch)...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, arch+": archived sessions are read-only; use -o FILE") {
			t.Errorf("%s in place: exit %d, %q", tc.args[0], code, errOut)
		}
		if after, _ := os.ReadFile(arch); string(after) != string(before) {
			t.Errorf("%s in place: the archive changed", tc.args[0])
		}
		if _, err := os.Stat(arch + ".ctxc.lock"); err == nil {
			t.Errorf("%s in place: a lock file beside the archive", tc.args[0])
		}
		fromPlain, fromArch := filepath.Join(dir, tc.args[0]+"-plain.jsonl"), filepath.Join(dir, tc.args[0]+"-archived.jsonl")
		args := append(append([]string{}, tc.args...), "--now", "2026-01-02T03:04:05Z")
		if tc.args[0] == "repair" {
			args = tc.args
		}
		wc, _, werr := runCLI(t, dir, append(args, "-o", fromPlain, filepath.Join(plain, tc.name))...)
		gc, _, gerr := runCLI(t, dir, append(args, "-o", fromArch, arch)...)
		if wc != 0 || gc != 0 {
			t.Fatalf("%s -o: exit %d (%s) from the archive, %d (%s) from the plain file", tc.args[0], gc, gerr, wc, werr)
		}
		want, _ := os.ReadFile(fromPlain)
		got, _ := os.ReadFile(fromArch)
		// A compaction's -o file names its source: the archive, or the plain file.
		got = []byte(strings.ReplaceAll(string(got), "archived/"+tc.name+".zst", "plain/"+tc.name))
		// repair dates its records now
		got, want = isoTime.ReplaceAll(got, []byte("TIME")), isoTime.ReplaceAll(want, []byte("TIME"))
		if string(got) != string(want) || len(want) == 0 {
			t.Errorf("%s -o: the file written from the archive differs from the one written from the plain file\n%.400s\n%.400s", tc.args[0], got, want)
		}
	}
}
