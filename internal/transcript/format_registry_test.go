package transcript

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Every agent code is a format of the registry, each once; every format of the registry has
// agent code or is a message list (the generic reader's); each parses as --format.
func TestFormatsAreTheRegistry(t *testing.T) {
	coded := map[Format]bool{}
	for _, c := range agentCodes {
		if c.format.Agent().Name == "" {
			t.Errorf("agent code for %q, which the registry does not name", c.format)
		}
		if coded[c.format] {
			t.Errorf("two agent codes for %q", c.format)
		}
		coded[c.format] = true
	}
	for _, f := range Formats() {
		if !coded[f] && !f.IsGeneric() {
			t.Errorf("%q: in the registry, neither a message list nor an agent's code", f)
		}
		if got, err := ParseFormat(string(f)); err != nil || got != f {
			t.Errorf("ParseFormat(%q) = %q, %v", f, got, err)
		}
	}
}

// No line type is named by two formats: detection would tell such a line by the list's order.
func TestLineTypesAreDistinct(t *testing.T) {
	seen := map[string]Format{}
	for _, c := range agentCodes {
		for _, lt := range c.lines {
			if f, ok := seen[lt.Type]; ok {
				t.Errorf("line type %q named by %s and %s", lt.Type, f, c.format)
			}
			seen[lt.Type] = c.format
		}
	}
	if len(lineTypes()) != len(seen) {
		t.Errorf("%d line types looked up, %d named", len(lineTypes()), len(seen))
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
