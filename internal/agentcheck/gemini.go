package agentcheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/tidwall/gjson"
)

// Gemini is Gemini CLI (npm @google/gemini-cli). It is pointed at the fake with
// GOOGLE_GEMINI_BASE_URL and a GEMINI_API_KEY, the auth type "gemini-api-key" chosen in
// ~/.gemini/settings.json (Gemini CLI refuses the base URL alone in a non-interactive run).
const Gemini = agent.GeminiCLI

// GeminiTool is the tool the fake asks Gemini CLI to call, with its argument.
const GeminiTool = "list_directory"

// NewGeminiHome prepares a home for Gemini CLI under dir.
func NewGeminiHome(dir string) (*AgentHome, error) {
	h, err := newHome(Gemini, "gemini", dir, GeminiTool, map[string]any{"dir_path": "$PROJ"}, func(url string) []string {
		return []string{"GEMINI_API_KEY=fake-key", "GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_CLI_NO_RELAUNCH=true"}
	})
	if err != nil {
		return nil, err
	}
	settings := `{"security":{"auth":{"selectedType":"gemini-api-key"},"folderTrust":{"enabled":false}},` +
		`"general":{"disableAutoUpdate":true,"disableUpdateNag":true},"privacy":{"usageStatisticsEnabled":false},` +
		`"telemetry":{"enabled":false}}`
	if err := os.MkdirAll(filepath.Join(h.Home, ".gemini"), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(h.Home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		return nil, err
	}
	projects, _ := json.Marshal(map[string]any{"projects": map[string]string{h.Proj: "proj"}})
	return h, os.WriteFile(filepath.Join(h.Home, ".gemini", "projects.json"), projects, 0o644)
}

// geminiChats is where Gemini CLI keeps the project's sessions.
func (h *AgentHome) geminiChats() string {
	return filepath.Join(h.Home, ".gemini", "tmp", "proj", "chats")
}

// Prompt runs the agent non-interactively on prompt, resuming session id when it is not "",
// tools allowed without asking.
func (h *AgentHome) Prompt(id, prompt string) error {
	args := []string{"-p", prompt}
	if id != "" {
		args = append([]string{"--resume", id}, args...)
	}
	switch h.Agent {
	case Gemini:
		return h.run(append(args, "--yolo", "-m", "gemini-2.5-flash")...)
	case Qwen:
		return h.run(append(args, "--yolo", "--auth-type", "openai")...)
	case Continue: // the session it continues is the newest one, the home's only one
		return h.run(h.continueArgs(prompt, id != "", "")...)
	}
	return fmt.Errorf("unknown agent %q", h.Agent)
}

// Sessions lists the session files the agent wrote, by name.
func (h *AgentHome) Sessions() []string {
	var pattern string
	switch h.Agent {
	case Gemini:
		pattern = filepath.Join(h.geminiChats(), "session-*.jsonl")
	case Qwen:
		pattern = filepath.Join(h.Home, ".qwen", "projects", "*", "chats", "*.jsonl")
	case Continue:
		return continueSessionFiles(h.continueSessions())
	}
	ms, _ := filepath.Glob(pattern)
	return ms
}

// SessionID is the session id of a session file: its first record's sessionId.
func SessionID(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	first, _, _ := strings.Cut(string(data), "\n")
	id := gjson.Get(first, "sessionId").Str
	if id == "" && strings.TrimSpace(first) == "{" { // one JSON document (Continue CLI's)
		id = gjson.GetBytes(data, "sessionId").Str
	}
	if id == "" {
		return "", fmt.Errorf("%s: no sessionId on the first line", path)
	}
	return id, nil
}

// ResumeRequest places a copy of session where the agent looks for it, resumes it with the prompt
// Prompt and returns the body of the request of that turn.
func (h *AgentHome) ResumeRequest(session string) ([]byte, error) {
	id, err := SessionID(session)
	if err != nil {
		return nil, err
	}
	var dst string
	switch h.Agent {
	case Gemini:
		dst = filepath.Join(h.geminiChats(), "session-2026-01-01T00-00-"+id[:min(8, len(id))]+".jsonl")
	case Qwen:
		dst = filepath.Join(h.qwenChats(), id+".jsonl")
	case Continue:
		dst = filepath.Join(h.continueSessions(), id+".json")
	}
	if err := copyFile(session, dst); err != nil {
		return nil, err
	}
	if h.Agent == Qwen {
		// Qwen Code resumes a session only in the folder its first record names (cwd).
		if err := qwenMoveCwd(dst, h.Proj); err != nil {
			return nil, err
		}
	}
	return h.ResumeByID(id)
}

// ResumeByID resumes the session id the agent finds in its home with the prompt Prompt and
// returns the body of the request of that turn.
func (h *AgentHome) ResumeByID(id string) ([]byte, error) {
	part, ends := ":streamGenerateContent", geminiEndsWithPrompt
	switch h.Agent {
	case Qwen:
		part, ends = "/chat/completions", qwenEndsWithPrompt
	case Continue: // its resume of a given session: `cn --fork ID`
		part, ends = "/chat/completions", continueEndsWithPrompt
		if err := h.run(h.continueArgs(Prompt, false, id)...); err != nil {
			return nil, err
		}
		return lastTurn(h.Fake.Requests(part), ends)
	}
	if err := h.Prompt(id, Prompt); err != nil {
		return nil, err
	}
	return lastTurn(h.Fake.Requests(part), ends)
}

func geminiEndsWithPrompt(body []byte) bool {
	parts := gjson.GetBytes(body, "contents.@reverse.0.parts").Array()
	return len(parts) > 0 && strings.TrimSpace(parts[len(parts)-1].Get("text").Str) == Prompt
}

// geminiID is a call id as Gemini CLI sends it: without the "<tool>__" prefix it adds in its
// files (stripToolCallIdPrefixes).
func geminiID(name, id string) string {
	if name == "" {
		name = "generic_tool"
	}
	return strings.TrimPrefix(id, name+"__")
}

// geminiRequestTurns reduces a Gemini API request ({"contents":[{role,parts}]}): the context
// Gemini CLI injects (<session_context>) is left out; a function response appears once (Gemini
// CLI 0.61 replays a result once per record that holds it: its tool call's result, the user
// message of results, and the copy of that message a later $set holds).
func geminiRequestTurns(body []byte) ([]Turn, error) {
	var req struct {
		Contents []struct {
			Role  string            `json:"role"`
			Parts []json.RawMessage `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	answered := map[string]bool{}
	var out []Turn
	for _, c := range req.Contents {
		role := "user"
		if c.Role == "model" {
			role = "assistant"
		}
		var parts []string
		for _, raw := range c.Parts {
			p := gjson.ParseBytes(raw)
			switch {
			case p.Get("functionCall").Exists():
				parts = append(parts, "call:"+geminiID(p.Get("functionCall.name").Str, p.Get("functionCall.id").Str))
			case p.Get("functionResponse").Exists():
				id := geminiID(p.Get("functionResponse.name").Str, p.Get("functionResponse.id").Str)
				if !answered[id] {
					answered[id] = true
					out = appendTurn(out, Turn{Role: role, Parts: parts})
					parts = nil
					out = append(out, Turn{Role: "tool", Parts: resultParts(id, geminiOutput(p.Get("functionResponse.response")))})
				}
			case p.Get("thought").Bool():
			case p.Get("text").Exists():
				if t := strings.TrimSpace(p.Get("text").Str); t != "" && !strings.HasPrefix(t, "<session_context>") {
					parts = append(parts, "text:"+t)
				}
			}
		}
		out = appendTurn(out, Turn{Role: role, Parts: parts})
	}
	return dropPrompt(out), nil
}

// geminiOutput is the text of a function response as Gemini CLI sends it: its "output" string,
// else its "error", else its JSON.
func geminiOutput(r gjson.Result) string {
	if o := r.Get("output"); o.Type == gjson.String {
		return o.Str
	}
	if e := r.Get("error"); e.Exists() {
		if e.Type == gjson.String {
			return e.Str
		}
		return e.Raw
	}
	return r.Raw
}

// geminiIDs rewrites the call ids of turns reduced from `ctxc load` (which keeps the ids of the
// file) as Gemini CLI sends them.
func geminiIDs(ms []chatMessage, turns []Turn) {
	sent := map[string]string{}
	for _, m := range ms {
		for _, c := range m.ToolCalls {
			sent[c.ID] = geminiID(c.Function.Name, c.ID)
		}
	}
	for _, t := range turns {
		for i, p := range t.Parts {
			for _, kind := range []string{"call:", "result:"} {
				if id, ok := strings.CutPrefix(p, kind); ok {
					if s, ok := sent[id]; ok {
						t.Parts[i] = kind + s
					}
				}
			}
		}
	}
}
