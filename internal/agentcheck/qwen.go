package agentcheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/msglist"
	"github.com/tidwall/gjson"
)

// Qwen is Qwen Code (npm @qwen-code/qwen-code), a fork of Gemini CLI that speaks OpenAI Chat
// Completions: it is pointed at the fake with OPENAI_BASE_URL, OPENAI_API_KEY and OPENAI_MODEL
// and the flag --auth-type openai.
const Qwen = agent.QwenCode

// QwenTool is the tool the fake asks Qwen Code to call.
const QwenTool = "read_file"

// NewQwenHome prepares a home for Qwen Code under dir.
func NewQwenHome(dir string) (*AgentHome, error) {
	return newHome(Qwen, "qwen", dir, QwenTool, map[string]any{"file_path": "$NOTES"}, func(url string) []string {
		return []string{"OPENAI_API_KEY=fake-key", "OPENAI_BASE_URL=" + url + "/v1", "OPENAI_MODEL=fake-model",
			"QWEN_CODE_SUPPRESS_YOLO_WARNING=1"}
	})
}

// qwenChats is where Qwen Code keeps the project's sessions: ~/.qwen/projects/<cwd with every
// character but letters and digits made "-">/chats.
func (h *AgentHome) qwenChats() string {
	return filepath.Join(h.Home, ".qwen", "projects", regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(h.Proj, "-"), "chats")
}

func qwenEndsWithPrompt(body []byte) bool {
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
	parts := last.Get("content").Array()
	return len(parts) > 0 && strings.TrimSpace(parts[len(parts)-1].Get("text").Str) == Prompt
}

// qwenInjected: the text parts Qwen Code adds to user messages on its own (the environment,
// skills and tools it lists, the date), which are not in the session file's messages.
func qwenInjected(text string) bool {
	return strings.HasPrefix(strings.TrimSpace(text), "<system-reminder>")
}

// qwenRequestTurns reduces a Chat Completions request of Qwen Code: its system prompt and the
// parts it injects are left out. Qwen Code joins adjacent user contents into one message of
// several parts: each text part is a part of the turn (as ctxc's messages are once merged).
func qwenRequestTurns(body []byte) ([]Turn, error) {
	var req struct {
		Messages []chatMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	ms := req.Messages[:0]
	for _, m := range req.Messages {
		if m.Role == "system" {
			continue
		}
		m.Content = withoutInjected(m.Content)
		ms = append(ms, m)
	}
	var out []Turn
	for _, m := range ms {
		var blocks []contentBlock
		if m.Role != "user" || json.Unmarshal(m.Content, &blocks) != nil {
			for _, t := range chatTurns([]chatMessage{m}) {
				out = appendTurn(out, t)
			}
			continue
		}
		var parts []string
		for _, b := range blocks {
			if t := strings.TrimSpace(b.Text); b.Type == "text" && t != "" {
				parts = append(parts, "text:"+t)
			}
		}
		out = appendTurn(out, Turn{Role: "user", Parts: parts})
	}
	return dropPrompt(qwenUnrecorded(out)), nil
}

// qwenUnrecordedNote opens the result Qwen Code sends, on resume, for a call its session holds
// without a result (its own compression kept the call and not the result).
const qwenUnrecordedNote = "Tool execution result was not recorded"

// qwenUnrecorded compares Qwen Code's note for a call without a recorded result as ctxc's
// placeholder: both say no result was recorded, in their own words (docs/formats.md, Qwen Code).
func qwenUnrecorded(turns []Turn) []Turn {
	for _, t := range turns {
		for i, p := range t.Parts {
			if strings.HasPrefix(p, "output:"+qwenUnrecordedNote) {
				t.Parts[i] = "output:" + msglist.PlaceholderResult
			}
		}
	}
	return turns
}

// withoutInjected drops Qwen Code's injected text parts from a content.
func withoutInjected(c json.RawMessage) json.RawMessage {
	var blocks []map[string]any
	if json.Unmarshal(c, &blocks) != nil {
		return c
	}
	kept := blocks[:0]
	for _, b := range blocks {
		if t, ok := b["text"].(string); ok && qwenInjected(t) {
			continue
		}
		kept = append(kept, b)
	}
	out, _ := json.Marshal(kept)
	return out
}

// qwenMoveCwd rewrites the "cwd" of the records of a session copy to proj: what Qwen Code
// checks before it resumes a session there (nothing of the conversation).
func qwenMoveCwd(path, proj string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	old := gjson.GetBytes(data, "cwd").Str
	if old == "" {
		return nil
	}
	from, _ := json.Marshal(old)
	to, _ := json.Marshal(proj)
	data = []byte(strings.ReplaceAll(string(data), `"cwd":`+string(from), `"cwd":`+string(to)))
	return os.WriteFile(path, data, 0o644)
}
