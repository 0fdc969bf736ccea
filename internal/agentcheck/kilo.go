package agentcheck

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctxc/ctxc/internal/agent"
)

// Kilo is Kilo Code's CLI (npm @kilocode/cli, its binary in @kilocode/cli-linux-x64 and the
// other platform packages), opencode's descendant: it runs as opencode does (NewOpencodeHome),
// its variables named KILO_ where opencode's are OPENCODE_, its configuration in
// KILO_CONFIG_CONTENT. Its store is $XDG_DATA_HOME/kilo/kilo.db, inside the agent's home.
const Kilo = agent.Kilo

// NewKiloHome prepares a home for kilo under dir.
func NewKiloHome(dir string) (*AgentHome, error) {
	h, err := newHome(Kilo, "kilo", dir, OpencodeTool, map[string]any{"filePath": "$NOTES"}, nil)
	if err != nil {
		return nil, err
	}
	h.env = func(url string) []string {
		// (kilo takes its working folder from PWD)
		return append(kiloEnv(h.Home), "PWD="+h.Proj, "KILO_CONFIG_CONTENT="+opencodeConfig(url))
	}
	return h, nil
}

// kiloEnv keeps kilo's files inside home and off the network but for the fake.
func kiloEnv(home string) []string {
	return append(xdgEnv(home),
		"KILO_DISABLE_MODELS_FETCH=1", "KILO_DISABLE_AUTOUPDATE=1", "KILO_DISABLE_DEFAULT_PLUGINS=1",
		"KILO_DISABLE_SHARE=1", "KILO_DISABLE_LSP_DOWNLOAD=1", "KILO_DISABLE_CLAUDE_CODE=1",
		"KILO_DISABLE_SESSION_INGEST=1")
}

// KiloStore is kilo's store in the agent's home.
func (h *AgentHome) KiloStore() string {
	return filepath.Join(h.Home, ".local", "share", "kilo", "kilo.db")
}

// KiloResumeRequest resumes session id with Prompt and returns the request of that turn.
func (h *AgentHome) KiloResumeRequest(id string) ([]byte, error) {
	if err := h.OpencodeRun(id, Prompt); err != nil {
		return nil, err
	}
	return lastTurn(h.Fake.Requests("/chat/completions"), kiloStartsWithPrompt)
}

// kiloStartsWithPrompt: the conversation ends with a user message whose first text is Prompt
// (kilo sends texts of its own after it: its environment's details, a reminder that its agent
// changed).
func kiloStartsWithPrompt(body []byte) bool {
	msgs := gjson.GetBytes(body, "messages").Array()
	if len(msgs) == 0 {
		return false
	}
	last := msgs[len(msgs)-1]
	if last.Get("role").Str != "user" {
		return false
	}
	if c := last.Get("content"); c.Type == gjson.String {
		return strings.TrimSpace(c.Str) == Prompt
	}
	return strings.TrimSpace(last.Get("content.0.text").Str) == Prompt
}

// kiloInjected: the text kilo adds to each user message as it sends it (the message's time and
// folders), which is no part of its store.
func kiloInjected(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "<environment_details>")
}

// kiloRequestTurns reduces a Chat Completions request of kilo: its system prompt, the texts it
// injects, and the new prompt's message (Prompt, and what kilo stored with it) are left out. A
// user message's texts, which kilo sends as parts, are one text, as ctxc writes them.
func kiloRequestTurns(body []byte) ([]Turn, error) {
	var req struct {
		Messages []chatMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var ms []chatMessage
	for _, m := range req.Messages {
		if m.Role == "system" {
			continue
		}
		var blocks []contentBlock
		if m.Role == "user" && json.Unmarshal(m.Content, &blocks) == nil {
			// its texts as ctxc writes a message of several: one string, joined by newlines
			var texts []string
			for _, b := range blocks {
				if b.Type == "text" && !kiloInjected(b.Text) {
					texts = append(texts, b.Text)
				}
			}
			c, err := json.Marshal(strings.Join(texts, "\n"))
			if err != nil {
				return nil, err
			}
			m.Content = c
		}
		ms = append(ms, m)
	}
	if n := len(ms); n > 0 && ms[n-1].Role == "user" && strings.HasPrefix(chatText(ms[n-1].Content), Prompt) {
		ms = ms[:n-1]
	}
	return chatTurns(ms), nil
}
