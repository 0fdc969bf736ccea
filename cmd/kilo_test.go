package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/opencode/opencodestore"
)

// TestKiloStoreCommands: a session of Kilo's store (opencode's schema, kilo.db), STORE#SESSION-ID,
// read by the commands as the exported file reads, as the kilo format; found in a folder and as
// search's default root, resumed by `kilo --session`; compact never writes into the store.
func TestKiloStoreCommands(t *testing.T) {
	fixture := "../testdata/fixtures/kilo-7.7-compacted.jsonl"
	data, store := agentDataHome(t, opencodestore.Kilo, fixture)
	name := store + "#ses_a"
	before, err := os.ReadFile(store)
	if err != nil {
		t.Fatal(err)
	}

	code, fromStore, errOut := runCLI(t, t.TempDir(), "load", "-q", name)
	_, fromFile, _ := runCLI(t, t.TempDir(), "load", "-q", fixture)
	if code != 0 || fromStore != fromFile || fromStore == "" {
		t.Errorf("load of the store's session (exit %d, %s):\n%s\nload of the file:\n%s", code, errOut, fromStore, fromFile)
	}
	if st := statsOf(t, data); st.Format != "kilo" || st.Compactions != 1 || st.EffMessages != 4 || st.ToolCalls != 1 {
		t.Errorf("stats of the data folder: %+v", st)
	}
	if code, out, _ := runCLI(t, t.TempDir(), "grep", "Second question", data); code != 0 || !strings.Contains(out, name+":4: user: Second question") {
		t.Errorf("grep (exit %d): %s", code, out)
	}

	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_DATA_HOME", data)
	code, out, errOut := runCLI(t, t.TempDir(), "search", "--db", filepath.Join(t.TempDir(), "idx"), "second")
	if code != 0 || !strings.Contains(out, name) || !strings.Contains(out, "kilo --session ses_a") {
		t.Errorf("search with no PATH (exit %d, %s): %s", code, errOut, out)
	}

	code, _, errOut = runCLI(t, t.TempDir(), "compact", "--provider", "extractive", "--threshold", "1", name)
	if code != 2 || !strings.Contains(errOut, "kilo's SQLite store, which ctxc only reads") {
		t.Errorf("compact in place: exit %d: %s", code, errOut)
	}
	if after, _ := os.ReadFile(store); string(after) != string(before) {
		t.Error("the store changed")
	}
}
