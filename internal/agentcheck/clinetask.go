package agentcheck

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
)

// ClineTask is the Cline CLI 2.x (npm cline@2.18.0, pinned as the command cline2), which runs
// the core of Cline's VS Code extension and keeps its tasks as the extension does:
// ~/.cline/data/tasks/<id>/api_conversation_history.json. It runs offline against the fake as
// its "openai" provider (OpenAI Compatible), configured by `cline auth` in
// ~/.cline/data/globalState.json and secrets.json, with the model id "gpt-5": a model of the
// family Cline declares native tools to (for others it writes its tool calls as XML in text).
// Its auto-update is off (CLINE_NO_AUTO_UPDATE=1: it would install the newest cline globally).
// A task is a headless run, `cline task -y --json PROMPT`; `cline task -T ID -y --json PROMPT`
// resumes one.
const ClineTask = agent.ClineTask

// ClineTaskTool is the tool the fake asks Cline 2.x to call; ClineTaskDone the tool it calls in
// place of a text answer (Cline 2.x takes none: a turn ends with attempt_completion).
const (
	ClineTaskTool = "read_file"
	ClineTaskDone = "attempt_completion"
)

// clineResumption opens the texts Cline 2.x adds to the message that resumes a task.
const clineResumption = "[TASK RESUMPTION]"

// NewClineTaskHome prepares a home for Cline 2.x under dir and points it at the fake.
func NewClineTaskHome(dir string) (*AgentHome, error) {
	h, err := newHome(ClineTask, "cline2", dir, ClineTaskTool, map[string]any{"path": "notes.txt"}, nil)
	if err != nil {
		return nil, err
	}
	h.Fake.Done = ClineTaskDone
	h.env = func(string) []string { return []string{"CLINE_NO_AUTO_UPDATE=1"} }
	return h, h.run("auth", "-p", "openai", "-k", "fake-key", "-m", "gpt-5", "-b", h.Fake.URL+"/v1")
}

// ClineTaskRun runs a new task on prompt, headless, its tools approved.
func (h *AgentHome) ClineTaskRun(prompt string) error {
	return h.run("task", "-y", "--json", prompt)
}

// ClineTasks are the ids of Cline 2.x's tasks.
func (h *AgentHome) ClineTasks() []string {
	entries, _ := os.ReadDir(filepath.Join(h.Home, ".cline", "data", "tasks"))
	var out []string
	for _, e := range entries {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// ClineTaskHistory is the history file of task id.
func (h *AgentHome) ClineTaskHistory(id string) string {
	return filepath.Join(h.Home, ".cline", "data", "tasks", id, "api_conversation_history.json")
}

// ClineTaskResume resumes task id with Prompt and returns the request of that turn.
//
// Cline 2.x answers its own question "resume the task?" with the prompt 100 ms after it loaded
// the task: when the question comes later (a slow machine), the answer is lost and the task
// waits. Each try is then bounded (-t) and tried again: a try that sent nothing changed no
// message of the task (the question it added is dropped when a task is loaded).
func (h *AgentHome) ClineTaskResume(id string) ([]byte, error) {
	var err error
	for range clineTaskResumeTries {
		before := len(h.Fake.Requests("/chat/completions"))
		err = h.run("task", "-T", id, "-y", "--json", "-t", clineTaskResumeSeconds, Prompt)
		reqs := h.Fake.Requests("/chat/completions")[before:]
		if body, lerr := lastTurn(reqs, clineTaskEndsWithPrompt); lerr == nil {
			return body, nil
		}
	}
	return nil, fmt.Errorf("cline2 never sent the resumed turn in %d tries: %v", clineTaskResumeTries, err)
}

// How often, and how long each time, ClineTaskResume tries.
const (
	clineTaskResumeTries   = 3
	clineTaskResumeSeconds = "90"
)

// clineTaskEndsWithPrompt: the request holds the prompt as Cline 2.x sends a resumed task's
// new instructions.
func clineTaskEndsWithPrompt(b []byte) bool {
	return strings.Contains(string(b), "<user_message>\\n"+Prompt+"\\n</user_message>")
}

// clineTaskRequestTurns reduces a request of Cline 2.x: its system prompt (a developer message
// for gpt-5), and what it adds to
// its last user message when it resumes (the resumption, the new prompt, its notes and
// environment, from clineResumption on) are left out.
func clineTaskRequestTurns(body []byte) ([]Turn, error) {
	var req struct {
		Messages []chatMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var ms []chatMessage
	for _, m := range req.Messages {
		if m.Role == "system" || m.Role == "developer" { // (its system prompt, "developer" for gpt-5)
			continue
		}
		var blocks []contentBlock
		if m.Role == "user" && json.Unmarshal(m.Content, &blocks) == nil {
			// its texts as ctxc writes a message of several: one string, joined by newlines
			var texts []string
			for _, b := range blocks {
				if b.Type == "text" {
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
	turns := chatTurns(ms)
	n := len(turns)
	if n == 0 || turns[n-1].Role != "user" {
		return turns, nil
	}
	last := turns[n-1]
	for k, p := range last.Parts {
		i := strings.Index(p, clineResumption)
		if i < 0 {
			continue
		}
		last.Parts = last.Parts[:k]
		if kept := strings.TrimSpace(p[:i]); kept != "text:" {
			last.Parts = append(last.Parts, kept)
		}
		break
	}
	if len(last.Parts) == 0 {
		return turns[:n-1], nil
	}
	turns[n-1] = last
	return turns, nil
}
