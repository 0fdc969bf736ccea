package redact

import (
	"encoding/json"
	"testing"
)

// FuzzJSONLine: a valid JSON line stays valid JSON, a second pass finds nothing more, and the
// placeholders' text is never taken for a secret.
func FuzzJSONLine(f *testing.F) {
	for _, p := range planted {
		b, _ := json.Marshal(map[string]string{"text": p.text})
		f.Add(b)
	}
	f.Add([]byte(`{"a":"postgres://u:p@h","b":"password=x","c":"\u0041KIA"}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		out, _ := JSONLine(line)
		if json.Valid(line) && !json.Valid(out) {
			t.Fatalf("valid line made invalid:\n%s\n%s", line, out)
		}
		if again, n := JSONLine(out); n != 0 || string(again) != string(out) {
			t.Fatalf("second pass replaced %d more:\n%s\n%s", n, out, again)
		}
	})
}
