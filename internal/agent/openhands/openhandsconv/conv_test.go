package openhandsconv

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestExportPublicConversations: conversations the SDK wrote (testdata/openhands, public) export
// as their header and each event on a line, in index order.
func TestExportPublicConversations(t *testing.T) {
	cases := []struct {
		state, id, cwd string
		events         int
		kinds          string
	}{
		{"../../../../testdata/openhands/conversations/cd94562403b9487ebdd4018e3f531dfd/" + StateFile,
			"cd94562403b9487ebdd4018e3f531dfd", "/workspace/project/software-agent-sdk", 8,
			"SystemPromptEvent MessageEvent ActionEvent ObservationEvent ActionEvent ObservationEvent MessageEvent MessageEvent"},
		{"../../../../testdata/openhands/persistence/00000000000000000000000000000203/" + StateFile,
			"00000000000000000000000000000203", "/workspace/project/software-agent-sdk/.pr/local_plugin_install_test", 5,
			"SystemPromptEvent MessageEvent MessageEvent MessageEvent MessageEvent"},
	}
	for _, c := range cases {
		if !IsConversation(c.state) {
			t.Fatalf("%s: not a conversation", c.state)
		}
		var out bytes.Buffer
		n, err := Export(c.state, &out)
		if err != nil || n != c.events {
			t.Fatalf("%s: %d events, %v", c.state, n, err)
		}
		lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		var h Header
		if err := json.Unmarshal([]byte(lines[0]), &h); err != nil || h.Type != HeaderType || h.SessionID != c.id || h.Cwd != c.cwd || h.Events != c.events {
			t.Errorf("%s: header %+v, %v", c.state, h, err)
		}
		var kinds []string
		for _, l := range lines[1:] {
			var e struct{ Kind string }
			if err := json.Unmarshal([]byte(l), &e); err != nil {
				t.Fatalf("%s: %v: %s", c.state, err, l)
			}
			kinds = append(kinds, e.Kind)
		}
		if got := strings.Join(kinds, " "); got != c.kinds {
			t.Errorf("%s: events %s, want %s", c.state, got, c.kinds)
		}
	}
}

// TestExportOrderAndBadEvents: events by their index (not by name: an index past 99999 has more
// digits), other files left out, a pretty-printed event on one line, an event that is not JSON
// one line of its text.
func TestExportOrderAndBadEvents(t *testing.T) {
	dir := t.TempDir()
	ev := filepath.Join(dir, EventsDir)
	os.MkdirAll(ev, 0o755)
	os.WriteFile(filepath.Join(dir, StateFile), []byte(`{"id":"c1"}`), 0o644)
	files := map[string]string{
		"event-100000-aaaaaaaa.json": `{"kind":"C"}`,
		"event-00002-bbbbbbbb.json":  "{\n  \"kind\": \"B\"\n}",
		"event-00001-cccccccc.json":  "{\"kind\":\n",
		".eventlog.lock":             "",
		"notes.json":                 `{"kind":"X"}`,
	}
	for name, data := range files {
		os.WriteFile(filepath.Join(ev, name), []byte(data), 0o644)
	}
	var out bytes.Buffer
	if _, err := Export(filepath.Join(dir, StateFile), &out); err != nil {
		t.Fatal(err)
	}
	want := `{"type":"openhands","sessionId":"` + filepath.Base(dir) + `","events":3}` + "\n" + `{"kind": ` + "\n" + `{"kind":"B"}` + "\n" + `{"kind":"C"}` + "\n"
	if out.String() != want {
		t.Errorf("export:\n%s\nwant:\n%s", out.String(), want)
	}
	if IsConversation(filepath.Join(ev, "notes.json")) || IsConversation(dir) {
		t.Error("not a conversation's state file, read as one")
	}
}

// FuzzExport: whatever an event file holds, the export is one line per event.
func FuzzExport(f *testing.F) {
	f.Add([]byte(`{"kind":"MessageEvent","llm_message":{"role":"user","content":[]}}`))
	f.Add([]byte("{\r\n\"a\":\n1}\r"))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		os.MkdirAll(filepath.Join(dir, EventsDir), 0o755)
		os.WriteFile(filepath.Join(dir, StateFile), data, 0o644)
		os.WriteFile(filepath.Join(dir, EventsDir, "event-00000-abcdef01.json"), data, 0o644)
		var out bytes.Buffer
		if _, err := Export(filepath.Join(dir, StateFile), &out); err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out.String(), "\n"); n != 2 || !strings.HasSuffix(out.String(), "\n") {
			t.Fatalf("%d lines: %q", n, out.String())
		}
	})
}

// TestStatFollowsTheEvents: a conversation is stated as its export, measured again when its
// events folder changes though base_state.json did not (the SDK writes each event as a file).
func TestStatFollowsTheEvents(t *testing.T) {
	dir := t.TempDir()
	ev := filepath.Join(dir, EventsDir)
	os.MkdirAll(ev, 0o755)
	state := filepath.Join(dir, StateFile)
	os.WriteFile(state, []byte(`{}`), 0o644)
	os.WriteFile(filepath.Join(ev, "event-00000-aaaaaaaa.json"), []byte(`{"kind":"A"}`), 0o644)
	before, err := Files.StatSession(state)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(ev, "event-00001-bbbbbbbb.json"), []byte(`{"kind":"B"}`), 0o644)
	after, err := Files.StatSession(state)
	if err != nil {
		t.Fatal(err)
	}
	f, info, err := Files.OpenSession(state)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	if after.Size() == before.Size() || after.Size() != info.Size() {
		t.Errorf("stated %d, then %d bytes; opened %d", before.Size(), after.Size(), info.Size())
	}
}
