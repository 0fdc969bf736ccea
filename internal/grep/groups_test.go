package grep

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestGroupBreak: with Around, GroupBreak comes between groups of messages that are not next to
// each other, in the history and in the context, and nowhere else; it is no message, and a
// hit's JSON is what it was before the separator had a name.
func TestGroupBreak(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	var b strings.Builder
	for i := 1; i <= 9; i++ {
		word := "plain"
		if i == 2 || i == 3 || i == 8 {
			word = "quokka"
		}
		fmt.Fprintf(&b, `{"role":"user","content":"message %d: %s"}`+"\n", i, word)
	}
	os.WriteFile(p, []byte(b.String()), 0o644)
	for _, opts := range []Options{{Around: 1}, {Around: 1, Context: true}, {Around: 1, Indexed: true}} {
		var got []string
		for _, h := range grepAll(t, p, "quokka", true, false, opts) {
			switch {
			case h.IsBreak():
				got = append(got, "--")
			default:
				got = append(got, fmt.Sprintf("%d:%v", h.Line, h.Match))
			}
		}
		want := []string{"1:false", "2:true", "3:true", "4:false", "--", "7:false", "8:true", "9:false"}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: %v, want %v", opts, got, want)
		}
	}
	for _, h := range grepAll(t, p, "quokka", true, false, Options{Around: 3}) {
		if h.IsBreak() {
			t.Errorf("-C 3: a break in one group")
		}
	}
	if GroupBreak.Match || GroupBreak.Path != "" || !GroupBreak.IsBreak() || (Hit{}).IsBreak() {
		t.Errorf("GroupBreak %+v", GroupBreak)
	}
	h := Hit{Path: "s.jsonl", Line: 2, Role: "user", Index: 1, Match: true}
	if js, _ := json.Marshal(h); string(js) != `{"path":"s.jsonl","line":2,"role":"user","message":1,"match":true}` {
		t.Errorf("a hit's JSON: %s", js)
	}
}
