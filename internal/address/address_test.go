package address

import (
	"database/sql"
	"errors"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/aider/aiderhist"
	"github.com/ctxc/ctxc/internal/agent/openhands/openhandsconv"
	"github.com/ctxc/ctxc/internal/agent/pi/openclawstore"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/testsessions"
	"github.com/ctxc/ctxc/internal/transcript"
)

const (
	plainText   = `{"type":"user","message":{"role":"user","content":"hello"}}` + "\n"
	piHeader    = `{"type":"session","version":3,"id":"s1","timestamp":"2026-09-01T00:00:00.000Z","cwd":"/w"}`
	piMessage   = `{"type":"message","id":"e1","parentId":null,"timestamp":"2026-09-01T00:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}`
	continueDoc = "{\n  \"sessionId\": \"c1\",\n  \"history\": []\n}\n"
	aiderText   = "\n# aider chat started at 2024-08-05 19:33:02\n\n#### fix it  \n\nDone.\n"
	compactHint = "use -o FILE to write a compacted copy"
)

// openclawStore makes an OpenClaw store in dir holding session s1 (two pi lines) and returns
// its path.
func openclawStore(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, openclawstore.FileName)
	db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: path}).String())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{
		`CREATE TABLE transcript_events (session_id TEXT NOT NULL, seq INTEGER NOT NULL, event_json TEXT,
			created_at INTEGER NOT NULL, event_zstd BLOB, event_utf8_bytes INTEGER, navigation_json TEXT,
			PRIMARY KEY (session_id, seq)) STRICT`,
		`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES ('s1', 0, '` + piHeader + `', 0)`,
		`INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES ('s1', 1, '` + piMessage + `', 1)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

func write(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// addressCase is one address as a user gives it, and what each command sees of it.
type addressCase struct {
	name  string
	make  func(t *testing.T, dir string) string // the address, made in dir
	kind  Kind
	text  string // what Open reads ("" when it fails)
	open  string // Open's error, as the user sees it (after the directory's path)
	write string // Writable's error with compactHint ("" when the session may be written)
}

func addressCases() []addressCase {
	return []addressCase{
		{name: "a session file", kind: File, text: plainText,
			make: func(t *testing.T, dir string) string { return write(t, filepath.Join(dir, "a.jsonl"), plainText) }},
		{name: "a symbolic link to a session file", kind: File, text: plainText,
			make: func(t *testing.T, dir string) string {
				write(t, filepath.Join(dir, "real.jsonl"), plainText)
				link := filepath.Join(dir, "link.jsonl")
				if err := os.Symlink("real.jsonl", link); err != nil {
					t.Fatal(err)
				}
				return link
			}},
		{name: "a directory", kind: File, open: "/d: is a directory",
			make: func(t *testing.T, dir string) string {
				d := filepath.Join(dir, "d")
				if err := os.Mkdir(d, 0o755); err != nil {
					t.Fatal(err)
				}
				return d
			}},
		{name: "a FIFO", kind: File, open: "/fifo: not a regular file",
			make: func(t *testing.T, dir string) string {
				p := filepath.Join(dir, "fifo")
				if err := syscall.Mkfifo(p, 0o644); err != nil {
					t.Skip(err)
				}
				return p
			}},
		{name: "an unreadable file", kind: File, open: "open DIR/secret.jsonl: permission denied",
			make: func(t *testing.T, dir string) string {
				if os.Geteuid() == 0 {
					t.Skip("root reads every file")
				}
				p := write(t, filepath.Join(dir, "secret.jsonl"), plainText)
				if err := os.Chmod(p, 0); err != nil {
					t.Fatal(err)
				}
				return p
			}},
		{name: "a missing file", kind: File, open: "stat DIR/gone.jsonl: no such file or directory",
			make: func(t *testing.T, dir string) string { return filepath.Join(dir, "gone.jsonl") }},
		{name: "an archived session", kind: Archive, text: plainText,
			write: "DIR/a.jsonl.zst: archived sessions are read-only; " + compactHint,
			make: func(t *testing.T, dir string) string {
				return write(t, filepath.Join(dir, "a.jsonl.zst"), string(testsessions.Archived([]byte(plainText), 0)))
			}},
		{name: "an archive is told by its bytes, not its name", kind: Archive, text: plainText,
			write: "DIR/a.jsonl: archived sessions are read-only; " + compactHint,
			make: func(t *testing.T, dir string) string {
				return write(t, filepath.Join(dir, "a.jsonl"), string(testsessions.Archived([]byte(plainText), 0)))
			}},
		{name: "a plain file named as an archive", kind: File, text: plainText,
			make: func(t *testing.T, dir string) string { return write(t, filepath.Join(dir, "b.jsonl.zst"), plainText) }},
		{name: "a symbolic link to an archive", kind: Archive, text: plainText,
			write: "DIR/link.zst: archived sessions are read-only; " + compactHint,
			make: func(t *testing.T, dir string) string {
				write(t, filepath.Join(dir, "a.jsonl.zst"), string(testsessions.Archived([]byte(plainText), 0)))
				link := filepath.Join(dir, "link.zst")
				if err := os.Symlink("a.jsonl.zst", link); err != nil {
					t.Fatal(err)
				}
				return link
			}},
		{name: "a Continue CLI session", kind: Snapshot, text: "{\"sessionId\":\"c1\"}\n",
			write: "DIR/sessions/c1.json: is a Continue CLI session, which Continue CLI rewrites whole; give -o ~/.continue/sessions/NEW.json to write the compacted session as a new one",
			make: func(t *testing.T, dir string) string {
				return write(t, filepath.Join(dir, "sessions", "c1.json"), continueDoc)
			}},
		{name: "a session of an OpenClaw store", kind: StoreSession, text: piHeader + "\n" + piMessage + "\n",
			write: "DIR/openclaw-agent.sqlite#s1: is a session of an OpenClaw SQLite store, which ctxc only reads; give -o OUT to write the result as a new pi-format session",
			make:  func(t *testing.T, dir string) string { return openclawStore(t, dir) + "#s1" }},
		{name: "STORE# with an empty id", kind: File, open: "stat DIR/openclaw-agent.sqlite#: no such file or directory",
			make: func(t *testing.T, dir string) string { return openclawStore(t, dir) + "#" }},
		{name: "a # in the name of a real file beside a store", kind: File, text: plainText,
			make: func(t *testing.T, dir string) string {
				return write(t, openclawStore(t, dir)+"#s1", plainText)
			}},
		{name: "a # in an ordinary file's name", kind: File, text: plainText,
			make: func(t *testing.T, dir string) string { return write(t, filepath.Join(dir, "notes#1.jsonl"), plainText) }},
		{name: "STORE#ID of a file that is no store", kind: File, open: "stat DIR/notes.jsonl#s1: no such file or directory",
			make: func(t *testing.T, dir string) string {
				return write(t, filepath.Join(dir, "notes.jsonl"), plainText) + "#s1"
			}},
		{name: "the store itself", kind: File,
			make: func(t *testing.T, dir string) string { return openclawStore(t, dir) }},
		{name: "Aider's chat history", kind: Converted,
			write: "DIR/.aider.chat.history.md: is an Aider chat history, which ctxc only reads; give -o OUT to write the result as a new ctxc-format session",
			make: func(t *testing.T, dir string) string {
				return write(t, filepath.Join(dir, aiderhist.FileName), aiderText)
			}},
		{name: "an OpenHands conversation", kind: Converted,
			write: "DIR/base_state.json: is an OpenHands conversation, which ctxc only reads",
			make: func(t *testing.T, dir string) string {
				write(t, filepath.Join(dir, openhandsconv.EventsDir, "event-00000-aaaaaaaa.json"), `{"kind":"A"}`)
				return write(t, filepath.Join(dir, openhandsconv.StateFile), `{}`)
			}},
	}
}

// TestParseOpenWritable: each kind of address is told apart, opens as every reader opens it (or
// fails saying why), and is writable in place or says why not with the one read-only error.
func TestParseOpenWritable(t *testing.T) {
	for _, c := range addressCases() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			name := c.make(t, dir)
			user := func(s string) string { return strings.ReplaceAll(s, dir, "DIR") }
			a := Parse(name)
			if a.Kind != c.kind || a.Name != name {
				t.Fatalf("Parse(%q) = %v %q, want %v", user(name), a.Kind, user(a.Name), c.kind)
			}
			if got := a.Exported(); got != (c.kind == StoreSession || c.kind == Converted) {
				t.Errorf("Exported() = %v for a %v", got, c.kind)
			}
			checkOpen(t, a, c, user)
			err := a.Writable(compactHint)
			if c.write == "" {
				if err != nil {
					t.Errorf("Writable: %v, want nil", err)
				}
				return
			}
			if _, ok := errors.AsType[*safewrite.ReadOnlyError](err); !ok {
				t.Fatalf("Writable: %T %v, want a ReadOnlyError", err, err)
			}
			if got := user(err.Error()); !strings.HasPrefix(got, c.write) {
				t.Errorf("Writable:\n got %s\nwant %s", got, c.write)
			}
		})
	}
}

// checkOpen opens the address and compares what it reads, or its error, with the case's; a
// session that opens states the size Open reads.
func checkOpen(t *testing.T, a Address, c addressCase, user func(string) string) {
	t.Helper()
	f, err := a.Open()
	if c.open != "" {
		if err == nil {
			f.Close()
			t.Fatalf("Open: no error, want %q", c.open)
		}
		if got := user(err.Error()); !strings.HasSuffix(got, strings.TrimPrefix(c.open, "DIR")) {
			t.Errorf("Open: %s, want %s", got, c.open)
		}
		return
	}
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if c.text != "" && string(b) != c.text {
		t.Errorf("Open reads %q, want %q", b, c.text)
	}
	if c.kind == File || c.kind == Archive || c.kind == Snapshot {
		return // (the size stated is the file's: an archive's is its compressed bytes)
	}
	info, err := a.Stat()
	if err != nil {
		t.Fatalf("Stat: %v", err)
	}
	if info.Size() != int64(len(b)) {
		t.Errorf("Stat: %d bytes, Open read %d", info.Size(), len(b))
	}
}

// TestWriteExported: a command that writes on a session read as its export runs on a private
// copy of the export; in place is the read-only error, an output that is the store is refused,
// and a data error found in the copy names the session, not the temporary file.
func TestWriteExported(t *testing.T) {
	dir := t.TempDir()
	store := openclawStore(t, dir)
	a := Parse(store + "#s1")
	ran := false
	err := a.WriteExported(true, "", false, func(string) error { ran = true; return nil })
	if _, ok := errors.AsType[*safewrite.ReadOnlyError](err); !ok || ran {
		t.Errorf("in place: %v (ran %v), want the read-only error and nothing run", err, ran)
	}
	if err := a.WriteExported(false, store, true, func(string) error { ran = true; return nil }); err == nil || ran {
		t.Errorf("-o the store itself: %v (ran %v), want a refusal", err, ran)
	}
	var tmp string
	err = a.WriteExported(false, filepath.Join(dir, "out.jsonl"), false, func(p string) error {
		tmp = p
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if string(b) != piHeader+"\n"+piMessage+"\n" {
			t.Errorf("the command reads %q", b)
		}
		return &transcript.DataError{Path: p, Line: 2, Msg: "bad record"}
	})
	if want := store + "#s1:2: bad record"; err == nil || err.Error() != want {
		t.Errorf("data error: %v, want %s", err, want)
	}
	if _, err := os.Stat(tmp); !os.IsNotExist(err) {
		t.Errorf("the temporary export %s is left: %v", tmp, err)
	}
	other := errors.New("something else")
	if err := a.WriteExported(false, "", false, func(string) error { return other }); err != other {
		t.Errorf("another error: %v, want it as it is", err)
	}
}
