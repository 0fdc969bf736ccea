package cmd

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agentcheck"
	"github.com/ctxc/ctxc/internal/cmdutil"
	"github.com/ctxc/ctxc/internal/transcript"
)

// TestAgentResumesRepair: a session whose calls and results do not pair up (hand-made fixtures
// in testdata/lint) is repaired by `ctxc repair`; the real agent then resumes it with a request
// an API accepts (every tool call answered right after it, by a result from the file, not one
// the agent made up), `ctxc lint` finds nothing, and `ctxc load` agrees with the agent.
func TestAgentResumesRepair(t *testing.T) {
	resume := agentTools(t)
	cases := map[string]string{
		"claude-open-call":    agentcheck.ClaudeCode,
		"claude-late-result":  agentcheck.ClaudeCode,
		"codex-open-call":     agentcheck.Codex,
		"codex-orphan-result": agentcheck.Codex,
		"pi-open-call":        agentcheck.Pi,
	}
	for name, agent := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(filepath.Join("..", "testdata", "lint", name+".jsonl"))
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			p := filepath.Join(dir, name+".jsonl")
			os.WriteFile(p, data, 0o644)
			if code, _, _ := runCLI(t, dir, "lint", p); code != cmdutil.ExitFailure {
				t.Fatalf("lint before repair: exit %d, want 1", code)
			}
			if code, _, errOut := runCLI(t, dir, "repair", p); code != 0 {
				t.Fatalf("repair: exit %d: %s", code, errOut)
			}
			if code, out, _ := runCLI(t, dir, "lint", p); code != 0 {
				t.Fatalf("lint after repair: exit %d: %s", code, out)
			}
			var body []byte
			withAgentSlot(func() { body, err = agentcheck.Resume(resume, agent, p) })
			if err != nil {
				t.Fatal(err)
			}
			if msg := apiAccepts(agent, body); msg != "" {
				t.Errorf("%s's request after repair: %s\n%s", agent, msg, body)
			}
			got, err := agentcheck.FromRequest(agent, body)
			if err != nil {
				t.Fatal(err)
			}
			if diff := agentcheck.Compare(agent, loadAs(t, agent, p), got); diff != "" {
				t.Errorf("ctxc load disagrees with %s after repair:\n%s", agent, diff)
			}
		})
	}
}

// apiAccepts checks the pairing rules of the API the agent calls ("" when they hold), and that
// the agent did not have to make up a result itself.
func apiAccepts(agent string, body []byte) string {
	for _, made := range []string{"Tool result missing due to internal error", `"output":"aborted"`, "No result provided"} {
		if strings.Contains(strings.ReplaceAll(string(body), `": "`, `":"`), made) {
			return "the agent made up a result: " + made
		}
	}
	if !strings.Contains(string(body), transcript.RepairResultText) && !strings.Contains(string(body), "a.txt") {
		return "neither the repair's result nor the moved result is in the request"
	}
	switch agent {
	case agentcheck.ClaudeCode:
		var req struct {
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return err.Error()
		}
		blocks := func(c json.RawMessage) []map[string]any {
			var bs []map[string]any
			json.Unmarshal(c, &bs)
			return bs
		}
		for i, m := range req.Messages {
			var want []string
			if m.Role == "assistant" {
				for _, b := range blocks(m.Content) {
					if b["type"] == "tool_use" {
						want = append(want, fmt.Sprint(b["id"]))
					}
				}
			}
			if len(want) == 0 {
				continue
			}
			if i+1 >= len(req.Messages) || req.Messages[i+1].Role != "user" {
				return fmt.Sprintf("tool_use %v not followed by a user message", want)
			}
			have := map[string]bool{}
			for _, b := range blocks(req.Messages[i+1].Content) {
				if b["type"] == "tool_result" {
					have[fmt.Sprint(b["tool_use_id"])] = true
				}
			}
			for _, id := range want {
				if !have[id] {
					return fmt.Sprintf("tool_use %s has no tool_result in the next message", id)
				}
			}
		}
	case agentcheck.Codex:
		var req struct {
			Input []map[string]any `json:"input"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return err.Error()
		}
		open := map[string]bool{}
		for _, it := range req.Input {
			typ := fmt.Sprint(it["type"])
			switch {
			case strings.HasSuffix(typ, "_call") && typ != "web_search_call":
				open[fmt.Sprint(it["call_id"])] = true
			case strings.HasSuffix(typ, "_output"):
				if !open[fmt.Sprint(it["call_id"])] {
					return fmt.Sprintf("output for %v without an open call", it["call_id"])
				}
				delete(open, fmt.Sprint(it["call_id"]))
			case typ == "message" && len(open) > 0:
				return fmt.Sprintf("calls %v not answered before the next message", open)
			}
		}
	case agentcheck.Pi:
		var req struct {
			Messages []struct {
				Role      string `json:"role"`
				ToolCalls []struct {
					ID string `json:"id"`
				} `json:"tool_calls"`
				ToolCallID string `json:"tool_call_id"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return err.Error()
		}
		open := map[string]bool{}
		for _, m := range req.Messages {
			switch {
			case m.Role == "tool":
				if !open[m.ToolCallID] {
					return fmt.Sprintf("tool message for %s without an open call", m.ToolCallID)
				}
				delete(open, m.ToolCallID)
			case len(open) > 0:
				return fmt.Sprintf("calls %v not answered before the next message", open)
			}
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
		}
	}
	return ""
}
