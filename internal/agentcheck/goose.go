package agentcheck

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/tidwall/gjson"

	"github.com/ctxc/ctxc/internal/agent"
)

// Goose is Block's Goose agent (npm @aaif/goose-binary-linux-x64, its command
// goose-binary-linux-x64): run headless (`goose run -t PROMPT --name NAME`, then `--resume` to
// continue that session) with its openai provider against the fake (OPENAI_HOST), the keyring
// and telemetry off, its files in the agent's home (XDG folders). Its store is
// $XDG_DATA_HOME/goose/sessions/sessions.db.
const Goose = agent.Goose

// GooseCmd is the command of Goose's binary package.
const GooseCmd = "goose-binary-linux-x64"

// GooseTool is the tool the fake asks Goose to call: its developer extension's shell.
const GooseTool = "shell"

// GooseSummaryCue is the user text of Goose's request for a summary when it compacts a session
// (the conversation is in that request's system prompt).
const GooseSummaryCue = "Please summarize the conversation history provided in the system prompt."

// GooseContext is the context limit (GOOSE_CONTEXT_LIMIT) of a goose that NewGooseHome is told
// to run with a small window: a reported usage past 80% of it makes goose compact the session
// before its next turn.
const GooseContext = 10000

// NewGooseHome prepares a home for goose under dir; small runs it with a context limit of
// GooseContext.
func NewGooseHome(dir string, small bool) (*AgentHome, error) {
	h, err := newHome(Goose, GooseCmd, dir, GooseTool, map[string]any{"command": "cat notes.txt"}, nil)
	if err != nil {
		return nil, err
	}
	h.env = func(url string) []string {
		env := append(xdgEnv(h.Home), "GOOSE_PROVIDER=openai", "GOOSE_MODEL=fake-model", "OPENAI_HOST="+url,
			"OPENAI_API_KEY=fake", "GOOSE_DISABLE_KEYRING=1", "GOOSE_TELEMETRY_ENABLED=false", "GOOSE_MODE=auto")
		if small {
			env = append(env, fmt.Sprintf("GOOSE_CONTEXT_LIMIT=%d", GooseContext))
		}
		return env
	}
	return h, nil
}

// GooseRun runs one prompt in the session named name, resuming it when resume.
func (h *AgentHome) GooseRun(name, prompt string, resume bool) error {
	args := []string{"run", "--name", name, "-t", prompt}
	if resume {
		args = append(args, "--resume")
	}
	return h.run(args...)
}

// GooseStore is goose's store in the agent's home.
func (h *AgentHome) GooseStore() string {
	return filepath.Join(h.Home, ".local", "share", "goose", "sessions", "sessions.db")
}

// GooseResumeRequest resumes the session named name with Prompt and returns the request of that
// turn.
func (h *AgentHome) GooseResumeRequest(name string) ([]byte, error) {
	if err := h.GooseRun(name, Prompt, true); err != nil {
		return nil, err
	}
	return lastTurn(h.Fake.Requests("/chat/completions"), gooseEndsWithPrompt)
}

// gooseEndsWithPrompt: the conversation ends with a user message whose text begins with Prompt
// (Goose sends the <turn-context> it writes after the prompt in the same message).
func gooseEndsWithPrompt(body []byte) bool {
	msgs := gjson.GetBytes(body, "messages").Array()
	if len(msgs) == 0 {
		return false
	}
	last := msgs[len(msgs)-1]
	return last.Get("role").Str == "user" && strings.HasPrefix(chatText(json.RawMessage(last.Get("content").Raw)), Prompt)
}

// gooseRequestTurns reduces a Chat Completions request of goose: its system prompt and the new
// prompt's message (Prompt and the <turn-context> after it) are left out.
func gooseRequestTurns(body []byte) ([]Turn, error) {
	ms, err := chatMessagesButSystem(body)
	if err != nil {
		return nil, err
	}
	if n := len(ms); n > 0 && ms[n-1].Role == "user" && strings.HasPrefix(chatText(ms[n-1].Content), Prompt) {
		ms = ms[:n-1]
	}
	return joinUserTexts(chatTurns(ms)), nil
}

// joinUserTexts makes the texts of each user turn one text, joined by newlines: Goose sends its
// consecutive user messages (a prompt, the <turn-context> it stores after it) as one, where ctxc
// loads them as the store holds them.
func joinUserTexts(turns []Turn) []Turn {
	for i, t := range turns {
		if t.Role != "user" {
			continue
		}
		var texts, rest []string
		for _, p := range t.Parts {
			if s, ok := strings.CutPrefix(p, "text:"); ok {
				texts = append(texts, s)
			} else {
				rest = append(rest, p)
			}
		}
		if len(texts) > 1 {
			turns[i].Parts = append([]string{"text:" + strings.Join(texts, "\n")}, rest...)
		}
	}
	return turns
}
