// Package agentcheck asks the real agents (Claude Code, Codex, pi) what context they rebuild
// from a session file, through ../shared/tools/agents/resume.sh, and compares it with the
// context ctxc loads. For agent formats the agent decides what is right: these checks are the
// judge of ctxc's readers and native writers. Tests use it and skip when the agents are absent.
package agentcheck

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/msglist"
)

// Agent names as resume.sh takes them.
const (
	ClaudeCode = agent.ClaudeCode
	Codex      = agent.Codex
	Pi         = agent.Pi
)

// Prompt is the new prompt resume.sh sends after the resumed context.
const Prompt = "Reply with OK."

// Tools finds ../shared/tools/agents from dir (a package directory or the repo root) and the
// installed agents. ok is false when either is missing: the caller skips.
func Tools(dir string) (resume string, ok bool) {
	for d := dir; ; {
		p := filepath.Join(d, "..", "shared", "tools", "agents", "resume.sh")
		if _, err := os.Stat(p); err == nil {
			resume = p
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
	bin := os.Getenv("CTXC_AGENTS_BIN")
	if bin == "" {
		cache := os.Getenv("CTXC_TEST_CACHE")
		if cache == "" {
			home, _ := os.UserHomeDir()
			cache = filepath.Join(home, ".cache", "ctxc-test")
		}
		bin = filepath.Join(cache, "agents", "node_modules", ".bin")
	}
	for _, a := range []string{"claude", "codex", "pi"} {
		if _, err := os.Stat(filepath.Join(bin, a)); err != nil {
			return "", false
		}
	}
	os.Setenv("CTXC_AGENTS_BIN", bin)
	return resume, true
}

// Resume runs resume.sh AGENT FILE and returns the request body the agent sent.
func Resume(resume, agent, file string) ([]byte, error) {
	cmd := exec.Command("bash", resume, agent, file, Prompt)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("resume.sh %s %s: %v: %s", agent, file, err, tail(stderr.String(), 2000))
	}
	return bytes.TrimSpace(out), nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// Turn is one message of a context in a form both sides can be reduced to: its role (user,
// assistant or tool) and its parts in order: "text:<trimmed text>", "call:<id>",
// "result:<id>" followed by "output:<trimmed text of the result>" (a placeholder instead of the
// output the agent sends is a difference), "think:<digest of the signature>".
type Turn struct {
	Role  string
	Parts []string
}

func (t Turn) String() string { return t.Role + " " + strings.Join(t.Parts, " | ") }

// Injected text an agent adds on its own, which is not in the session file: what an agent
// injects itself is not expected of ctxc load. Each is documented in docs/formats.md "Agents as judges".
func injectedText(agent, role, text string) bool {
	switch agent {
	case ClaudeCode:
		// Reminders (attachments, environment), the note Claude Code puts after a tool
		// result that loaded deferred tools, and its reply to a session that ended on a
		// user message.
		return strings.HasPrefix(text, "<system-reminder>") || text == "Tool loaded." ||
			(role == "assistant" && text == "No response requested.")
	}
	return false
}

// requestTurns are the request reducers of the agents whose own file registers one (requestTurns
// from its init), for an agent FromRequest does not name: FromLoad reads their loads as chat
// messages.
var requestTurns = map[string]func(body []byte) ([]Turn, error){}

// FromRequest reduces an agent's request body to its turns, leaving out the agent's own system
// prompt and the new prompt.
func FromRequest(agent string, body []byte) ([]Turn, error) {
	switch agent {
	case ClaudeCode:
		var req struct {
			Messages []anthropicMessage `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, err
		}
		// Claude Code sends its environment as role "system" messages among the others, and
		// the new prompt as the last text of the last user message.
		ms := req.Messages[:0]
		for _, m := range req.Messages {
			if m.Role != "system" {
				ms = append(ms, m)
			}
		}
		return dropPrompt(anthropicTurns(agent, ms)), nil
	case Codex:
		var req struct {
			Input []json.RawMessage `json:"input"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, err
		}
		return dropPrompt(resultsAfterCalls(responsesTurns(req.Input))), nil
	case Pi:
		var req struct {
			Messages []chatMessage `json:"messages"`
		}
		if err := json.Unmarshal(body, &req); err != nil {
			return nil, err
		}
		ms := req.Messages
		if len(ms) > 0 && ms[0].Role == "system" {
			ms = ms[1:]
		}
		return dropPrompt(chatTurns(ms)), nil
	case Copilot, Droid, Continue, Cline, Nanocoder, Omp:
		return chatRequestTurns(agent, body)
	case Gemini:
		return geminiRequestTurns(body)
	case Qwen:
		return qwenRequestTurns(body)
	case Opencode:
		return opencodeRequestTurns(body)
	case Kilo:
		return kiloRequestTurns(body)
	case Goose:
		return gooseRequestTurns(body)
	case ClineTask:
		return clineTaskRequestTurns(body)
	}
	if reduce, ok := requestTurns[agent]; ok {
		return reduce(body)
	}
	return nil, fmt.Errorf("unknown agent %q", agent)
}

// chatRequestTurns reduces a Chat Completions request of Copilot CLI or droid: their system
// prompts are left out, and Copilot's <current_datetime> line before the new prompt.
func chatRequestTurns(agent string, body []byte) ([]Turn, error) {
	ms, err := chatMessagesButSystem(body)
	if err != nil {
		return nil, err
	}
	turns := chatTurns(ms)
	if agent == Droid {
		turns = dropReminders(turns)
	}
	if agent == Omp {
		turns = dropOmpReminder(turns)
	}
	if n := len(turns); agent == Copilot && n > 0 && turns[n-1].Role == "user" {
		parts := turns[n-1].Parts
		if k := len(parts) - 1; k >= 0 && strings.HasPrefix(parts[k], "text:<current_datetime>") {
			if _, p, ok := strings.Cut(parts[k], "</current_datetime>"); ok {
				parts[k] = "text:" + strings.TrimSpace(p)
			}
		}
	}
	return dropPrompt(turns), nil
}

// dropReminders leaves out user texts that are wholly <system-reminder> blocks: droid writes
// one such message (its tool list and environment) into a new session and sends new ones on
// resume (the tool list again after a compaction summary, the date before the new prompt), so
// both sides are compared without them.
func dropReminders(turns []Turn) []Turn {
	var out []Turn
	for _, t := range turns {
		var parts []string
		for _, p := range t.Parts {
			if !(t.Role == "user" && strings.HasPrefix(p, "text:<system-reminder>") && strings.HasSuffix(p, "</system-reminder>")) {
				parts = append(parts, p)
			}
		}
		out = appendTurn(out, Turn{Role: t.Role, Parts: parts})
	}
	return out
}

// dropPrompt removes the new prompt: the last text part of the last user turn.
func dropPrompt(turns []Turn) []Turn {
	n := len(turns)
	if n == 0 || turns[n-1].Role != "user" {
		return turns
	}
	last := turns[n-1]
	if k := len(last.Parts); k > 0 && last.Parts[k-1] == "text:"+Prompt {
		last.Parts = last.Parts[:k-1]
	}
	if len(last.Parts) == 0 {
		return turns[:n-1]
	}
	turns[n-1] = last
	return turns
}

// FromLoad reduces `ctxc load` output (JSONL, --as anthropic for Claude Code, --as openai
// otherwise) to turns, in the shape the agent sends: Codex's Responses input is a flat list of
// items, so for Codex each part is a turn of its own.
func FromLoad(agent string, jsonl []byte) ([]Turn, error) {
	var lines [][]byte
	for _, l := range bytes.Split(jsonl, []byte{'\n'}) {
		if len(bytes.TrimSpace(l)) > 0 {
			lines = append(lines, l)
		}
	}
	switch agent {
	case ClaudeCode:
		ms := make([]anthropicMessage, len(lines))
		for i, l := range lines {
			if err := json.Unmarshal(l, &ms[i]); err != nil {
				return nil, fmt.Errorf("load line %d: %w", i+1, err)
			}
		}
		turns := anthropicTurns(agent, ms)
		// ctxc opens a context that starts with the assistant with a user note (the Messages
		// API wants a user turn first); Claude Code sends such a context as it is.
		if len(turns) > 0 && len(turns[0].Parts) == 1 && turns[0].Parts[0] == "text:"+msglist.ContinuesNote {
			turns = turns[1:]
		}
		return turns, nil
	default:
		if _, ok := requestTurns[agent]; !ok {
			return nil, fmt.Errorf("unknown agent %q", agent)
		}
		fallthrough // an agent of its own file: its load is read as chat messages
	case Codex, Pi, Copilot, Droid, Gemini, Qwen, Opencode, Continue, Kilo, Cline, Goose, Nanocoder, ClineTask, Omp:
		ms := make([]chatMessage, len(lines))
		for i, l := range lines {
			if err := json.Unmarshal(l, &ms[i]); err != nil {
				return nil, fmt.Errorf("load line %d: %w", i+1, err)
			}
		}
		turns := chatTurns(ms)
		if agent == Codex {
			turns = flatten(turns)
		}
		if agent == Droid {
			turns = dropReminders(turns)
		}
		if agent == Gemini {
			geminiIDs(ms, turns)
		}
		if agent == Goose {
			turns = joinUserTexts(turns)
		}
		return turns, nil
	}
}

func flatten(turns []Turn) []Turn {
	var out []Turn
	for _, t := range turns {
		for _, p := range t.Parts {
			role := t.Role
			switch {
			case strings.HasPrefix(p, "output:") && len(out) > 0:
				out[len(out)-1].Parts = append(out[len(out)-1].Parts, p) // with its result
				continue
			case strings.HasPrefix(p, "result:"):
				role = "tool"
			}
			out = append(out, Turn{Role: role, Parts: []string{p}})
		}
	}
	return out
}

// resultParts are the parts of a tool result: its id and its text.
func resultParts(id, text string) []string {
	return []string{"result:" + id, "output:" + strings.TrimSpace(text)}
}

// resultsAfterCalls moves the turns that stand between a call and its result after the result,
// as ctxc load does for the chat dialects (msglist.PairToolCalls): Codex sends a developer or
// user message recorded while a call ran where it stands, which the Responses API accepts and
// a Chat Completions request may not. The texts are compared all the same, in that order.
func resultsAfterCalls(turns []Turn) []Turn {
	last := map[string]int{} // call id → index of its last result
	for i, t := range turns {
		for _, p := range t.Parts {
			if id, ok := strings.CutPrefix(p, "result:"); ok {
				last[id] = i
			}
		}
	}
	var out, held []Turn
	pending := map[string]bool{}
	ahead := func(i int) bool {
		for id := range pending {
			if last[id] > i {
				return true
			}
		}
		return false
	}
	for i, t := range turns {
		calls, results := false, false
		for _, p := range t.Parts {
			if id, ok := strings.CutPrefix(p, "call:"); ok {
				calls, pending[id] = true, true
			} else if id, ok := strings.CutPrefix(p, "result:"); ok {
				results = true
				delete(pending, id)
			}
		}
		if !calls && !results && ahead(i) {
			held = append(held, t)
			continue
		}
		out = append(out, t)
		if results && !ahead(i) {
			out, held = append(out, held...), nil
		}
	}
	return append(out, held...)
}

type anthropicMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type contentBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	ToolUseID string          `json:"tool_use_id"`
	Signature string          `json:"signature"`
	Content   json.RawMessage `json:"content"`
}

func anthropicTurns(agent string, ms []anthropicMessage) []Turn {
	var out []Turn
	for _, m := range ms {
		var parts []string
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			if t := strings.TrimSpace(s); t != "" && !injectedText(agent, m.Role, t) {
				parts = append(parts, "text:"+t)
			}
		} else {
			var blocks []contentBlock
			json.Unmarshal(m.Content, &blocks)
			for _, b := range blocks {
				switch b.Type {
				case "text":
					if t := strings.TrimSpace(b.Text); t != "" && !injectedText(agent, m.Role, t) {
						parts = append(parts, "text:"+t)
					}
				case "tool_use":
					parts = append(parts, "call:"+b.ID)
				case "tool_result":
					parts = append(parts, resultParts(b.ToolUseID, resultText(b.Content))...)
				case "thinking":
					parts = append(parts, "think:"+digest(b.Signature))
				}
			}
		}
		out = appendTurn(out, Turn{Role: m.Role, Parts: parts})
	}
	return out
}

// appendTurn adds a turn, merging it into the previous one when both have the same role (an
// agent's request and ctxc's output may split a side differently after injected parts are
// left out) and leaving out turns with nothing left.
func appendTurn(out []Turn, t Turn) []Turn {
	if len(t.Parts) == 0 {
		return out
	}
	if n := len(out); n > 0 && out[n-1].Role == t.Role && t.Role != "tool" {
		out[n-1].Parts = append(out[n-1].Parts, t.Parts...)
		return out
	}
	return append(out, t)
}

func digest(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:6])
}

type chatMessage struct {
	Role       string          `json:"role"`
	Content    json.RawMessage `json:"content"`
	ToolCallID string          `json:"tool_call_id"`
	ToolCalls  []struct {
		ID       string `json:"id"`
		Function struct {
			Name string `json:"name"`
		} `json:"function"`
	} `json:"tool_calls"`
}

func chatTurns(ms []chatMessage) []Turn {
	var out []Turn
	for _, m := range ms {
		var parts []string
		if m.Role == "tool" {
			out = append(out, Turn{Role: "tool", Parts: resultParts(m.ToolCallID, chatText(m.Content))})
			continue
		}
		if t := chatText(m.Content); t != "" {
			parts = append(parts, "text:"+t)
		}
		for _, c := range m.ToolCalls {
			parts = append(parts, "call:"+c.ID)
		}
		role := m.Role
		if role == "system" || role == "developer" {
			role = "developer"
		}
		out = appendTurn(out, Turn{Role: role, Parts: parts})
	}
	return out
}

// chatText is a message's text: a string, or its text parts joined by newlines (ctxc writes a
// multi-part user message of Codex as one string, as Codex itself renders it to text).
func chatText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		return strings.TrimSpace(s)
	}
	var blocks []contentBlock
	json.Unmarshal(c, &blocks)
	var out []string
	for _, b := range blocks {
		if (b.Type == "text" || b.Type == "input_text" || b.Type == "output_text") && strings.TrimSpace(b.Text) != "" {
			out = append(out, strings.TrimSpace(b.Text))
		}
	}
	return strings.Join(out, "\n")
}

// resultText is the text of a tool_result's content: a string, or its blocks one per line, a
// text block as its text and any other (an image) as its JSON, the form ctxc load gives a block
// it has no text for. tool_reference blocks are left out on both sides: Claude Code sends only
// those naming a tool it has now (docs/formats.md "Agents as judges"); so are the reminders it
// adds to a result.
func resultText(c json.RawMessage) string {
	var s string
	if json.Unmarshal(c, &s) == nil {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !toolReference([]byte(l)) {
				keep = append(keep, l)
			}
		}
		return strings.TrimSpace(strings.Join(keep, "\n"))
	}
	var blocks []json.RawMessage
	json.Unmarshal(c, &blocks)
	var out []string
	for _, raw := range blocks {
		var b contentBlock
		json.Unmarshal(raw, &b)
		switch {
		case b.Type == "text":
			if t := strings.TrimSpace(b.Text); t != "" && !injectedText(ClaudeCode, "user", t) {
				out = append(out, t) // (Claude Code adds reminders to a result as blocks of their own)
			}
		case !toolReference(raw):
			var buf bytes.Buffer
			if json.Compact(&buf, raw) == nil {
				out = append(out, buf.String())
			}
		}
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

// toolReference says whether b is a tool_reference block (Claude Code's deferred tools).
func toolReference(b []byte) bool {
	var blk struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(b, &blk) == nil && blk.Type == "tool_reference"
}

// responsesTurns reduces a Responses API input list: one turn per item (reasoning left out, as
// ctxc's chat output has no place for encrypted reasoning).
func responsesTurns(items []json.RawMessage) []Turn {
	var out []Turn
	for _, raw := range items {
		var it struct {
			Type    string          `json:"type"`
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
			CallID  string          `json:"call_id"`
			Output  json.RawMessage `json:"output"`
		}
		json.Unmarshal(raw, &it)
		switch it.Type {
		case "message":
			role := it.Role
			if role == "system" {
				role = "developer"
			}
			if t := chatText(it.Content); t != "" {
				out = append(out, Turn{Role: role, Parts: []string{"text:" + t}})
			}
		case "function_call", "custom_tool_call", "local_shell_call":
			out = append(out, Turn{Role: "assistant", Parts: []string{"call:" + it.CallID}})
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			out = append(out, Turn{Role: "tool", Parts: resultParts(it.CallID, chatText(it.Output))})
		case "compaction", "compaction_summary":
			// An encrypted summary: ctxc's chat output says so in a note where it stands.
			out = append(out, Turn{Role: "user", Parts: []string{"text:" + msglist.OpaqueSummaryNote}})
		}
	}
	return out
}

// Compare checks that the agent's turns begin with ctxc's and that what follows is only what
// the agent adds on resume (developer/system items, environment context). It returns "" when
// they agree, else a description of the first difference with context.
func Compare(agent string, want, got []Turn) string {
	// Codex sends its base instructions (built in, or the session_meta's) as leading developer
	// messages: the agent's system prompt.
	for agent == Codex && len(got) > 0 && got[0].Role == "developer" && (len(want) == 0 || want[0].String() != got[0].String()) {
		got = got[1:]
	}
	i := 0
	for ; i < len(want) && i < len(got); i++ {
		if !sameTurn(agent, want[i], got[i]) {
			return fmt.Sprintf("turn %d differs:\n  agent: %s\n  ctxc:  %s%s", i, clip(got[i].String()), clip(want[i].String()), around(want, got, i))
		}
	}
	if i < len(want) {
		return fmt.Sprintf("ctxc has %d more turns than the agent sent, from turn %d: %s", len(want)-i, i, clip(want[i].String()))
	}
	for _, t := range got[i:] {
		if !injectedTurn(agent, t) {
			return fmt.Sprintf("the agent sent %d more turns than ctxc loads, from turn %d: %s", len(got)-i, i, clip(t.String()))
		}
	}
	return ""
}

// sameTurn compares one turn. pi, replaying a session to a model other than the one that wrote
// it (as resume.sh does), turns each thinking block into plain text in front of the message's
// text: there an agent's assistant text may end with ctxc's rather than equal it.
func sameTurn(agent string, want, got Turn) bool {
	if want.String() == got.String() {
		return true
	}
	if agent != Pi || want.Role != "assistant" || got.Role != "assistant" {
		return false
	}
	split := func(t Turn) (text string, rest []string) {
		for _, p := range t.Parts {
			if s, ok := strings.CutPrefix(p, "text:"); ok {
				text += s
			} else {
				rest = append(rest, p)
			}
		}
		return strings.Join(strings.Fields(text), ""), rest
	}
	wt, wr := split(want)
	gt, gr := split(got)
	return strings.HasSuffix(gt, wt) && strings.Join(wr, " ") == strings.Join(gr, " ")
}

// injectedTurn: what an agent adds after the resumed history by itself.
func injectedTurn(agent string, t Turn) bool {
	switch {
	case t.Role == "developer":
		return true
	case t.Role == "user" && len(t.Parts) == 1 && strings.HasPrefix(t.Parts[0], "text:<"):
		return agent == Codex // <environment_context>, <user_instructions>
	}
	return false
}

func around(want, got []Turn, i int) string {
	var b strings.Builder
	for k := max(0, i-2); k < i; k++ {
		fmt.Fprintf(&b, "\n  before %d: %s", k, clip(got[k].String()))
	}
	return b.String()
}

func clip(s string) string {
	if len(s) > 300 {
		return s[:300] + "…"
	}
	return s
}

// chatMessagesButSystem is the messages of a Chat Completions request, its system prompts left
// out.
func chatMessagesButSystem(body []byte) ([]chatMessage, error) {
	var req struct {
		Messages []chatMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	var ms []chatMessage
	for _, m := range req.Messages {
		if m.Role != "system" {
			ms = append(ms, m)
		}
	}
	return ms, nil
}
