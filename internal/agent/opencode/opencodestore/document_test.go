package opencodestore

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A session document is read as its messages, one a line, by time created then id, parts by id;
// a file that does not start as one is not a document.
func TestDocument(t *testing.T) {
	dir := t.TempDir()
	doc := `{
  "info": {"id": "ses_1", "title": "t"},
  "messages": [
    {"info": {"id": "msg_b", "role": "assistant", "time": {"created": 5}}, "parts": [{"id": "prt_2", "type": "text", "text": "b"}, {"id": "prt_1", "type": "step-start"}]},
    {"info": {"id": "msg_a", "role": "user", "time": {"created": 5}}, "parts": [{"id": "prt_0", "type": "text", "text": "a"}]},
    {"info": {"id": "msg_0", "role": "user", "time": {"created": 1}}, "parts": []}
  ]
}`
	tests := []struct {
		name, file, text string
		is               bool
		lines            []string // the messages' ids, in order
		err              string
	}{
		{"document", "s.json", doc, true, []string{"msg_0", "msg_a", "msg_b"}, ""},
		{"not json named", "s.jsonl", doc, false, nil, ""},
		{"other json", "o.json", `{"sessionId": "x"}`, false, nil, ""},
		{"info not a session", "p.json", `{"info": {"id": "msg_1"}}`, false, nil, ""},
		{"cut short", "c.json", `{"info": {"id": "ses_1"}, "messages": [`, true, nil, "not a JSON document"},
		{"bad message", "m.json", `{"info": {"id": "ses_1"}, "messages": [{"info": 3, "parts": []}]}`, true, nil, "message 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.file)
			if err := os.WriteFile(p, []byte(tt.text), 0o600); err != nil {
				t.Fatal(err)
			}
			if IsDocument(p) != tt.is {
				t.Fatalf("IsDocument = %v, want %v", !tt.is, tt.is)
			}
			if !tt.is {
				return
			}
			var b bytes.Buffer
			err := ExportDocument(p, &b)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), p) {
					t.Fatalf("error %v, want one naming %s and %q", err, p, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
				var v struct {
					Info  struct{ ID string }
					Parts []struct{ ID string }
				}
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Fatalf("%v: %s", err, l)
				}
				for i := 1; i < len(v.Parts); i++ {
					if v.Parts[i-1].ID > v.Parts[i].ID {
						t.Errorf("parts out of order: %s", l)
					}
				}
				ids = append(ids, v.Info.ID)
			}
			if strings.Join(ids, ",") != strings.Join(tt.lines, ",") {
				t.Errorf("messages %v, want %v", ids, tt.lines)
			}
		})
	}
}

// FuzzExportDocument: any document text is read, or refused with an error, without a panic; what
// is read is one JSON object a line.
func FuzzExportDocument(f *testing.F) {
	f.Add(`{"info":{"id":"ses_1"},"messages":[{"info":{"id":"m","time":{"created":1}},"parts":[{"id":"p"}]}]}`)
	f.Add(`{"info":{"id":"ses_1"},"messages":[{"info":{"time":{"created":"x"}},"parts":[1]}]}`)
	f.Add(`{"info":{"id":"ses_1"},"messages":null}`)
	f.Fuzz(func(t *testing.T, text string) {
		p := filepath.Join(t.TempDir(), "d.json")
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if ExportDocument(p, &b) != nil {
			return
		}
		for _, l := range strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n") {
			if l != "" && !json.Valid([]byte(l)) {
				t.Fatalf("not JSON: %q", l)
			}
		}
	})
}
