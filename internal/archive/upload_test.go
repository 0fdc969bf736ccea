package archive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/ctxc/ctxc/internal/objstore"
)

// countingStore counts the objects written and read through it.
type countingStore struct {
	objstore.Store
	puts, gets int
}

func (c *countingStore) Put(ctx context.Context, key string, body io.ReadSeeker, size int64, meta map[string]string) (string, error) {
	c.puts++
	return c.Store.Put(ctx, key, body, size, meta)
}

func (c *countingStore) Get(ctx context.Context, key string, w io.Writer) error {
	c.gets++
	return c.Store.Get(ctx, key, w)
}

// stagedSessions archives n small sessions into a staging folder.
func stagedSessions(t *testing.T, n int) (stage string, srcs []Source) {
	t.Helper()
	dir := t.TempDir()
	stage = filepath.Join(dir, "stage")
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))
		os.WriteFile(p, []byte(fmt.Sprintf(`{"role":"user","content":"conversation %d"}`+"\n", i)), 0o644)
		srcs = append(srcs, Source{Path: p, Name: fmt.Sprintf("s/s%d.jsonl.zst", i)})
	}
	archiveAll(t, stage, srcs...)
	return stage, srcs
}

func upload(t *testing.T, stage string, store objstore.Store) []Upload {
	t.Helper()
	var got []Upload
	u := &Uploader{Stage: stage, Store: store, Each: func(r Upload) { got = append(got, r) }}
	if err := u.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestUploadSendsOnlyWhatTheStoreLacks: the first upload sends every archive and the manifest;
// the next sends nothing, also without the record of uploads; a session that grew is sent again.
func TestUploadSendsOnlyWhatTheStoreLacks(t *testing.T) {
	stage, srcs := stagedSessions(t, 3)
	store := &countingStore{Store: objstore.Dir{Root: t.TempDir()}}
	upload(t, stage, store)
	if store.puts != 4 {
		t.Fatalf("first upload: %d objects written, want 3 archives and the manifest", store.puts)
	}
	for _, s := range srcs {
		var b bytes.Buffer
		if err := store.Get(context.Background(), s.Name, &b); err != nil {
			t.Fatal(err)
		}
		want, _ := os.ReadFile(filepath.Join(stage, s.Name))
		if !bytes.Equal(b.Bytes(), want) {
			t.Fatalf("%s: the object differs from the staged archive", s.Name)
		}
	}
	store.puts = 0
	upload(t, stage, store)
	os.Remove(filepath.Join(stage, UploadedName))
	upload(t, stage, store)
	if store.puts != 0 {
		t.Fatalf("uploads with nothing new wrote %d objects", store.puts)
	}
	f, _ := os.OpenFile(srcs[1].Path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"role":"assistant","content":"more"}` + "\n")
	f.Close()
	archiveAll(t, stage, srcs...)
	got := upload(t, stage, store)
	if store.puts != 2 || got[1].Status != UploadDone || got[0].Status != UploadPresent {
		t.Fatalf("after one session grew: %d objects written (want it and the manifest): %+v", store.puts, got)
	}
}

// TestUploadSendsOnlyRecordedFrames: bytes after the manifest's last frame (a killed local run)
// are not part of the object.
func TestUploadSendsOnlyRecordedFrames(t *testing.T) {
	stage, srcs := stagedSessions(t, 1)
	p := filepath.Join(stage, srcs[0].Name)
	want, _ := os.ReadFile(p)
	f, _ := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("half a frame")
	f.Close()
	store := objstore.Dir{Root: t.TempDir()}
	upload(t, stage, store)
	var b bytes.Buffer
	store.Get(context.Background(), srcs[0].Name, &b)
	if !bytes.Equal(b.Bytes(), want) {
		t.Fatalf("the object has %d bytes, the recorded frames %d", b.Len(), len(want))
	}
}

// TestMirrorDownloadsOnlyWhatChanged: a mirror of a store is a local archive that Verify accepts;
// the next Mirror downloads nothing, and a file whose object is gone leaves the mirror.
func TestMirrorDownloadsOnlyWhatChanged(t *testing.T) {
	stage, srcs := stagedSessions(t, 2)
	root := t.TempDir()
	upload(t, stage, objstore.Dir{Root: root})
	store := &countingStore{Store: objstore.Dir{Root: root}}
	mirror := filepath.Join(t.TempDir(), "mirror")
	if err := Mirror(context.Background(), store, mirror); err != nil {
		t.Fatal(err)
	}
	if store.gets != 3 {
		t.Fatalf("first mirror: %d downloads, want 2 archives and the manifest", store.gets)
	}
	mustVerify(t, mirror)
	if got := decodeFile(t, filepath.Join(mirror, srcs[0].Name)); !bytes.Contains(got, []byte("conversation 0")) {
		t.Fatalf("mirrored archive decodes to %q", got)
	}
	store.gets = 0
	os.Remove(filepath.Join(root, srcs[1].Name))
	if err := Mirror(context.Background(), store, mirror); err != nil {
		t.Fatal(err)
	}
	if store.gets != 0 {
		t.Fatalf("second mirror: %d downloads, want none", store.gets)
	}
	if _, err := os.Stat(filepath.Join(mirror, srcs[1].Name)); err == nil {
		t.Fatal("the archive whose object is gone is still in the mirror")
	}
}
