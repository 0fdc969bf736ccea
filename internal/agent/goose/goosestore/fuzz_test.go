package goosestore

import (
	"database/sql"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzExportRow feeds exportRow what a message row's content and metadata can hold. It must
// never panic; what it accepts is written as one line of one JSON object holding both.
func FuzzExportRow(f *testing.F) {
	f.Add(`[{"type":"text","text":"hi"}]`, `{"agentVisible":true}`)
	f.Add("[\n{\"type\": \"text\"}\n]", ``)
	f.Add(`[{"type":`, `{}`)
	f.Fuzz(func(t *testing.T, content, metadata string) {
		l, err := exportRow(row{rowid: 1, role: "user", content: content, metadata: sql.NullString{String: metadata, Valid: true}})
		if err != nil {
			return
		}
		var b strings.Builder
		if err := writeLine(&b, l); err != nil {
			return // (invalid UTF-8 JSON text is refused by the encoder)
		}
		s := b.String()
		if !strings.HasSuffix(s, "\n") || strings.ContainsAny(s[:len(s)-1], "\r\n") {
			t.Fatalf("not one line: %q", s)
		}
		var v map[string]json.RawMessage
		if err := json.Unmarshal([]byte(s), &v); err != nil || v["content"] == nil {
			t.Fatalf("not JSON with its content: %v: %q", err, s)
		}
	})
}
