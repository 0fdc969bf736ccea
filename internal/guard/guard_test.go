package guard

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/agent"
)

const example = "../../testdata/example/session.jsonl"

func hookInput(path, event, source string) string {
	b, _ := json.Marshal(map[string]string{"session_id": "s1", "transcript_path": path, "hook_event_name": event, "source": source})
	return string(b)
}

// TestClaudeCodeNote: on SessionStart(compact) the note carries the ledger's facts of the
// session, verbatim, framed as ctxc's, within the budget.
func TestClaudeCodeNote(t *testing.T) {
	out, oc := ClaudeCode(context.Background(), strings.NewReader(hookInput(example, "SessionStart", "compact")), Options{Budget: 2000})
	if oc.Action != "note" {
		t.Fatalf("outcome %+v", oc)
	}
	var got struct {
		H struct {
			Event   string `json:"hookEventName"`
			Context string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	note := got.H.Context
	for _, want := range []string{NotePrefix, "not a new message from the user", "Commit it as two commits: TTL first, then the janitor.",
		"/home/dev/kvstore/internal/cache/cache.go", "/home/dev/kvstore/README.md"} {
		if !strings.Contains(note, want) {
			t.Errorf("note lacks %q:\n%s", want, note)
		}
	}
	if got.H.Event != "SessionStart" || oc.Tokens > 2000 || oc.Carried != oc.Facts {
		t.Errorf("event %q, %d tokens, carried %d of %d", got.H.Event, oc.Tokens, oc.Carried, oc.Facts)
	}
	small, oc := ClaudeCode(context.Background(), strings.NewReader(hookInput(example, "SessionStart", "compact")), Options{Budget: 250})
	if oc.Tokens > 250 || oc.Carried == 0 || oc.Carried >= oc.Facts || !strings.Contains(string(small), "User rules") {
		t.Errorf("budget 250: %d tokens, carried %d of %d:\n%s", oc.Tokens, oc.Carried, oc.Facts, small)
	}
}

// TestClaudeCodeNeverBreaks: whatever the input, no output on stdout unless there is a note,
// and a reason for the log; never a panic, never a hang.
func TestClaudeCodeNeverBreaks(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.jsonl") // 1 GB, sparse: NUL bytes, no line end
	if f, err := os.Create(huge); err == nil {
		f.Truncate(1 << 30)
		f.Close()
	}
	writing := filepath.Join(dir, "writing.jsonl") // a line being written: no terminator yet
	data, _ := os.ReadFile(example)
	os.WriteFile(writing, append(data, []byte(`{"type":"user","message":{"role":"user","content":"half`)...), 0o644)
	notJSON := filepath.Join(dir, "text.jsonl")
	os.WriteFile(notJSON, []byte("hello\nworld\n"), 0o644)
	tests := []struct {
		name   string
		in     io.Reader
		action string
	}{
		{"no stdin", nil, "error"},
		{"empty stdin", strings.NewReader(""), "error"},
		{"garbage", strings.NewReader("}{ not json"), "error"},
		{"a JSON array", strings.NewReader("[1,2]"), "error"},
		{"no transcript_path", strings.NewReader(`{"hook_event_name":"SessionStart","source":"compact"}`), "error"},
		{"missing transcript", strings.NewReader(hookInput(filepath.Join(dir, "gone.jsonl"), "SessionStart", "compact")), "error"},
		{"a directory", strings.NewReader(hookInput(dir, "SessionStart", "compact")), "error"},
		{"not a transcript", strings.NewReader(hookInput(notJSON, "SessionStart", "compact")), "error"},
		{"1 GB of NUL", strings.NewReader(hookInput(huge, "SessionStart", "compact")), "error"},
		{"a line being written", strings.NewReader(hookInput(writing, "SessionStart", "compact")), "note"},
		{"startup", strings.NewReader(hookInput(example, "SessionStart", "startup")), "skip"},
		{"PreCompact", strings.NewReader(hookInput(example, "PreCompact", "")), "skip"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, oc := ClaudeCode(context.Background(), tt.in, Options{Timeout: 30 * time.Second})
			if oc.Action != tt.action {
				t.Fatalf("action %q (%s), want %q", oc.Action, oc.Detail, tt.action)
			}
			if tt.action != "note" && len(out) != 0 {
				t.Fatalf("stdout %q, want nothing", out)
			}
			if tt.action == "error" && oc.Detail == "" {
				t.Fatal("an error without a reason for the log")
			}
		})
	}
}

// TestTimeout: work that takes longer than the timeout is given up, with nothing printed.
func TestTimeout(t *testing.T) {
	_, err := withTimeout(context.Background(), 10*time.Millisecond, func() (int, error) {
		time.Sleep(time.Second)
		return 1, nil
	})
	if err == nil || !strings.Contains(err.Error(), "gave up") {
		t.Fatalf("err = %v", err)
	}
	_, err = withTimeout(context.Background(), time.Second, func() (int, error) { panic("boom") })
	if err == nil || !strings.Contains(err.Error(), "internal error") {
		t.Fatalf("a panic gives %v", err)
	}
}

// TestLog: one line per call, under the state directory, with the outcome and its reason.
func TestLog(t *testing.T) {
	dir := t.TempDir()
	getenv := func(k string) string { return map[string]string{"XDG_STATE_HOME": dir, "HOME": "/nowhere"}[k] }
	p := LogPath(getenv)
	if p != filepath.Join(dir, "ctxc", "hooks.log") {
		t.Fatalf("log path %s", p)
	}
	Log(p, time.Unix(0, 0), Outcome{Agent: "claude-code", Input: Input{Event: "SessionStart", Source: "compact", SessionID: "s1"}, Action: "error", Detail: "no hook input on stdin"})
	Log(p, time.Unix(0, 0), Outcome{Agent: "claude-code", Action: "note", Facts: 3, Carried: 3, Tokens: 90})
	data, _ := os.ReadFile(p)
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "session=s1 error: no hook input on stdin") || !strings.Contains(lines[1], "note facts=3 carried=3 tokens=90") {
		t.Fatalf("log:\n%s", data)
	}
	if got := LogPath(func(k string) string { return map[string]string{"HOME": "/home/u"}[k] }); got != "/home/u/.local/state/ctxc/hooks.log" {
		t.Fatalf("default log path %s", got)
	}
}

// TestNoteSurvivesRepeatedCompaction: at the next compaction, after the conversation went on,
// the facts of ctxc's note at the previous one are carried again, though the agent's summary
// (here "OK") kept none of them.
func TestNoteSurvivesRepeatedCompaction(t *testing.T) {
	data, err := os.ReadFile("../../testdata/fixtures/claude-2.1.330-guarded-compact.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Two more records chained to the newest one: the conversation went on after the compaction.
	var leaf string
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r struct{ UUID string }
		if json.Unmarshal([]byte(l), &r) == nil && r.UUID != "" {
			leaf = r.UUID
		}
	}
	more := fmt.Sprintf(`{"type":"user","uuid":"u-next","parentUuid":%q,"sessionId":"s","message":{"role":"user","content":"Now tag the release."}}
{"type":"assistant","uuid":"a-next","parentUuid":"u-next","sessionId":"s","message":{"id":"msg_next","role":"assistant","content":[{"type":"text","text":"Tagged."}]}}
`, leaf)
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, append(data, more...), 0o644)
	out, oc := ClaudeCode(context.Background(), strings.NewReader(hookInput(p, "SessionStart", "compact")), Options{})
	if oc.Action != "note" || oc.Detail != basisLedger {
		t.Fatalf("outcome %+v", oc)
	}
	for _, want := range []string{"Now tag the release.", "Commit it as two commits: TTL first, then the janitor.",
		"/home/dev/kvstore/internal/cache/cache.go", "Don't change the public Store interface beyond that."} {
		if !strings.Contains(string(out), want) {
			t.Errorf("the second note lacks %q, carried by the first:\n%s", want, out)
		}
	}
}

// TestNoteOfWrittenCompaction: when the file ends with the compaction the hook announces (as
// Codex writes it), the note holds exactly what its summary lost.
func TestNoteOfWrittenCompaction(t *testing.T) {
	out, oc := ClaudeCode(context.Background(), strings.NewReader(hookInput("../../testdata/fixtures/claude-2.1.330-manual-compact-hook.jsonl", "SessionStart", "compact")), Options{})
	if oc.Action != "note" || oc.Detail != basisLost || oc.Facts != 11 {
		t.Fatalf("outcome %+v", oc)
	}
	if !strings.Contains(string(out), "Commit it as two commits") {
		t.Fatalf("note %s", out)
	}
}

// TestCodexNoteSkipsWhatSummaryNames: Codex's note holds what its summary lost, matched as people
// write facts: a file the summary names by its name is not repeated, the budget goes to the
// others.
func TestCodexNoteSkipsWhatSummaryNames(t *testing.T) {
	data, err := os.ReadFile("../../testdata/fixtures/codex-0.169-guarded-compact.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	compacted := strings.Join(lines[:27], "") // up to Codex's compacted line: the hook runs then
	const said = `use the information in this summary to assist with your own analysis:\nOK"`
	if strings.Count(compacted, said) != 2 { // the compacted line's message, and its copy in replacement_history
		t.Fatal("the fixture's summary is not where it was")
	}
	note := func(summary string) (string, Outcome) {
		t.Helper()
		p := filepath.Join(t.TempDir(), "rollout.jsonl")
		os.WriteFile(p, []byte(strings.ReplaceAll(compacted, said, strings.Replace(said, "OK", summary, 1))), 0o644)
		out, oc := Codex(context.Background(), strings.NewReader(hookInput(p, "SessionStart", "compact")), Options{})
		return string(out), oc
	}
	out, oc := note("Added a token bucket in limit.go.")
	if oc.Action != "note" || oc.Carried != 1 || !strings.Contains(out, "internal/api/server.go") || strings.Contains(out, "limit.go") {
		t.Errorf("summary naming limit.go: outcome %+v, note %s", oc, out)
	}
	if out, oc := note("Added a token bucket in `internal/api/limit.go`; server.go wires it in."); oc.Action != "skip" || out != "" {
		t.Errorf("summary naming both files: outcome %+v, note %s", oc, out)
	}
}

// The project's "Compact Instructions" section (in the hook input's cwd) names what else the
// note keeps: a command that the ledger does not take by default is carried once it is named.
func TestNoteFollowsProjectInstructions(t *testing.T) {
	const command = "go vet ./... && go test -race ./internal/cache/"
	dir := t.TempDir()
	input := func() string {
		b, _ := json.Marshal(map[string]string{"session_id": "s1", "transcript_path": example, "cwd": dir,
			"hook_event_name": "SessionStart", "source": "compact"})
		return string(b)
	}
	note := func() string {
		out, oc := ClaudeCode(context.Background(), strings.NewReader(input()), Options{Budget: 4000})
		var got struct {
			H struct {
				Context string `json:"additionalContext"`
			} `json:"hookSpecificOutput"`
		}
		if err := json.Unmarshal(out, &got); oc.Action != "note" || err != nil {
			t.Fatalf("outcome %+v, %v", oc, err)
		}
		return got.H.Context
	}
	if strings.Contains(note(), "go vet ./...") {
		t.Fatal("the test tests nothing: the default note carries the command")
	}
	md := "# kvstore\n\n## Compact Instructions\n\nKeep the `" + command + "` command.\n"
	if err := os.WriteFile(filepath.Join(dir, "CLAUDE.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := note(); !strings.Contains(got, command) {
		t.Errorf("the note lacks the command the instructions name:\n%s", got)
	}
}

// ClaudeCode runs one call of Claude Code's hook.
func ClaudeCode(ctx context.Context, in io.Reader, o Options) ([]byte, Outcome) {
	out, oc, _ := Run(ctx, agent.ClaudeCode, in, o)
	return out, oc
}

// Codex runs one call of Codex's hook.
func Codex(ctx context.Context, in io.Reader, o Options) ([]byte, Outcome) {
	out, oc, _ := Run(ctx, agent.Codex, in, o)
	return out, oc
}

// TestHookAgentsAreTheRegistrys: the agents ctxc hook answers are the registry's CompactNote
// and ToolNote agents, and no other name runs.
func TestHookAgentsAreTheRegistrys(t *testing.T) {
	if got := strings.Join(Agents(), " "); got != agent.ClaudeCode+" "+agent.Codex+" "+agent.Opencode+" "+agent.Kilo+" "+agent.Cline {
		t.Errorf("Agents() = %q", got)
	}
	for _, name := range []string{agent.Pi, "bogus", ""} {
		if _, _, ok := Run(context.Background(), name, strings.NewReader("{}"), Options{}); ok {
			t.Errorf("Run(%q) ran", name)
		}
	}
}

// TestOpencodeBeforeAndAfter: ctxc's plugin for opencode sends PreCompact while opencode's
// compaction is pending (its compaction part written, its summary not yet), answered with the
// whole ledger framed for the summarizer, and SessionStart(compact) once the summary is written,
// answered with what the summary and the kept tail lack. Claude Code's PreCompact stays unanswered.
func TestOpencodeBeforeAndAfter(t *testing.T) {
	before := []string{
		`{"info":{"role":"user","time":{"created":1},"id":"msg_1","sessionID":"ses_a"},"parts":[{"type":"text","text":"Look at /srv/app/notes.txt and never push to main.","id":"prt_1"}]}`,
		`{"info":{"role":"assistant","parentID":"msg_1","finish":"tool-calls","time":{"created":2},"id":"msg_2","sessionID":"ses_a"},"parts":[{"type":"tool","tool":"read","callID":"call_1","state":{"status":"completed","input":{"filePath":"/srv/app/notes.txt"},"output":"hello"},"id":"prt_3"}]}`,
		`{"info":{"role":"assistant","parentID":"msg_1","finish":"stop","time":{"created":3},"id":"msg_3","sessionID":"ses_a"},"parts":[{"type":"text","text":"Done.","id":"prt_6"}]}`,
		`{"info":{"role":"user","time":{"created":4},"id":"msg_4","sessionID":"ses_a"},"parts":[{"type":"text","text":"second","id":"prt_7"}]}`,
		`{"info":{"role":"assistant","parentID":"msg_4","finish":"stop","time":{"created":5},"id":"msg_5","sessionID":"ses_a"},"parts":[{"type":"text","text":"OK","id":"prt_9"}]}`,
		`{"info":{"role":"user","time":{"created":6},"id":"msg_6","sessionID":"ses_a"},"parts":[{"type":"compaction","auto":true,"tail_start_id":"msg_4","id":"prt_10"}]}`,
	}
	summary := `{"info":{"role":"assistant","parentID":"msg_6","summary":true,"mode":"compaction","finish":"stop","time":{"created":7},"id":"msg_7","sessionID":"ses_a"},"parts":[{"type":"text","text":"The user asked two questions.","id":"prt_12"}]}`
	dir := t.TempDir()
	pending, done := filepath.Join(dir, "pending.jsonl"), filepath.Join(dir, "done.jsonl")
	os.WriteFile(pending, []byte(strings.Join(before, "\n")+"\n"), 0o644)
	os.WriteFile(done, []byte(strings.Join(append(before, summary), "\n")+"\n"), 0o644)
	// A compaction that replays the user's message after the summary, answered since.
	replayed := filepath.Join(dir, "replayed.jsonl")
	os.WriteFile(replayed, []byte(strings.Join(append(before, summary,
		`{"info":{"role":"user","time":{"created":8},"id":"msg_8","sessionID":"ses_a"},"parts":[{"type":"text","text":"third","synthetic":true,"id":"prt_13"}]}`,
		`{"info":{"role":"assistant","parentID":"msg_8","finish":"stop","time":{"created":9},"id":"msg_9","sessionID":"ses_a"},"parts":[{"type":"text","text":"OK","id":"prt_15"}]}`),
		"\n")+"\n"), 0o644)
	for _, tc := range []struct {
		name, agent, path, event, source, action string
		compacted                                bool
		want, not                                []string
	}{
		{"before the summary", agent.Opencode, pending, "PreCompact", "", "note", false,
			[]string{preFrame, "/srv/app/notes.txt", "never push to main", `"hookEventName":"PreCompact"`}, []string{NotePrefix}},
		{"after the summary", agent.Opencode, done, "SessionStart", "compact", "note", true,
			[]string{NotePrefix, "never push to main"}, []string{preFrame}},
		{"after the summary and a turn since", agent.Opencode, replayed, "SessionStart", "compact", "note", true,
			[]string{NotePrefix, "never push to main"}, []string{preFrame, "third"}},
		{"Claude Code's PreCompact", agent.ClaudeCode, pending, "PreCompact", "", "skip", false, nil, nil},
	} {
		in, _ := json.Marshal(map[string]any{"session_id": "ses_a", "transcript_path": tc.path, "hook_event_name": tc.event,
			"source": tc.source, "compacted": tc.compacted})
		out, oc, _ := Run(context.Background(), tc.agent, strings.NewReader(string(in)), Options{})
		if oc.Action != tc.action {
			t.Errorf("%s: %+v", tc.name, oc)
			continue
		}
		var got map[string]map[string]string
		if len(out) > 0 {
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v: %s", tc.name, err, out)
			}
		}
		text := string(out) + got["hookSpecificOutput"]["additionalContext"]
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: lacks %q:\n%s", tc.name, w, text)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(text, w) {
				t.Errorf("%s: holds %q:\n%s", tc.name, w, text)
			}
		}
	}
}
