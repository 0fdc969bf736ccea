package opencodestore

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// FuzzEncodeMessage feeds encodeMessage what a message and a part row's data can hold. It must
// never panic; what it accepts is one line of one JSON object whose info and part carry the
// row's ids, read last as opencode puts them.
func FuzzEncodeMessage(f *testing.F) {
	f.Add(`{"role":"user","time":{"created":1}}`, `{"type":"text","text":"hi"}`)
	f.Add("{\n\"role\": \"assistant\"\n}", `{}`)
	f.Add(`{"role":"user","id":"other"}`, `[1]`)
	f.Add(`{"role":`, `{"type":"text"}`)
	f.Fuzz(func(t *testing.T, msg, prt string) {
		m := message{id: "msg_1", data: msg, parts: []part{{id: "prt_1", data: prt}}}
		var b bytes.Buffer
		if rerr := encodeMessage(&b, Opencode.line, "ses_1", &m); rerr != nil {
			return
		}
		line := b.Bytes()
		s := string(line)
		if !strings.HasSuffix(s, "\n") || strings.ContainsAny(s[:len(s)-1], "\r\n") {
			t.Fatalf("not one line: %q", s)
		}
		var v struct {
			Info  map[string]json.RawMessage
			Parts []map[string]json.RawMessage
		}
		if err := json.Unmarshal(line, &v); err != nil {
			t.Fatalf("not JSON: %v: %q", err, s)
		}
		if string(v.Info["id"]) != `"msg_1"` || len(v.Parts) != 1 || string(v.Parts[0]["messageID"]) != `"msg_1"` {
			t.Fatalf("ids lost: %q", s)
		}
	})
}
