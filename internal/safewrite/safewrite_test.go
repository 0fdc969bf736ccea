package safewrite

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func writeFile(t *testing.T, data string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func read(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestAppend(t *testing.T) {
	block := func([][]byte) ([]byte, error) { return []byte("M\n"), nil }
	for _, tc := range []struct {
		name   string
		start  string
		grow   string // written after Stat, before Append
		force  bool
		want   string
		reason string // BusyError reason, "" for success
		cut    int    // the line of a PartialLineError
		shrink int64  // bytes cut off after Stat, before Append
	}{
		{name: "appends one block", start: "a\n", want: "a\nM\n"},
		{name: "adds the missing line end of a complete record first", start: `{"a":1}`, want: "{\"a\":1}\nM\n"},
		{name: "refuses to append after a cut last line", start: "a\n{\"b\":", want: "a\n{\"b\":", cut: 2},
		{name: "refuses a last line being written, even with force", start: "a\n", grow: "{\"b\":", force: true, want: "a\n{\"b\":", reason: ReasonWriting},
		{name: "refuses a file that shrank, even with force", start: "a\nb\n", shrink: 2, force: true, want: "a\n", reason: ReasonShrank},
		{name: "empty file", start: "", want: "M\n"},
		{name: "refuses a file that grew", start: "a\n", grow: "b\n", want: "a\nb\n", reason: ReasonChanged},
		{name: "force appends after what grew", start: "a\n", grow: "b\n", force: true, want: "a\nb\nM\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, tc.start)
			before, err := Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if tc.grow != "" {
				f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
				f.WriteString(tc.grow)
				f.Close()
			}
			if tc.shrink > 0 {
				os.Truncate(p, before.Size-tc.shrink)
			}
			_, err = Append(p, before, block, tc.force, nil)
			var be *BusyError
			var pe *PartialLineError
			switch {
			case tc.cut > 0:
				if !errors.As(err, &pe) || pe.Line != tc.cut {
					t.Fatalf("Append: %v, want a PartialLineError at line %d", err, tc.cut)
				}
			case tc.reason == "" && err != nil:
				t.Fatalf("Append: %v", err)
			case tc.reason != "" && (!errors.As(err, &be) || be.Reason != tc.reason):
				t.Fatalf("Append: %v, want a BusyError %q", err, tc.reason)
			}
			if got := read(t, p); got != tc.want {
				t.Errorf("file = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestAppendForcedGivesGrownLines(t *testing.T) {
	p := writeFile(t, "a\n")
	before, _ := Stat(p)
	os.WriteFile(p, []byte("a\nb\nc\n"), 0o600)
	var got [][]byte
	_, err := Append(p, before, func(grown [][]byte) ([]byte, error) { got = grown; return []byte("M\n"), nil }, true, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || string(got[0]) != "b" || string(got[1]) != "c" {
		t.Errorf("grown = %q, want the complete lines b and c", got)
	}
}

func TestUndo(t *testing.T) {
	p := writeFile(t, "a\n")
	before, _ := Stat(p)
	ar, err := Append(p, before, func([][]byte) ([]byte, error) { return []byte("M\n"), nil }, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := Undo(p, ar); err != nil || read(t, p) != "a\n" {
		t.Fatalf("Undo: %v, file %q", err, read(t, p))
	}
	ar, _ = Append(p, before, func([][]byte) ([]byte, error) { return []byte("M\n"), nil }, false, nil)
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("agent\n")
	f.Close()
	if err := Undo(p, ar); err == nil {
		t.Fatal("Undo removed an append that the agent wrote after")
	}
	if got := read(t, p); got != "a\nM\nagent\n" {
		t.Errorf("file = %q after a refused undo", got)
	}
}

func TestLock(t *testing.T) {
	p := writeFile(t, "a\n")
	unlock, err := Lock(p)
	if err != nil {
		t.Fatal(err)
	}
	var be *BusyError
	if _, err := Lock(p); !errors.As(err, &be) || be.Reason != ReasonLocked {
		t.Fatalf("second Lock: %v, want a BusyError %q", err, ReasonLocked)
	}
	unlock()
	if _, err := os.Stat(LockPath(p)); !os.IsNotExist(err) {
		t.Errorf("lock file left behind: %v", err)
	}
	unlock, err = Lock(p)
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	unlock()
}

func TestCheckIdle(t *testing.T) {
	now := time.Now()
	var be *BusyError
	for _, tc := range []struct {
		mod  time.Time
		idle time.Duration
		live bool
	}{
		{now, time.Minute, true},
		{now.Add(-2 * time.Minute), time.Minute, false},
		{now, 0, false},
	} {
		err := FileState{ModTime: tc.mod}.CheckIdle("f", tc.idle)
		if live := errors.As(err, &be) && be.Reason == ReasonLive; live != tc.live {
			t.Errorf("modified %v ago, idle %v: %v, want live=%v", now.Sub(tc.mod).Round(time.Second), tc.idle, err, tc.live)
		}
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.jsonl")
	os.WriteFile(p, []byte("old\n"), 0o600)
	if err := WriteAtomic(p, func(w io.Writer) error { w.Write([]byte("half")); return errors.New("boom") }); err == nil {
		t.Fatal("a failed write reported success")
	}
	if got := read(t, p); got != "old\n" {
		t.Errorf("a failed write changed the file: %q", got)
	}
	if err := WriteAtomic(p, func(w io.Writer) error { _, err := w.Write([]byte("new\n")); return err }); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != "new\n" {
		t.Errorf("file = %q", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
}

// TestAppendAnotherWriterBetweenItsWrites: lines that arrive while the block is being built
// are copied after it; a line another writer puts between the block and those copies is
// counted, inside the result's range, and makes the append one that is never undone (undoing
// it would cut that writer's line).
func TestAppendAnotherWriterBetweenItsWrites(t *testing.T) {
	p := writeFile(t, "a\n")
	before, err := Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	agent := func(line string) {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(line + "\n"); err != nil {
			t.Fatal(err)
		}
	}
	build := func([][]byte) ([]byte, error) {
		agent("late") // after Append looked at the file, before its write
		return []byte("MARKER\n"), nil
	}
	wrote := false
	keep := func(line []byte) bool {
		if !wrote {
			wrote = true
			agent("between") // after the block, before the copies of the late lines
		}
		return true
	}
	ar, err := Append(p, before, build, true, keep)
	if err != nil {
		t.Fatal(err)
	}
	want := "a\nlate\nMARKER\nbetween\nlate\n"
	if got := read(t, p); got != want {
		t.Fatalf("file %q, want %q", got, want)
	}
	if ar.Offset != int64(len("a\nlate\n")) || ar.Offset+int64(ar.Bytes) != int64(len(want)) {
		t.Errorf("range %d+%d, want %d to %d", ar.Offset, ar.Bytes, len("a\nlate\n"), len(want))
	}
	if ar.Late != 1 || ar.Between != 1 || ar.BetweenBytes != int64(len("between\n")) {
		t.Errorf("late %d, between %d (%d bytes); want 1, 1 (%d bytes)", ar.Late, ar.Between, ar.BetweenBytes, len("between\n"))
	}
	if err := Undo(p, ar); err == nil {
		t.Error("undid an append with another writer's line inside it")
	}
	if got := read(t, p); got != want {
		t.Fatalf("after the refused undo: %q, want %q", got, want)
	}
}

// TestLockThroughALink: a run through a symbolic link and one through the file it names take the
// same lock.
func TestLockThroughALink(t *testing.T) {
	p := writeFile(t, "a\n")
	link := filepath.Join(t.TempDir(), "link.jsonl")
	if err := os.Symlink(p, link); err != nil {
		t.Skip(err)
	}
	unlock, err := Lock(p)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	var be *BusyError
	if _, err := Lock(link); !errors.As(err, &be) || be.Reason != ReasonLocked {
		t.Fatalf("Lock through a link while the file is locked: %v, want busy (locked)", err)
	}
}
