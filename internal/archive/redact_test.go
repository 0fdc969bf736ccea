package archive

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// archiveRedacted runs one archive of srcs into dest with Redact, returning the first error.
func archiveRedacted(t *testing.T, dest string, redact bool, srcs ...Source) ([]Result, error) {
	t.Helper()
	a, err := Open(dest, false)
	if err != nil {
		t.Fatal(err)
	}
	a.Redact = redact
	defer a.Close()
	a.Prepare(srcs)
	var out []Result
	for _, s := range srcs {
		r, err := a.File(s)
		if err != nil {
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// TestRedactedArchiveHoldsNoSecret: with Redact, the archive decodes to the session with its
// secrets replaced inside the JSON strings, every line valid JSON, the lines without secrets
// byte for byte, the source untouched; a session that grows gets its new lines redacted too, and
// --verify checks the redacted archive.
func TestRedactedArchiveHoldsNoSecret(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "s.jsonl")
	plain := `{"role":"user","content":"hello"}` + "\n"
	secret := `{"role":"user","content":"token ghp_R4nd0mT0k3nV4lu3F0rT3st1ngOnly00AbCd and \"quoted\""}` + "\r\n"
	orig := plain + secret
	if err := os.WriteFile(src, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	dest := filepath.Join(dir, "arc")
	s := Source{Path: src, Name: "s.jsonl.zst"}
	rs, err := archiveRedacted(t, dest, true, s)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Redacted != 1 {
		t.Fatalf("redacted %d, want 1", rs[0].Redacted)
	}
	more := `{"role":"assistant","content":"use password=Tr0ub4dor3"}` + "\n"
	f, _ := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(more)
	f.Close()
	if _, err := archiveRedacted(t, dest, true, s); err != nil {
		t.Fatal(err)
	}
	got := string(decodeFile(t, filepath.Join(dest, s.Name)))
	for _, leak := range []string{"ghp_R4nd0m", "Tr0ub4dor3"} {
		if strings.Contains(got, leak) {
			t.Errorf("archive holds %q:\n%s", leak, got)
		}
	}
	lines := strings.SplitAfter(got, "\n")
	if lines[0] != plain || !strings.HasSuffix(lines[1], "\r\n") {
		t.Errorf("lines changed beyond their secrets: %q", got)
	}
	for _, l := range lines[:3] {
		if !json.Valid([]byte(strings.TrimSpace(l))) {
			t.Errorf("not JSON: %q", l)
		}
	}
	if b, _ := os.ReadFile(src); string(b) != orig+more {
		t.Errorf("the source changed")
	}
	mustVerify(t, dest)
}

// TestRedactionIsNotMixedInOneArchive: a session archived as a byte-exact copy is not continued
// with redacted lines, nor the other way.
func TestRedactionIsNotMixedInOneArchive(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "s.jsonl")
	os.WriteFile(src, []byte(`{"role":"user","content":"a"}`+"\n"), 0o644)
	dest := filepath.Join(dir, "arc")
	s := Source{Path: src, Name: "s.jsonl.zst"}
	if _, err := archiveRedacted(t, dest, false, s); err != nil {
		t.Fatal(err)
	}
	f, _ := os.OpenFile(src, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"role":"user","content":"b"}` + "\n")
	f.Close()
	if _, err := archiveRedacted(t, dest, true, s); err == nil || !strings.Contains(err.Error(), "byte-exact") {
		t.Fatalf("continued a plain archive with --redact: %v", err)
	}
}
