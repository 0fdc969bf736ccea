package clinetask

import (
	"bytes"
	"os"
	"testing"
)

// fixtureTask is a task the Cline CLI 2.18.0 wrote (cmd's TestAgentClineTaskResume, kept with
// CTXC_KEEP_AGENT_SESSIONS): a read_file call, its completion, a resumed turn.
const fixtureTask = "../../../../testdata/cline-task/tasks/1795924009252/" + HistoryFile

// fixtureExport is its export, which the reader's tests read.
const fixtureExport = "../../../../testdata/fixtures/cline-task-2.18-tool-resumed.jsonl"

// TestExportOfTheTaskClineWrote: the export of the task is the fixture the readers read (run
// with CTXC_UPDATE_FIXTURES=1 to write it anew, then read its diff).
func TestExportOfTheTaskClineWrote(t *testing.T) {
	if !IsTask(fixtureTask) || IsRoo(fixtureTask) {
		t.Fatalf("%s is not named a task of Cline", fixtureTask)
	}
	var out bytes.Buffer
	if err := Export(fixtureTask, &out); err != nil {
		t.Fatal(err)
	}
	if os.Getenv("CTXC_UPDATE_FIXTURES") != "" {
		if err := os.WriteFile(fixtureExport, out.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(fixtureExport)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), want) {
		t.Errorf("export of %s differs from %s:\n%s", fixtureTask, fixtureExport, out.Bytes())
	}
}

func TestNamed(t *testing.T) {
	for _, tc := range []struct {
		path  string
		named bool
		roo   bool
	}{
		{"/h/.cline/data/tasks/17/api_conversation_history.json", true, false},
		{"/h/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/17/api_conversation_history.json", true, true},
		{"/h/.config/Code/User/globalStorage/kilocode.kilo-code/tasks/17/api_conversation_history.json", true, false},
		{"/h/tasks/api_conversation_history.json", false, false},
		{"/h/.cline/data/tasks/17/ui_messages.json", false, false},
	} {
		if Named(tc.path) != tc.named || IsRoo(tc.path) != tc.roo {
			t.Errorf("%s: named %v, Roo Code's %v; want %v, %v", tc.path, Named(tc.path), IsRoo(tc.path), tc.named, tc.roo)
		}
	}
}
