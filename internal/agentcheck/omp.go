package agentcheck

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
)

// Omp is Oh My Pi (npm @oh-my-pi/pi-coding-agent, run by the pinned Bun beside it): its provider
// "fake", an OpenAI Chat Completions endpoint, is the fake, declared in its models.yml
// (~/.omp/agent, the same providers file as pi's models.json); its sessions are in
// ~/.omp/agent/sessions/<cwd>/. `omp -p PROMPT` runs a new session headless, `omp --resume
// FILE -p PROMPT` resumes one; a window near the usage the fake reports makes it compact on its
// own after the turn (its compaction writes a handoff document).
const Omp = agent.Omp

// OmpTool is the tool the fake asks omp to call.
const OmpTool = "read"

// ompWindow is the model's context window when omp is not to compact.
const ompWindow = 4_000_000

// NewOmpHome prepares a home for omp under dir.
func NewOmpHome(dir string) (*AgentHome, error) {
	h, err := newHome(Omp, "omp", dir, OmpTool, map[string]any{"path": "notes.txt"}, nil)
	if err != nil {
		return nil, err
	}
	// (Its command runs with the pinned bun beside it, first on PATH.)
	bin, _ := MoreBin("omp")
	h.env = func(string) []string {
		return []string{"PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH"), "PI_CODING_AGENT_DIR=", "OMP_PROFILE=", "PI_CONFIG_DIR="}
	}
	return h, h.SetOmpWindow(ompWindow)
}

// SetOmpWindow declares the fake model to omp with a context window of tokens.
func (h *AgentHome) SetOmpWindow(tokens int) error {
	cfg := fmt.Sprintf(`{"providers":{"fake":{"baseUrl":%q,"api":"openai-completions","apiKey":"x",`+
		`"compat":{"supportsDeveloperRole":false,"supportsReasoningEffort":false},`+
		`"models":[{"id":"fake-model","contextWindow":%d,"maxTokens":1000}]}}}`, h.Fake.URL+"/v1", tokens)
	p := filepath.Join(h.Home, ".omp", "agent", "models.yml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, []byte(cfg+"\n"), 0o600)
}

// OmpSessions are the files of omp's sessions, by name.
func (h *AgentHome) OmpSessions() []string {
	matches, _ := filepath.Glob(filepath.Join(h.Home, ".omp", "agent", "sessions", "*", "*.jsonl"))
	sort.Strings(matches)
	return matches
}

// ompArgs are the flags of every run: the fake's model, no title request, no language server.
var ompArgs = []string{"--model", "fake/fake-model", "--no-title", "--no-lsp"}

// OmpNew runs a new session on prompt.
func (h *AgentHome) OmpNew(prompt string) error {
	return h.run(append(ompArgs, "-p", prompt)...)
}

// OmpPrompt resumes the session in file with prompt.
func (h *AgentHome) OmpPrompt(file, prompt string) error {
	return h.run(append(ompArgs, "--resume", file, "-p", prompt)...)
}

// OmpResume resumes the session in file with Prompt and returns the request of that turn.
func (h *AgentHome) OmpResume(file string) ([]byte, error) {
	if err := h.OmpPrompt(file, Prompt); err != nil {
		return nil, err
	}
	return lastTurn(h.Fake.Requests("/chat/completions"), qwenEndsWithPrompt)
}

// ompReminderHead begins omp's own note of the day and the working folder, which it puts before
// the first user text of every request and does not keep in the session.
const ompReminderHead = "text:<system-reminder>\nToday: "

// dropOmpReminder leaves omp's note out of its turns (a user text part that starts with it keeps
// what follows the note).
func dropOmpReminder(turns []Turn) []Turn {
	var out []Turn
	for _, t := range turns {
		var parts []string
		for _, p := range t.Parts {
			if t.Role == "user" && strings.HasPrefix(p, ompReminderHead) {
				_, rest, ok := strings.Cut(p, "</system-reminder>")
				if !ok {
					continue
				}
				if rest = strings.TrimSpace(rest); rest == "" {
					continue
				}
				p = "text:" + rest
			}
			parts = append(parts, p)
		}
		out = appendTurn(out, Turn{Role: t.Role, Parts: parts})
	}
	return out
}

// OmpRender renders each text as omp renders a prompt template's value (`render("{{s}}", {s})`
// of its @oh-my-pi/pi-utils, under the pinned bun): what its post-render pass makes of it. ok is
// false when omp is not installed.
func OmpRender(texts []string) (out []string, ok bool, err error) {
	bin, found := MoreBin("omp")
	if !found {
		return nil, false, nil
	}
	utils := filepath.Join(bin, "..", "..", "alone", "@oh-my-pi+pi-coding-agent", "node_modules", "@oh-my-pi", "pi-utils", "src", "prompt.ts")
	if _, err := os.Stat(utils); err != nil {
		return nil, false, nil
	}
	dir, err := os.MkdirTemp("", "ctxc-omp-render")
	if err != nil {
		return nil, true, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "render.ts")
	src := fmt.Sprintf("import { render } from %q;\n", utils) +
		"const cases: string[] = JSON.parse(await Bun.stdin.text());\n" +
		"console.log(JSON.stringify(cases.map((s) => render(\"{{s}}\", { s }))));\n"
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		return nil, true, err
	}
	in, err := json.Marshal(texts)
	if err != nil {
		return nil, true, err
	}
	cmd := exec.Command(filepath.Join(bin, "bun"), script)
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return nil, true, fmt.Errorf("bun %s: %v: %s", script, err, stderr.String())
	}
	return out, true, json.Unmarshal(b, &out)
}
