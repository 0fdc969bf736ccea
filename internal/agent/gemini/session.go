package gemini

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/conv"
)

// Session writes a new Gemini CLI session: the header (a fresh session id, the projectHash
// Gemini CLI gives the project: the SHA-256 of its folder), then one message record a line, as
// geminiRender renders a compaction's messages (a model message's calls as functionCall parts, a
// result as a user message of functionResponse parts named after their call). System and
// developer text becomes user text: Gemini CLI rebuilds its own system instruction.
func Session(ms []conv.Message, s *conv.NewSession, r *conv.SessionRender) (conv.Written, conv.Dropped, error) {
	id := conv.NewUUID()
	now := conv.RFC3339ms(s.Now)
	header := conv.NewObject()
	header.Set("sessionId", id)
	header.Set("projectHash", agent.GeminiProjectHash(s.Cwd))
	header.Set("startTime", now)
	header.Set("lastUpdated", now)
	header.Set("kind", "main")
	out := [][]byte{header.Encode()}
	for _, m := range r.FreshCalls(ms, "call_") {
		if m.Role != conv.RoleAssistant && ignoredUserText(m.TextContent()) && !hasResults(m) {
			r.Dropped.Unsent++
		}
		rec, err := Render(&m, now)
		if err != nil {
			return conv.Written{}, r.Dropped, err
		}
		out = append(out, rec)
	}
	if len(out) == 1 {
		return conv.Written{}, r.Dropped, fmt.Errorf("no message to write")
	}
	return conv.Written{Data: conv.Lines(out), Messages: len(out) - 1, Session: id}, r.Dropped, nil
}

// ignoredUserText: a user message Gemini CLI leaves out of the history it resumes (its
// convertSessionToClientHistory): its text, trimmed, starts with "/" or "?" (a command).
func ignoredUserText(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "/") || strings.HasPrefix(t, "?")
}

func hasResults(m conv.Message) bool {
	for _, b := range m.Blocks {
		if b.Kind == conv.BlockToolResult {
			return true
		}
	}
	return false
}
