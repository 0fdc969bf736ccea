package agentcheck

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/tidwall/gjson"
)

// Kimi is Kimi Code CLI (npm @moonshot-ai/kimi-code, run by the pinned node@ beside it): its
// model is the fake, given by KIMI_MODEL_NAME, KIMI_MODEL_API_KEY, KIMI_MODEL_BASE_URL and
// KIMI_MODEL_PROVIDER_TYPE=openai (Chat Completions); its data is in ~/.kimi-code
// (KIMI_CODE_HOME unset), its sessions in sessions/<workspace>/session_<uuid>/. `kimi -p PROMPT`
// runs a new session headless, `kimi -S ID -p PROMPT` resumes one. After its prompt it sends
// reminders of its own (the date, its permission mode) as user messages, which it keeps in the
// log; a context that reached its compaction threshold (a window of KIMI_MODEL_MAX_CONTEXT_SIZE
// tokens near the usage the fake reports) is compacted before the next step: KimiSummaryCue.
const Kimi = agent.KimiCode

// KimiTool is the tool the fake asks Kimi Code CLI to call.
const KimiTool = "Read"

// KimiSummaryCue is in Kimi Code CLI's request for its compaction summary.
const KimiSummaryCue = "Create a handoff summary for the"

// KimiWindow is the context window KimiCompactWindow gives the fake model: the fake's usage of
// KimiCompactUsage then is past its compaction threshold (85%).
const (
	KimiWindow       = 100_000
	KimiCompactUsage = 95_000
)

func init() { requestTurns[Kimi] = kimiRequestTurns }

// NewKimiHome prepares a home for Kimi Code CLI under dir; window, when not 0, is the fake
// model's context window (else Kimi's default, 262,144 tokens).
func NewKimiHome(dir string, window int) (*AgentHome, error) {
	h, err := newHome(Kimi, "kimi", dir, KimiTool, map[string]any{"path": "notes.txt"}, nil)
	if err != nil {
		return nil, err
	}
	h.Fake.AddSummaryCue(KimiSummaryCue)
	// (It needs Node >= 22.19: the pinned node@ beside it, first on PATH.)
	bin, _ := MoreBin("kimi")
	h.env = func(url string) []string {
		env := []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"),
			"KIMI_MODEL_NAME=fake-model", "KIMI_MODEL_API_KEY=fake-key", "KIMI_MODEL_PROVIDER_TYPE=openai",
			"KIMI_MODEL_BASE_URL=" + url + "/v1"}
		if window > 0 {
			env = append(env, "KIMI_MODEL_MAX_CONTEXT_SIZE="+strconv.Itoa(window))
		}
		return env
	}
	return h, nil
}

// KimiSessions are the main agents' logs of Kimi Code CLI's sessions, by name.
func (h *AgentHome) KimiSessions() []string {
	matches, _ := filepath.Glob(filepath.Join(h.Home, ".kimi-code", "sessions", "*", "session_*", "agents", "main", "wire.jsonl"))
	sort.Strings(matches)
	return matches
}

// KimiSessionID is the id of the session whose log is wire (its folder's name).
func KimiSessionID(wire string) string {
	return filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(wire))))
}

// KimiNew runs a new session on prompt.
func (h *AgentHome) KimiNew(prompt string) error {
	return h.kimiRun("-p", prompt)
}

// KimiPrompt resumes session id with prompt.
func (h *AgentHome) KimiPrompt(id, prompt string) error {
	return h.kimiRun("-S", id, "-p", prompt)
}

// kimiRun runs kimi with KIMI_CODE_HOME unset (an empty one makes it keep its data in the
// working folder).
func (h *AgentHome) kimiRun(args ...string) error {
	bin, _ := MoreBin(h.cmd)
	return h.runCmd("env", append([]string{"-u", "KIMI_CODE_HOME", filepath.Join(bin, h.cmd)}, args...)...)
}

// KimiResume resumes session id with Prompt and returns the request of that turn.
func (h *AgentHome) KimiResume(id string) ([]byte, error) {
	if err := h.KimiPrompt(id, Prompt); err != nil {
		return nil, err
	}
	return lastTurn(h.Fake.Requests("/chat/completions"), kimiEndsWithPrompt)
}

// kimiEndsWithPrompt: the request's last message that is not a reminder is the prompt Prompt.
func kimiEndsWithPrompt(body []byte) bool {
	msgs := gjson.GetBytes(body, "messages").Array()
	for i := len(msgs) - 1; i >= 0; i-- {
		m := msgs[i]
		text := m.Get("content").Str
		if m.Get("role").Str == "user" && m.Get("content").Type == gjson.String && reminderOnly(text) {
			continue
		}
		return m.Get("role").Str == "user" && strings.TrimSpace(text) == Prompt
	}
	return false
}

// kimiRequestTurns reduces a Chat Completions request of Kimi Code CLI: its system prompt is left
// out, and the new prompt with the reminders it sent after it (which are not in the log before
// the resume).
func kimiRequestTurns(body []byte) ([]Turn, error) {
	ms, err := chatMessagesButSystem(body)
	if err != nil {
		return nil, err
	}
	turns := chatTurns(ms)
	n := len(turns)
	if n == 0 || turns[n-1].Role != "user" {
		return turns, nil
	}
	parts := turns[n-1].Parts
	for k := len(parts) - 1; k >= 0; k-- {
		if parts[k] == "text:"+Prompt {
			parts = parts[:k]
			break
		}
	}
	if len(parts) == 0 {
		return turns[:n-1], nil
	}
	turns[n-1].Parts = parts
	return turns, nil
}
