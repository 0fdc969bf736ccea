package cmd

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/cmd/archivecmd"
	"github.com/ctxc/ctxc/internal/archive"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/objstore"
	"github.com/klauspost/compress/zstd"
)

// s3Env is the environment of a ctxc run against the test bucket: the server's endpoint and
// credentials from the environment (scripts/s3-server.sh up), no AWS files of the user's, and
// its own cache folder (the staging folder and the mirror).
func s3Env(t *testing.T, cache string, override ...string) []string {
	t.Helper()
	dir := t.TempDir()
	env := append(os.Environ(),
		"XDG_CACHE_HOME="+cache,
		"AWS_CONFIG_FILE="+filepath.Join(dir, "none"),
		"AWS_SHARED_CREDENTIALS_FILE="+filepath.Join(dir, "none"),
		"AWS_EC2_METADATA_DISABLED=true",
	)
	return append(env, override...)
}

// s3Bucket skips the test without the real S3 server and returns a fresh prefix in its bucket.
func s3Bucket(t *testing.T) string {
	t.Helper()
	bucket := os.Getenv("CTXC_TEST_S3_BUCKET")
	if bucket == "" {
		t.Skip("CTXC_TEST_S3_BUCKET is not set: start the server with eval \"$(scripts/s3-server.sh up)\"")
	}
	return fmt.Sprintf("s3://%s/%s-%d/", bucket, strings.ToLower(t.Name()), time.Now().UnixNano())
}

// s3Store opens the test bucket's prefix as ctxc does, to look at what it holds.
func s3Store(t *testing.T, addr string) objstore.Store {
	t.Helper()
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
	u, err := objstore.ParseURL(addr)
	if err != nil {
		t.Fatal(err)
	}
	s, err := objstore.OpenS3(context.Background(), u)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// runS3 runs ctxc with env and returns its standard output; a failure fails the test.
func runS3(t *testing.T, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(builtCtxc(t), args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("ctxc %v: %v\n%s%s", args, err, out.String(), errb.String())
	}
	return out.String()
}

// writeS3Sessions writes n sessions of about size bytes each under dir/sessions.
func writeS3Sessions(t *testing.T, dir string, n, size int) (string, []string) {
	t.Helper()
	src := filepath.Join(dir, "sessions")
	os.MkdirAll(filepath.Join(src, "proj"), 0o755)
	rng := rand.New(rand.NewPCG(uint64(n), uint64(size)))
	var files []string
	for i := range n {
		var b bytes.Buffer
		for b.Len() < size {
			fmt.Fprintf(&b, `{"role":"user","content":"conversation %d %x %x"}`+"\n", i, rng.Uint64(), rng.Uint64())
		}
		p := filepath.Join(src, "proj", fmt.Sprintf("s%02d.jsonl", i))
		if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	return src, files
}

// objectKey is the key, under the prefix, of a session's archive.
func objectKey(src, file string) string {
	rel, _ := filepath.Rel(filepath.Dir(src), file)
	return filepath.ToSlash(rel) + ".zst"
}

// checkWhole fetches every object under the prefix: each must be whole (its bytes have the
// checksum its metadata records, and it decodes); it returns the decoded sessions by key.
// settledObjects is the count of whole objects once the bucket stops changing: a PUT whose body
// was sent before the kill may still be stored by the server after it.
func settledObjects(t *testing.T, store objstore.Store) int {
	t.Helper()
	n := len(checkWhole(t, store))
	for range 20 {
		time.Sleep(100 * time.Millisecond)
		m := len(checkWhole(t, store))
		if m == n {
			return n
		}
		n = m
	}
	t.Fatalf("the bucket still changes 2 s after the kill")
	return n
}

func checkWhole(t *testing.T, store objstore.Store) map[string][]byte {
	t.Helper()
	ctx := context.Background()
	objs, err := store.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	dec, _ := zstd.NewReader(nil)
	defer dec.Close()
	out := map[string][]byte{}
	for _, o := range objs {
		var b bytes.Buffer
		if err := store.Get(ctx, o.Key, &b); err != nil {
			t.Fatal(err)
		}
		st, ok, err := store.Stat(ctx, o.Key)
		if err != nil || !ok {
			t.Fatalf("%s: listed but not found: %v", o.Key, err)
		}
		sum := sha256.Sum256(b.Bytes())
		if got := hex.EncodeToString(sum[:]); got != st.Meta[archive.MetaZstSHA256] {
			t.Fatalf("%s: a half object is visible: %d bytes of sha256 %.12s, its metadata records %.12s", o.Key, b.Len(), got, st.Meta[archive.MetaZstSHA256])
		}
		if !strings.HasSuffix(o.Key, ".zst") {
			continue
		}
		plain, err := dec.DecodeAll(b.Bytes(), nil)
		if err != nil {
			t.Fatalf("%s: does not decode: %v", o.Key, err)
		}
		out[o.Key] = plain
	}
	return out
}

// checkRoundTrip compares each session with what its object decodes to.
func checkRoundTrip(t *testing.T, store objstore.Store, src string, files []string) {
	t.Helper()
	got := checkWhole(t, store)
	for _, f := range files {
		want, _ := os.ReadFile(f)
		if g, ok := got[objectKey(src, f)]; !ok || !bytes.Equal(g, want) {
			t.Fatalf("%s: the object decodes to %d bytes (present: %v), the session has %d", objectKey(src, f), len(g), ok, len(want))
		}
	}
}

// archiveSummaryOf is the summary line of `ctxc archive --json`.
func archiveSummaryOf(t *testing.T, out string) archivecmd.Summary {
	t.Helper()
	var s archivecmd.Summary
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if strings.Contains(sc.Text(), `"type":"summary"`) {
			if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
				t.Fatal(err)
			}
		}
	}
	if s.Uploaded == nil {
		t.Fatalf("no upload count in the summary:\n%s", out)
	}
	return s
}

// TestS3ArchiveRoundTrip archives sessions into a real S3 server: each object decodes to its
// session byte for byte, and stats and grep read the bucket as a local archive from another
// machine's cache, and index and search it.
func TestS3ArchiveRoundTrip(t *testing.T) {
	addr := s3Bucket(t)
	dir := t.TempDir()
	src, files := writeS3Sessions(t, dir, 3, 64<<10)
	env := s3Env(t, filepath.Join(dir, "cache"))
	store := s3Store(t, addr)
	s := archiveSummaryOf(t, runS3(t, env, "archive", "--json", "--dry-run", src, addr))
	if objs, err := store.List(context.Background()); err != nil || len(objs) != 0 || s.New != 3 {
		t.Fatalf("a dry run: %d new, and the bucket holds %d objects (%v)", s.New, len(objs), err)
	}
	s = archiveSummaryOf(t, runS3(t, env, "archive", "--json", src, addr))
	if s.New != 3 || *s.Uploaded != 3 {
		t.Fatalf("first run: %d new, %d uploaded, want 3 and 3", s.New, *s.Uploaded)
	}
	checkRoundTrip(t, store, src, files)

	other := s3Env(t, filepath.Join(dir, "other-cache"))
	var st struct {
		Files int `json:"files"`
	}
	out := runS3(t, other, "stats", "--json", addr)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &st); err != nil || st.Files != 3 {
		t.Fatalf("stats of the bucket: %v\n%s", err, out)
	}
	if out := runS3(t, other, "grep", "conversation 1 ", addr); !strings.Contains(out, "s01.jsonl.zst") {
		t.Fatalf("grep of the bucket does not find conversation 1:\n%s", out)
	}
	db := filepath.Join(dir, "index")
	runS3(t, other, "index", "--db", db, addr)
	if out := runS3(t, other, "search", "--db", db, "conversation", addr); !strings.Contains(out, ".jsonl.zst") {
		t.Fatalf("search of the bucket finds nothing:\n%s", out)
	}
}

// TestS3ArchiveSecondRunUploadsNothing runs the archive twice: the second run finds every object
// present, and so does a run whose record of uploads was lost (the objects' metadata decides).
func TestS3ArchiveSecondRunUploadsNothing(t *testing.T) {
	addr := s3Bucket(t)
	dir := t.TempDir()
	src, files := writeS3Sessions(t, dir, 3, 32<<10)
	cache := filepath.Join(dir, "cache")
	env := s3Env(t, cache)
	runS3(t, env, "archive", "--json", src, addr)
	if s := archiveSummaryOf(t, runS3(t, env, "archive", "--json", src, addr)); *s.Uploaded != 0 || s.Unchanged != 3 {
		t.Fatalf("second run: %d uploaded, %d unchanged, want 0 and 3", *s.Uploaded, s.Unchanged)
	}
	records, _ := filepath.Glob(filepath.Join(cache, "ctxc", "archive-stage", "*", archive.UploadedName))
	if len(records) != 1 {
		t.Fatalf("record of uploads: %v", records)
	}
	os.Remove(records[0])
	if s := archiveSummaryOf(t, runS3(t, env, "archive", "--json", src, addr)); *s.Uploaded != 0 {
		t.Fatalf("a run without the record of uploads sent %d objects again", *s.Uploaded)
	}
	growSession(t, files[1], rand.New(rand.NewPCG(3, 4)), 4<<10)
	if s := archiveSummaryOf(t, runS3(t, env, "archive", "--json", src, addr)); *s.Uploaded != 1 || s.Grew != 1 {
		t.Fatalf("after one session grew: %d uploaded, %d grew, want 1 and 1", *s.Uploaded, s.Grew)
	}
}

// TestS3ArchiveKilledMidUpload kills ctxc with SIGKILL once the bucket holds some but not all of
// the archives: no half object is visible, and the next run uploads only the missing ones and
// leaves a complete archive.
func TestS3ArchiveKilledMidUpload(t *testing.T) {
	addr := s3Bucket(t)
	dir := t.TempDir()
	const sessions = 16
	src, files := writeS3Sessions(t, dir, sessions, 1<<20)
	env := s3Env(t, filepath.Join(dir, "cache"))
	store := s3Store(t, addr)
	cmd := exec.Command(builtCtxc(t), "archive", "-q", src, addr)
	cmd.Env = env
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	waitForSomeObjects(t, store, sessions, done)
	cmd.Process.Kill()
	if err := <-done; err == nil {
		t.Fatal("the run ended before it was killed: nothing was interrupted")
	}
	visible := settledObjects(t, store) // whole objects only, however many made it
	if visible >= sessions {
		t.Fatalf("all %d objects were uploaded before the kill", visible)
	}
	t.Logf("killed with %d of %d archives in the bucket", visible, sessions)
	s := archiveSummaryOf(t, runS3(t, env, "archive", "--json", src, addr))
	if *s.Uploaded != sessions-visible {
		t.Fatalf("the run after the kill uploaded %d objects, %d were missing", *s.Uploaded, sessions-visible)
	}
	checkRoundTrip(t, store, src, files)
}

// waitForSomeObjects polls the bucket until it lists at least one archive but fewer than n.
func waitForSomeObjects(t *testing.T, store objstore.Store, n int, done chan error) {
	t.Helper()
	for {
		select {
		case err := <-done:
			done <- err
			t.Fatalf("the run ended (%v) before the bucket held part of the archive", err)
		default:
		}
		objs, err := store.List(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) > 0 && len(objs) < n {
			return
		}
		if len(objs) >= n {
			t.Fatalf("the bucket went from none to all %d objects between two looks", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestS3ArchiveRefusals: a bucket that does not exist, wrong credentials and an endpoint that
// does not answer are refused before any work, with the exit codes of similar errors.
func TestS3ArchiveRefusals(t *testing.T) {
	dir := t.TempDir()
	src, _ := writeS3Sessions(t, dir, 1, 1<<10)
	cases := []struct {
		name, addr string
		env        []string
		code       int
		says       string
	}{
		{"unreachable", "s3://any/prefix", []string{"AWS_ENDPOINT_URL=http://127.0.0.1:1", "AWS_ACCESS_KEY_ID=k", "AWS_SECRET_ACCESS_KEY=s", "AWS_MAX_ATTEMPTS=1"}, cmdutil.ExitUnavailable, "does not answer"},
	}
	if bucket := os.Getenv("CTXC_TEST_S3_BUCKET"); bucket != "" {
		cases = append(cases,
			struct {
				name, addr string
				env        []string
				code       int
				says       string
			}{"no-bucket", "s3://no-such-bucket-ctxc/x", nil, cmdutil.ExitUsage, "bucket does not exist"},
			struct {
				name, addr string
				env        []string
				code       int
				says       string
			}{"wrong-secret", "s3://" + bucket + "/x", []string{"AWS_SECRET_ACCESS_KEY=wrong"}, cmdutil.ExitConfig, "access denied"},
		)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cache := filepath.Join(dir, c.name)
			cmd := exec.Command(builtCtxc(t), "archive", src, c.addr)
			cmd.Env = s3Env(t, cache, c.env...)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != c.code || !strings.Contains(string(out), c.says) {
				t.Fatalf("exit %v, want %d saying %q:\n%s", err, c.code, c.says, out)
			}
			if _, err := os.Stat(filepath.Join(cache, "ctxc")); err == nil {
				t.Fatal("a refused run staged files")
			}
		})
	}
}

// TestS3ArchiveNamesOutsideUTF8: sessions whose names hold a byte outside UTF-8 or a newline are
// uploaded (as keys S3 takes: the byte written %XX), found unchanged by the next run, and
// verified; the run that met them did not stop the others.
func TestS3ArchiveNamesOutsideUTF8(t *testing.T) {
	addr := s3Bucket(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "sessions")
	os.MkdirAll(src, 0o755)
	for _, name := range []string{"bad\xffname.jsonl", "new\nline.jsonl", "plain.jsonl"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(`{"role":"user","content":"hello"}`+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := s3Env(t, filepath.Join(dir, "cache"))
	if s := archiveSummaryOf(t, runS3(t, env, "archive", "--json", src, addr)); s.New != 3 || *s.Uploaded != 3 {
		t.Fatalf("first run: %d new, %d uploaded, want 3 and 3", s.New, *s.Uploaded)
	}
	if s := archiveSummaryOf(t, runS3(t, env, "archive", "--json", src, addr)); s.Unchanged != 3 || *s.Uploaded != 0 {
		t.Fatalf("second run: %d unchanged, %d uploaded, want 3 and 0", s.Unchanged, *s.Uploaded)
	}
	runS3(t, s3Env(t, filepath.Join(dir, "other")), "archive", "--verify", addr) // (exits 1 on a mismatch)
	objs, err := s3Store(t, addr).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	if !slices.Contains(keys, "sessions/bad%FFname.jsonl.zst") {
		t.Errorf("keys %q", keys)
	}
}
