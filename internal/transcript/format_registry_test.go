package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Every format the readers know is in the registry, and the registry has no other.
func TestFormatsAreTheRegistry(t *testing.T) {
	known := []Format{FormatOpenAI, FormatAnthropic, FormatCtxc, FormatClaude, FormatCodex, FormatPi,
		FormatCopilot, FormatDroid, FormatGemini, FormatQwen, FormatOpencode,
		FormatAider,
		FormatOpenhands,
		FormatContinue,
		FormatKilo,
		FormatCline,
		FormatGoose,
		FormatNanocoder,
		FormatSWEAgent,
		FormatMiniSWE,
		FormatClineTask, FormatRooCode,
		FormatOmp,
	}
	got := Formats()
	if len(got) != len(known) {
		t.Fatalf("registry %v, readers %v", got, known)
	}
	for i := range known {
		if got[i] != known[i] {
			t.Errorf("registry[%d] = %q, want %q", i, got[i], known[i])
		}
		if f, err := ParseFormat(string(known[i])); err != nil || f != known[i] {
			t.Errorf("ParseFormat(%q) = %q, %v", known[i], f, err)
		}
	}
}

// The agents a new session is written for are those the registry describes as handoff
// targets, in the order handoff names them.
func TestSessionTargetsAreTheHandoffAgents(t *testing.T) {
	var described []Format
	for _, f := range Formats() {
		if f.Agent().Handoff != nil {
			described = append(described, f)
			if _, ok := codeOf(f); !ok {
				t.Errorf("%s: a handoff target without a session writer", f)
			}
		}
	}
	if len(described) != len(SessionTargets) {
		t.Fatalf("session writers for %v, handoff targets in the registry %v", SessionTargets, described)
	}
	want := []Format{FormatClaude, FormatCodex, FormatPi, FormatGemini, FormatQwen, FormatCopilot}
	for i := range want {
		if SessionTargets[i] != want[i] {
			t.Errorf("SessionTargets = %v, want %v", SessionTargets, want)
			break
		}
	}
}

// Every compaction record of the fixtures holds its format's compaction probe, the one rule
// grep lists compactions by (internal/agent).
func TestCompactionRecordsHoldTheProbe(t *testing.T) {
	paths, _ := filepath.Glob("../../testdata/fixtures/*.jsonl")
	seen := map[Format]bool{}
	for _, p := range paths {
		res, err := ScanFile(p, Options{})
		if err != nil {
			continue
		}
		f := res.Stats.Format
		data, _ := os.ReadFile(p)
		for i, line := range bytes.Split(data, []byte("\n")) {
			rec, ok := DecodeRecordTransient(f, line, i+1)
			if !ok || !rec.Compaction {
				continue
			}
			seen[f] = true
			if !bytes.Contains(line, []byte(f.Agent().Probe())) {
				t.Errorf("%s:%d: a %s compaction record without %q", p, i+1, f, f.Agent().Probe())
			}
		}
	}
	if len(seen) < 6 {
		t.Errorf("compactions of %d formats in the fixtures, want the agents'", len(seen))
	}
}

// Each agent of the registry has its reader, decoder and writer here, and each message list
// none (it is read by the generic reader and gets a ctxc marker).
func TestEveryAgentHasItsCode(t *testing.T) {
	for _, f := range Formats() {
		if _, ok := codeOf(f); ok != !f.IsGeneric() {
			t.Errorf("%s: code %v, generic %v", f, ok, f.IsGeneric())
		}
	}
}
