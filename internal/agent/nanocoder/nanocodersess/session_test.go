package nanocodersess

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// session is a session Nanocoder 1.30.0 wrote offline through its ACP mode: a read_file call,
// then a resumed turn.
const session = "../../../../testdata/nanocoder/sessions/2e8ad5ce-ca6d-45e3-b8e7-f38a9ee5d892.json"

func TestExportOfASessionNanocoderWrote(t *testing.T) {
	if !IsSession(session) {
		t.Fatalf("%s is not read as a Nanocoder session", session)
	}
	var out bytes.Buffer
	if err := Export(session, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	h := gjson.Parse(lines[0])
	if h.Get("type").Str != HeaderType || h.Get("sessionId").Str != "2e8ad5ce-ca6d-45e3-b8e7-f38a9ee5d892" ||
		h.Get("messages").Int() != 6 || !strings.HasSuffix(h.Get("cwd").Str, "/proj") || h.Get("model").Str != "fake-model" {
		t.Errorf("header %s", lines[0])
	}
	if len(lines) != 7 {
		t.Fatalf("%d lines, want the header and 6 messages:\n%s", len(lines), out.String())
	}
	for i, l := range lines[1:] {
		if !gjson.Valid(l) || !gjson.Get(l, "role").Exists() {
			t.Errorf("line %d: %s", i+2, l)
		}
	}
}

func TestIsSession(t *testing.T) {
	dir := t.TempDir()
	const id = "2e8ad5ce-ca6d-45e3-b8e7-f38a9ee5d892"
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	doc := "{\n  \"id\": \"" + id + "\",\n  \"title\": \"t\",\n  \"messages\": []\n}"
	p := write(id+".json", doc)
	if IsSession(p) {
		t.Errorf("%s is a session without the index beside it", p)
	}
	write(IndexFile, "[]")
	for _, c := range []struct {
		name, text string
		want       bool
	}{
		{id + ".json", doc, true},
		{id + ".json", "\xef\xbb\xbf" + doc, true},
		// Continue CLI's sessions are <uuid>.json beside a sessions.json too
		{id + ".json", "{\n  \"sessionId\": \"" + id + "\",\n  \"history\": []\n}", false},
		{"2E8AD5CE-CA6D-45E3-B8E7-F38A9EE5D892.json", doc, false},
		{"notes.json", doc, false},
		{id + ".jsonl", doc, false},
	} {
		p := write(c.name, c.text)
		if got := IsSession(p); got != c.want {
			t.Errorf("IsSession(%s holding %.20q) = %v", c.name, c.text, got)
		}
		os.Remove(p)
	}
	if IsSession(dir) {
		t.Errorf("a folder is a session")
	}
}

// TestExportErrors: a document that is not a session says why.
func TestExportErrors(t *testing.T) {
	for text, want := range map[string]string{
		`{"id":"x","messages":[`:   "not a JSON document",
		`[1,2]`:                    "not a JSON object",
		`{"id":"x","messages":{}}`: `"messages" is not an array`,
	} {
		p := filepath.Join(t.TempDir(), "2e8ad5ce-ca6d-45e3-b8e7-f38a9ee5d892.json")
		os.WriteFile(p, []byte(text), 0o644)
		err := exportFile(p, &bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: %v, want %q naming the file", text, err, want)
		}
	}
}
