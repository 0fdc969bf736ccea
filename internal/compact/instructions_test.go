package compact

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSection(t *testing.T) {
	tests := []struct {
		name, md string
		want     string
		ok       bool
	}{
		{"level 2 up to the next level 2", "# Project\nintro\n## Compact Instructions\nKeep `make check`.\n### Detail\nand docs/a.md\n## Style\ntabs\n", "Keep `make check`.\n### Detail\nand docs/a.md", true},
		{"level 1 up to the next level 1", "# compact instructions\nkeep all\n## sub\nmore\n# Other\nx\n", "keep all\n## sub\nmore", true},
		{"level 3 ends at a level 2", "## Agents\n### Compact Instructions ###\nfocus on the API\n## Next\nx\n", "focus on the API", true},
		{"section at the end", "# Notes\nx\n\n#### COMPACT INSTRUCTIONS\n\nKeep errors.\n", "Keep errors.", true},
		{"no section", "# Notes\nCompact Instructions are not a heading here\n", "", false},
		{"a heading in a code block is not one", "## Compact Instructions\nkeep\n```\n## not a heading\n```\nstill in\n## End\n", "keep\n```\n## not a heading\n```\nstill in", true},
		{"a heading needs a space after its marks", "##Compact Instructions\nx\n", "", false},
		{"an empty section", "## Compact Instructions\n## Next\n", "", true},
		{"CRLF lines", "## Compact Instructions\r\nkeep\r\n## Next\r\n", "keep", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Section(tc.md, InstructionsHeading)
			if got != tc.want || ok != tc.ok {
				t.Errorf("Section = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// CLAUDE.md comes before AGENTS.md, a file without the section is passed over, and a folder
// without either has no instructions.
func TestProjectInstructions(t *testing.T) {
	dir := t.TempDir()
	if text, file, err := ProjectInstructions(dir); text != "" || file != "" || err != nil {
		t.Fatalf("empty folder: %q %q %v", text, file, err)
	}
	write := func(name, body string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("AGENTS.md", "# Compact Instructions\nfrom agents\n")
	write("CLAUDE.md", "# Rules\nno section\n")
	text, file, err := ProjectInstructions(dir)
	if text != "from agents" || file != filepath.Join(dir, "AGENTS.md") || err != nil {
		t.Errorf("got %q %q %v, want AGENTS.md's section", text, file, err)
	}
	write("CLAUDE.md", "## Compact Instructions\nfrom claude\n")
	if text, file, _ = ProjectInstructions(dir); text != "from claude" || file != filepath.Join(dir, "CLAUDE.md") {
		t.Errorf("got %q %q, want CLAUDE.md's section", text, file)
	}
	if text, _, err = ProjectInstructions(filepath.Join(dir, "gone")); text != "" || err != nil {
		t.Errorf("a folder that is gone: %q %v", text, err)
	}
}

// instructedSession is a session whose middle names a file and a command only inside a long
// tool output: facts neither the ledger nor the extractive summarizer takes by default.
func instructedSession() string {
	lines := strings.SplitAfter(openAISession(40), "\n")
	filler := strings.Repeat("grep: no match in this file; ", 80)
	aside := []string{
		`{"role":"assistant","content":"Searching.","tool_calls":[{"id":"call_x","type":"function","function":{"name":"bash","arguments":"{\"command\":\"grep -rn sketch .\"}"}}]}` + "\n",
		`{"role":"tool","tool_call_id":"call_x","content":"` + filler + `docs/DESIGN-notes.md:3: the sketch; Makefile:9: make release-check && git tag; ` + filler + `"}` + "\n",
	}
	return strings.Join(slices.Concat(lines[:20], aside, lines[20:]), "")
}

// The extractive compaction keeps what the instructions name and the middle holds (a file only
// mentioned, a command only in a tool's output), and without the instructions it does not.
func TestInstructionsKeepNamedFacts(t *testing.T) {
	const file, command = "docs/DESIGN-notes.md", "make release-check"
	compacted := func(instructions string) string {
		p := writeOld(t, "s.jsonl", instructedSession())
		o := baseOptions()
		o.Instructions = instructions
		out, err := File(context.Background(), p, o)
		if err != nil || out.Status != StatusCompacted {
			t.Fatalf("compact: %v %+v", err, out)
		}
		var b strings.Builder
		for _, m := range load(t, p) {
			b.WriteString(m.TextContent())
		}
		return b.String()
	}
	without := compacted("")
	if strings.Contains(without, file) || strings.Contains(without, command) {
		t.Fatalf("the session does not test anything: the default compaction keeps %q or %q", file, command)
	}
	with := compacted("Keep docs/design-notes.md and the `make release-check` command; drop `make deploy`.")
	for _, want := range []string{file, command} {
		if !strings.Contains(with, want) {
			t.Errorf("the compacted context lacks %q", want)
		}
	}
	if strings.Contains(with, "make deploy") {
		t.Error("a term the conversation never said was added")
	}
}

// pi's /compact sends what the user typed after the command as custom_instructions: ctxc
// summarize obeys them as it obeys --instructions.
func TestSummarizeRequestObeysCustomInstructions(t *testing.T) {
	filler := strings.Repeat("grep: no match in this file; ", 80)
	msgs := []json.RawMessage{
		json.RawMessage(`{"role":"user","content":[{"type":"text","text":"Find the sketch."}],"timestamp":1}`),
		json.RawMessage(`{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"` + filler + `docs/DESIGN-notes.md:3: sketch; ` + filler + `"}],"isError":false,"timestamp":2}`),
		json.RawMessage(`{"role":"user","content":[{"type":"text","text":"Thanks, go on."}],"timestamp":3}`),
	}
	summary := func(custom string) string {
		resp, err := Summarize(context.Background(), SummaryRequest{Agent: "pi", Messages: msgs, CustomInstructions: custom}, Options{Target: 400})
		if err != nil {
			t.Fatal(err)
		}
		return resp.Summary
	}
	if strings.Contains(summary(""), "docs/DESIGN-notes.md") {
		t.Fatal("the request does not test anything: the default summary keeps the file")
	}
	if got := summary("Keep docs/design-notes.md."); !strings.Contains(got, "docs/DESIGN-notes.md") {
		t.Errorf("the summary lacks the file the instructions name:\n%s", got)
	}
}
