package transcript

import (
	"github.com/ctxc/ctxc/internal/agent/pi"
	"github.com/ctxc/ctxc/internal/msglist"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/agent"
)

// A conversation with every kind of block a session holds: system text, user text, reasoning,
// a call and its result, an image, an opaque item, and a call left unanswered.
func handoffMessages() []Message {
	return []Message{
		{Role: RoleSystem, Blocks: []Block{{Kind: BlockText, Text: "Be terse."}}},
		{Role: RoleUser, Blocks: []Block{{Kind: BlockText, Text: "Fix main.go"}, {Kind: BlockImage}}},
		{Role: RoleAssistant, Blocks: []Block{{Kind: BlockThinking, Text: "hmm"}, {Kind: BlockText, Text: "Reading it."},
			{Kind: BlockToolCall, ID: "call|x:1", Name: "read", Args: `{"path":"main.go"}`}}},
		{Role: RoleTool, Blocks: []Block{{Kind: BlockToolResult, ID: "call|x:1", Name: "read", Text: "package main", Images: 1}}},
		{Role: RoleAssistant, Blocks: []Block{{Kind: BlockOpaque, Text: `{"type":"reasoning","encrypted_content":"x"}`}}},
		{Role: RoleAssistant, Blocks: []Block{{Kind: BlockToolCall, ID: "c2", Name: "shell", Args: "ls -l"}}},
		{Role: RoleUser, Blocks: []Block{{Kind: BlockText, Text: "Thanks"}}},
		{Role: RoleAssistant, Blocks: []Block{{Kind: BlockToolCall, ID: "c3", Name: "true", Args: "{}"}}},
		{Role: RoleTool, Blocks: []Block{{Kind: BlockToolResult, ID: "c3", Name: "true"}}},
	}
}

// TestRenderSessionMapping: each target gets the messages in order, in its own shapes, under
// fresh ids, and reads back (with its own reader) to the same texts; what it cannot take is
// counted.
func TestRenderSessionMapping(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		to   Format
		want []string // the read-back context: role and text, results as "tool:<text>"
		has  []string // shapes of the target in the file
	}{
		{FormatClaude,
			[]string{"user:Be terse.", "user:Fix main.go", "assistant:Reading it.|call:read", "user|tool:package main\n\n" + ImagesLeftOutNote, "assistant|call:shell", "user|tool:" + msglist.PlaceholderResult, "user:Thanks", "assistant|call:true", "user|tool:"},
			[]string{`"id":"toolu_`, `"type":"tool_use"`, `"tool_use_id":"toolu_`, `"type":"tool_result"`, `"input":{"input":"ls -l"}`, `"cwd":"/w"`}},
		{FormatCodex,
			[]string{"developer:Be terse.", "user:Fix main.go", "assistant:Reading it.|call:read", "tool|tool:package main\n\n" + ImagesLeftOutNote, "assistant|call:shell", "tool|tool:" + msglist.PlaceholderResult, "user:Thanks", "assistant|call:true", "tool|tool:"},
			[]string{`"type":"session_meta"`, `"name":"read","type":"function_call"`, `"call_id":"call_`, `"type":"function_call_output"`, `"cwd":"/w"`}},
		{FormatPi,
			[]string{"user:Be terse.", "user:Fix main.go", "assistant:Reading it.|call:read", "tool|tool:package main\n\n" + ImagesLeftOutNote, "assistant|call:shell", "tool|tool:" + msglist.PlaceholderResult, "user:Thanks", "assistant|call:true", "tool|tool:" + pi.EmptyResult},
			[]string{`"type":"session","version":3`, `"id":"call_`, `"type":"toolCall"`, `"role":"toolResult"`, `"toolName":"read"`, `"cwd":"/w"`}},
		{FormatGemini,
			[]string{"user:Be terse.", "user:Fix main.go", "assistant:Reading it.|call:read", "tool|tool:package main\n\n" + ImagesLeftOutNote, "assistant|call:shell", "tool|tool:" + msglist.PlaceholderResult, "user:Thanks", "assistant|call:true", "tool|tool:"},
			[]string{`"projectHash":"` + agent.GeminiProjectHash("/w") + `"`, `"functionCall":{"args":{"path":"main.go"},"id":"call_`, `"functionResponse":{"id":"call_`, `"name":"read","response":{"output":"package main`, `"type":"gemini"`}},
		{FormatQwen,
			[]string{"user:Be terse.", "user:Fix main.go", "assistant:Reading it.|call:read", "tool|tool:package main\n\n" + ImagesLeftOutNote, "assistant|call:shell", "tool|tool:" + msglist.PlaceholderResult, "user:Thanks", "assistant|call:true", "tool|tool:"},
			[]string{`"type":"tool_result"`, `"functionCall":{"args":{"path":"main.go"},"id":"call_`, `"name":"read","response":{"output":"package main`, `"cwd":"/w"`, `"parentUuid":null`}},
		{FormatCopilot,
			[]string{"user:Be terse.", "user:Fix main.go", "assistant:Reading it.|call:read", "tool|tool:package main\n\n" + ImagesLeftOutNote, "assistant|call:shell", "tool|tool:" + msglist.PlaceholderResult, "user:Thanks", "assistant|call:true", "tool|tool:"},
			[]string{`"type":"session.start"`, `"context":{"cwd":"/w"}`, `"toolRequests":[{"arguments":{"path":"main.go"},"name":"read","toolCallId":"call_`, `"type":"tool.execution_complete"`, `"arguments":{"input":"ls -l"}`}},
	} {
		t.Run(string(tc.to), func(t *testing.T) {
			w, d, err := RenderSession(tc.to, &NewSession{Messages: handoffMessages(), Cwd: "/w", Now: now})
			if err != nil {
				t.Fatal(err)
			}
			if d != (Dropped{Images: 2, Thinking: 1, Opaque: 1}) {
				t.Errorf("dropped %+v, want 2 images, 1 reasoning, 1 opaque", d)
			}
			text := string(w.Data)
			for _, h := range tc.has {
				if !strings.Contains(text, h) {
					t.Errorf("no %s in\n%s", h, text)
				}
			}
			if strings.Contains(text, "call|x:1") || strings.Contains(text, `"c2"`) {
				t.Errorf("a source call id was kept:\n%s", text)
			}
			if w.Session == "" || !strings.Contains(text, w.Session) {
				t.Errorf("session id %q not in the file", w.Session)
			}
			path := filepath.Join(t.TempDir(), "s.jsonl")
			if err := os.WriteFile(path, w.Data, 0o644); err != nil {
				t.Fatal(err)
			}
			res, ms, err := LoadFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stats.Format != tc.to {
				t.Errorf("read back as %s", res.Stats.Format)
			}
			got := readBack(ms)
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("read back:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// readBack is a context as role and text: calls by name, results by text.
func readBack(ms []Message) []string {
	var out []string
	for _, m := range ms {
		var parts []string
		role := string(m.Role)
		if t := m.TextContent(); t != "" {
			parts = append(parts, t)
		}
		for _, b := range m.Blocks {
			switch b.Kind {
			case BlockToolCall:
				parts = append(parts, "call:"+b.Name)
			case BlockToolResult:
				parts = append(parts, "tool:"+b.Text)
			}
		}
		sep := ":"
		if len(parts) > 0 && (strings.HasPrefix(parts[0], "call:") || strings.HasPrefix(parts[0], "tool:")) {
			sep = "|"
		}
		out = append(out, role+sep+strings.Join(parts, "|"))
	}
	return out
}

// TestRenderSessionUnknownTarget: a format no new session is written in is an error naming the
// targets.
func TestRenderSessionUnknownTarget(t *testing.T) {
	_, _, err := RenderSession(FormatDroid, &NewSession{Messages: handoffMessages()})
	if err == nil || !strings.Contains(err.Error(), "claude-code, codex, pi, gemini-cli, qwen-code, copilot") {
		t.Fatalf("err = %v", err)
	}
}

// TestRenderSessionEncryptedSummary: a summary only its provider can read is said to be there,
// as ctxc load says it, in every target.
func TestRenderSessionEncryptedSummary(t *testing.T) {
	ms := []Message{
		{Role: RoleUser, Summary: true, Blocks: []Block{{Kind: BlockOpaque, Text: `{"type":"compaction","encrypted_content":"x"}`}}},
		{Role: RoleUser, Blocks: []Block{{Kind: BlockText, Text: "go on"}}},
	}
	for _, f := range SessionTargets {
		w, d, err := RenderSession(f, &NewSession{Messages: ms, Cwd: "/w"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(w.Data), msglist.OpaqueSummaryNote) || d.Opaque != 1 {
			t.Errorf("%s: no note of the encrypted summary (dropped %+v):\n%s", f, d, w.Data)
		}
	}
}

// TestRenderSessionGeminiCommands: a user message Gemini CLI takes for one of its commands on
// resume (a text starting with "/" or "?") is written, and counted as one the target will not
// send.
func TestRenderSessionGeminiCommands(t *testing.T) {
	ms := []Message{
		{Role: RoleUser, Blocks: []Block{{Kind: BlockText, Text: " /mode"}}},
		{Role: RoleUser, Blocks: []Block{{Kind: BlockText, Text: "?"}}},
		{Role: RoleUser, Blocks: []Block{{Kind: BlockText, Text: "fix a/b.go"}}},
	}
	w, d, err := RenderSession(FormatGemini, &NewSession{Messages: ms, Cwd: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Unsent != 2 || !strings.Contains(d.String(), "2 user message(s) the target takes for its commands") {
		t.Errorf("dropped %+v (%s), want 2 unsent", d, d)
	}
	if !strings.Contains(string(w.Data), `"text":" /mode"`) {
		t.Errorf("the command's text is not written:\n%s", w.Data)
	}
	if _, d, _ := RenderSession(FormatQwen, &NewSession{Messages: ms, Cwd: "/w"}); d.Unsent != 0 {
		t.Errorf("Qwen Code: %d unsent, want 0", d.Unsent)
	}
}
