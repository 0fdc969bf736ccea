package storefiles

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

func TestStartsObject(t *testing.T) {
	for _, tc := range []struct {
		head string
		want bool
	}{
		{`{"id":"x"}`, true},
		{"\xef\xbb\xbf{\n  \"id\": 1}", true},
		{`{ "history": []}`, true},
		{`{"sessionId":"x"}`, false}, // (Continue CLI's, beside a sessions.json too)
		{`["id"]`, false},
		{``, false},
		{`{`, false},
	} {
		if got := StartsObject([]byte(tc.head), `"id"`, `"history"`); got != tc.want {
			t.Errorf("StartsObject(%q) = %v", tc.head, got)
		}
	}
}

func TestReadObjectAndLines(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct{ text, err string }{
		{`{"messages":[{"a": 1}, "x"]`, "not a JSON document"},
		{`[1]`, "not a JSON object"},
		{`{"messages":{"a":1}}`, `"messages" is not an array`},
	} {
		doc, err := ReadObject(write("d.json", tc.text))
		if err == nil {
			_, err = ArrayOf(doc.Get("messages"), "messages")
		}
		if err == nil || err.Error() != tc.err {
			t.Errorf("%s: error %v, want %q", tc.text, err, tc.err)
		}
	}
	doc, err := ReadObject(write("d.json", "{\"messages\": [ {\"a\" : \"<b>\"},\n 2 ]}"))
	if err != nil {
		t.Fatal(err)
	}
	list, err := ArrayOf(doc.Get("messages"), "messages")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := WriteLines(&out, map[string]any{"type": "h", "n": len(list)}, list, "message"); err != nil {
		t.Fatal(err)
	}
	if want := "{\"n\":2,\"type\":\"h\"}\n{\"a\":\"<b>\"}\n2\n"; out.String() != want {
		t.Errorf("export %q, want %q", out.String(), want)
	}
	if none, err := ArrayOf(doc.Get("absent"), "absent"); err != nil || len(none) != 0 {
		t.Errorf("an absent list: %v, %v", none, err)
	}
	err = WriteLines(&out, nil, []gjson.Result{{Raw: "{"}}, "message")
	if err == nil || !strings.HasPrefix(err.Error(), "message 1:") {
		t.Errorf("a bad item: %v", err)
	}
	if SniffFile(dir, 8, func([]byte) bool { return true }) {
		t.Error("a folder sniffed as a document")
	}
}
