package storefiles

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fakeStore serves sessions whose text names the store's state; it counts its exports.
type fakeStore struct {
	path    string
	exports *int
}

func (s fakeStore) SessionIDs() ([]string, error) { return []string{"a", "b"}, nil }
func (s fakeStore) Close() error                  { return nil }
func (s fakeStore) Export(_ context.Context, session string, w io.Writer) (int, error) {
	*s.exports++
	info, err := os.Stat(s.path)
	if err != nil {
		return 0, err
	}
	n, err := fmt.Fprintf(w, "{\"session\":%q,\"store_size\":%d}\n", session, info.Size())
	return n, err
}

func fakeKind(exports *int) *Kind {
	return countingKind(exports, new(int))
}

// countingKind is fakeKind counting the store's opens too.
func countingKind(exports, opens *int) *Kind {
	return &Kind{Name: "fake", Named: func(p string) bool { return strings.HasSuffix(p, ".db") },
		Open: func(store string) (Store, error) { *opens++; return fakeStore{store, exports}, nil }}
}

func readAll(t *testing.T, k *Kind, name string) string {
	t.Helper()
	f, info, err := k.OpenSession(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(b)) != info.Size() {
		t.Errorf("%s: read %d bytes, stated %d", name, len(b), info.Size())
	}
	return string(b)
}

// TestOpenSessionExportsOnce: the readers that open one session in turn (detection, the scan,
// the usage) read one export of it while its store does not change, each from its start; a
// change of the store exports it again.
func TestOpenSessionExportsOnce(t *testing.T) {
	if _, err := reopen(os.Stdin); err != nil {
		t.Skip("files cannot be opened again here: every open exports")
	}
	store := filepath.Join(t.TempDir(), "s.db")
	if err := os.WriteFile(store, append([]byte("SQLite format 3\x00"), make([]byte, 100)...), 0o644); err != nil {
		t.Fatal(err)
	}
	exports := 0
	k := fakeKind(&exports)
	first := readAll(t, k, store+Sep+"a")
	// Two open at once: each reads from its own start.
	f1, _, err := k.OpenSession(store + Sep + "a")
	if err != nil {
		t.Fatal(err)
	}
	f2, _, _ := k.OpenSession(store + Sep + "a")
	b1, _ := io.ReadAll(f1)
	b2, _ := io.ReadAll(f2)
	f1.Close()
	f2.Close()
	if string(b1) != first || string(b2) != first || exports != 1 {
		t.Fatalf("reads %q %q of %q after %d exports, want 1", b1, b2, first, exports)
	}
	readAll(t, k, store+Sep+"b")
	if exports != 2 {
		t.Fatalf("another session: %d exports, want 2", exports)
	}
	// The store changes: the session is exported again, and reads its new state.
	os.WriteFile(store, append([]byte("SQLite format 3\x00"), make([]byte, 200)...), 0o644)
	later := time.Now().Add(time.Second)
	os.Chtimes(store, later, later)
	if again := readAll(t, k, store+Sep+"a"); again == first || exports != 3 {
		t.Errorf("after a change of the store: %q (was %q), %d exports, want 3", again, first, exports)
	}
}

// TestKeptExportsAreBounded: at most keptExports exports are kept, the oldest let go.
func TestKeptExportsAreBounded(t *testing.T) {
	if _, err := reopen(os.Stdin); err != nil {
		t.Skip("files cannot be opened again here: nothing is kept")
	}
	store := filepath.Join(t.TempDir(), "s.db")
	os.WriteFile(store, append([]byte("SQLite format 3\x00"), make([]byte, 100)...), 0o644)
	exports := 0
	k := fakeKind(&exports)
	for i := range keptExports + 5 {
		readAll(t, k, fmt.Sprintf("%s%s%d", store, Sep, i))
	}
	kept.Lock()
	n := len(kept.list)
	kept.Unlock()
	if n > keptExports {
		t.Errorf("%d exports kept, at most %d", n, keptExports)
	}
	readAll(t, k, store+Sep+"0") // let go: exported again
	if exports != keptExports+6 {
		t.Errorf("%d exports, want %d", exports, keptExports+6)
	}
}

// TestConvertedExportsOnce: a file read as its export (an Aider history, an OpenHands
// conversation) is exported once for the readers that open it in turn, and again once it changes.
func TestConvertedExportsOnce(t *testing.T) {
	if _, err := reopen(os.Stdin); err != nil {
		t.Skip("files cannot be opened again here: every open exports")
	}
	path := filepath.Join(t.TempDir(), "history.md")
	os.WriteFile(path, []byte("one\n"), 0o644)
	exports := 0
	c := &Converted{Name: "fake", Export: func(p string, w io.Writer) error {
		exports++
		b, err := os.ReadFile(p)
		if err == nil {
			_, err = fmt.Fprintf(w, "{\"text\":%q}\n", b)
		}
		return err
	}}
	read := func() string {
		f, _, err := c.OpenSession(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		return string(b)
	}
	first, second := read(), read()
	if first != second || exports != 1 {
		t.Fatalf("%q then %q after %d exports, want the same after 1", first, second, exports)
	}
	os.WriteFile(path, []byte("one\ntwo\n"), 0o644)
	later := time.Now().Add(time.Second)
	os.Chtimes(path, later, later)
	if third := read(); third == first || exports != 2 {
		t.Errorf("after a change: %q, %d exports, want a new export", third, exports)
	}
}

// TestStoreOpenedOncePerState: the readers of many sessions of a store (stats of every session
// the store lists) open it once, whatever the number of sessions, and again once it changes.
func TestStoreOpenedOncePerState(t *testing.T) {
	store := filepath.Join(t.TempDir(), "s.db")
	os.WriteFile(store, append([]byte("SQLite format 3\x00"), make([]byte, 100)...), 0o644)
	exports, opens := 0, 0
	k := countingKind(&exports, &opens)
	names, err := k.ListSessions(store)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 * keptExports {
		names = append(names, fmt.Sprintf("%s%s%d", store, Sep, i))
	}
	for _, n := range names {
		readAll(t, k, n)
	}
	if _, err := k.StatSession(store + Sep + "a"); err != nil { // (the sizes of every session listed)
		t.Fatal(err)
	}
	if opens != 1 || exports < len(names) {
		t.Fatalf("%d sessions read: the store opened %d times, %d exports; want 1 open", len(names), opens, exports)
	}
	os.WriteFile(store, append([]byte("SQLite format 3\x00"), make([]byte, 200)...), 0o644)
	later := time.Now().Add(time.Second)
	os.Chtimes(store, later, later)
	readAll(t, k, store+Sep+"a")
	if opens != 2 {
		t.Errorf("after a change of the store: %d opens, want 2", opens)
	}
}
