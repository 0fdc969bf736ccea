package memory

import (
	"bytes"
	"strings"
	"testing"
)

// FuzzSection: reading a memory file back never panics; a section ctxc reads back renders to
// what it reads back again, and an update never changes the bytes outside the section.
func FuzzSection(f *testing.F) {
	f.Add([]byte("# Notes\n"))
	f.Add([]byte(StartMarker + "\n### Rules and preferences\n\n- Use pnpm. _(2× in 1 session, last 2026-11-02 09:05; a.jsonl:6, 1)_\n" + EndMarker + "\n"))
	f.Add([]byte("x\n" + StartMarker + "\n### Commands that build and test\n- `` a`b `` _(1× in 1 session; b.jsonl:3)_\n- ~~old~~ superseded by “new” _(1× in 2 sessions; c:1)_\n" + EndMarker + "\ny"))
	f.Add([]byte(EndMarker + "\n" + StartMarker))
	f.Fuzz(func(t *testing.T, data []byte) {
		es, err := Section(data)
		if err != nil {
			if _, uerr := Update(data, Markdown(nil)); uerr == nil {
				t.Fatal("Update wrote over a section Section refused")
			}
			return
		}
		md := Markdown(es)
		back, err := Section(md)
		if err != nil {
			t.Fatalf("rendered section unreadable: %v\n%s", err, md)
		}
		if !bytes.Equal(Markdown(back), md) {
			t.Fatalf("render → read → render differs:\n%s\n---\n%s", md, Markdown(back))
		}
		out, err := Update(data, md)
		if err != nil {
			t.Fatal(err)
		}
		start, end, ok, _ := span(data)
		if ok && (!bytes.HasPrefix(out, data[:start]) || !bytes.HasSuffix(out, data[end:])) {
			t.Fatal("Update changed bytes outside the section")
		}
		if !ok && !bytes.HasPrefix(out, data) {
			t.Fatal("Update changed the file it appended to")
		}
	})
}

// FuzzExtract: what is taken from a user's text or a shell script is taken from it, never made
// up: every rule and decision is a run of the text's words, every command a run of the
// script's words.
func FuzzExtract(f *testing.F) {
	f.Add("Always run the tests with -race. We'll use SQLite because it needs no server.")
	f.Add("cd /x && GOFLAGS=-mod=mod go test ./... -run 'A|B' 2>&1 | tail")
	f.Add("Never\npush to master\n\nuse pnpm; npm test -- -t x")
	f.Fuzz(func(t *testing.T, s string) {
		words := " " + strings.Join(strings.Fields(s), " ") + " "
		for _, ob := range userText(nil, s) {
			if !strings.Contains(words, strings.Join(strings.Fields(strings.ReplaceAll(ob.text, " […] ", " ")), " ")) && !strings.Contains(ob.text, "[…]") {
				t.Fatalf("%s %q is not in %q", ob.kind, ob.text, s)
			}
		}
		for _, c := range buildCommands(s) {
			if len(c) > maxCommand {
				t.Fatalf("command of %d bytes", len(c))
			}
			for _, w := range strings.Fields(c) {
				if !strings.Contains(s, w) {
					t.Fatalf("command %q: %q is not in %q", c, w, s)
				}
			}
		}
	})
}
