package openclawstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// writerBusy is the writer's busy_timeout in these tests: OpenClaw's are 5 s and 30 s. A commit
// that a reader held up for longer than this fails the test.
const writerBusy = 2 * time.Second

// openWriter opens a second, writing connection to the store, as OpenClaw holds one.
func openWriter(t *testing.T, path string) *sql.DB {
	t.Helper()
	w, err := sql.Open("sqlite", fmt.Sprintf("file:%s?_pragma=busy_timeout(%d)", path, writerBusy.Milliseconds()))
	if err != nil {
		t.Fatal(err)
	}
	w.SetMaxOpenConns(1)
	t.Cleanup(func() { w.Close() })
	return w
}

// TestReadNeverBlocksWriter reads a store while a writer holds BEGIN IMMEDIATE and commits, in
// both journal modes OpenClaw uses (WAL; DELETE on network volumes): the read succeeds and sees
// only committed events, and every commit of the writer goes through within its busy timeout.
func TestReadNeverBlocksWriter(t *testing.T) {
	for _, mode := range []string{"wal", "delete"} {
		t.Run(mode, func(t *testing.T) {
			path, setup := newStore(t, mode)
			lines := piLines("s", 700)
			for i, l := range lines {
				insertEvent(t, setup, "s", i, l)
			}
			setup.Close()
			w := openWriter(t, path)
			readDuringOpenTransaction(t, path, w, len(lines))
			commitsDuringReads(t, path, w, len(lines))
		})
	}
}

// readDuringOpenTransaction: the writer holds BEGIN IMMEDIATE with an uncommitted event; a
// read goes through at once and does not see it.
func readDuringOpenTransaction(t *testing.T, path string, w *sql.DB, committed int) {
	ctx := context.Background()
	conn, err := w.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, `BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, `INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES ('s', 999999, '{"type":"custom"}', 0)`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := exportString(t, path, "s")
	if err != nil {
		t.Fatalf("read while the writer holds its transaction: %v", err)
	}
	if n := strings.Count(got, "\n"); n != committed {
		t.Errorf("read %d events, want the %d committed", n, committed)
	}
	if d := time.Since(start); d > BusyTimeout/2 {
		t.Errorf("read waited %v on the writer's open transaction", d)
	}
	if _, err := conn.ExecContext(ctx, `COMMIT`); err != nil {
		t.Fatalf("commit after the read: %v", err)
	}
}

// commitsDuringReads: readers read the session over and over while the writer commits 40
// transactions; every commit succeeds, and no read fails.
func commitsDuringReads(t *testing.T, path string, w *sql.DB, committed int) {
	ctx := context.Background()
	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for range 2 {
		wg.Go(func() {
			for !stop.Load() {
				if _, err := exportString(t, path, "s"); err != nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		})
	}
	var slowest time.Duration
	for i := range 40 {
		start := time.Now()
		conn, err := w.Conn(ctx)
		if err == nil {
			_, err = conn.ExecContext(ctx, `BEGIN IMMEDIATE`)
		}
		if err == nil {
			_, err = conn.ExecContext(ctx, `INSERT INTO transcript_events (session_id, seq, event_json, created_at) VALUES ('s', ?, '{"type":"custom"}', 0)`, 1000000+i)
		}
		if err == nil {
			time.Sleep(5 * time.Millisecond) // a transaction that lasts, as OpenClaw's do
			_, err = conn.ExecContext(ctx, `COMMIT`)
		}
		if conn != nil {
			conn.Close()
		}
		if err != nil {
			stop.Store(true)
			wg.Wait()
			t.Fatalf("commit %d while ctxc reads: %v", i, err)
		}
		slowest = max(slowest, time.Since(start))
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("read while the writer commits: %v", err)
	}
	if reads.Load() == 0 {
		t.Error("no read overlapped the commits")
	}
	t.Logf("40 commits, slowest %v, %d reads of %d+ events meanwhile", slowest, reads.Load(), committed)
}

// TestReadLeavesNoTrace reads a store that no one has open and checks that the store file is
// byte for byte as it was. In rollback-journal mode nothing else appears; in WAL mode a reader
// needs the -shm index (and an empty -wal) that every connection shares, which SQLite creates
// if the last writer removed them and a read-only connection cannot remove again: the -wal stays
// empty, and OpenClaw uses both as its own when it opens the store.
func TestReadLeavesNoTrace(t *testing.T) {
	for _, mode := range []string{"wal", "delete"} {
		t.Run(mode, func(t *testing.T) {
			path, w := newStore(t, mode)
			for i, l := range piLines("s", 50) {
				insertEvent(t, w, "s", i, l)
			}
			w.Close()
			if mode == "wal" { // what a reader of a WAL store leaves: an empty -wal
				os.WriteFile(path+"-wal", nil, 0o600)
			}
			before := snapshotDir(t, filepath.Dir(path), "-shm")
			if mode == "wal" {
				os.Remove(path + "-wal")
			}
			if _, err := exportString(t, path, "s"); err != nil {
				t.Fatal(err)
			}
			after := snapshotDir(t, filepath.Dir(path), "-shm")
			if after != before {
				t.Errorf("the store's directory changed:\nbefore %s\nafter  %s", before, after)
			}
		})
	}
}

// TestReadLiveWALLeavesItAlone reads a WAL store whose writer is open with frames not yet
// checkpointed: the read sees them and checkpoints nothing (the store file and the -wal are
// unchanged).
func TestReadLiveWALLeavesItAlone(t *testing.T) {
	path, w := newStore(t, "wal")
	if _, err := w.Exec(`PRAGMA wal_autocheckpoint = 0`); err != nil {
		t.Fatal(err)
	}
	for i, l := range piLines("s", 300) {
		insertEvent(t, w, "s", i, l)
	}
	before := snapshotDir(t, filepath.Dir(path), "-shm")
	got, err := exportString(t, path, "s")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(got, "\n"); n != 300 {
		t.Errorf("read %d events, want 300", n)
	}
	if after := snapshotDir(t, filepath.Dir(path), "-shm"); after != before {
		t.Errorf("the store's files changed:\nbefore %s\nafter  %s", before, after)
	}
}

// snapshotDir lists a directory's files with their digests, leaving out the file whose name
// ends with skip, if any: the -shm index, which every reader of a WAL database writes its read
// marks into.
func snapshotDir(t *testing.T, dir, skip string) string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		if skip != "" && strings.HasSuffix(e.Name(), skip) {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s:%x", e.Name(), sha256.Sum256(b)))
	}
	sort.Strings(out)
	return strings.Join(out, " ")
}
