package qwen

import (
	"fmt"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/msglist"
)

// qwenVersion is the Qwen Code version a new session's records name (the one its format was
// read from).
const qwenVersion = "0.24.4"

// Session writes a new Qwen Code session: one record a line, each the child of the one
// before (Qwen Code resumes the chain that ends at the last record), under a fresh session id,
// with the project's folder as cwd (Qwen Code resumes a session only there). A message's text
// and calls are a user or assistant record of Gemini API parts; its results a tool_result record
// of functionResponse parts, which Qwen Code sends as the answers of their calls. System and
// developer text becomes user text: Qwen Code rebuilds its own system prompt.
func Session(ms []conv.Message, s *conv.NewSession, r *conv.SessionRender) (conv.Written, conv.Dropped, error) {
	id := conv.NewUUID()
	now := conv.RFC3339ms(s.Now)
	parent := ""
	var out [][]byte
	add := func(typ, role string, parts []conv.Block) error {
		m := conv.Message{Role: conv.RoleUser, Blocks: parts}
		if role == "model" {
			m.Role = conv.RoleAssistant
		}
		ps, err := conv.GeminiParts(&m, role)
		if err != nil {
			return err
		}
		u := conv.NewUUID()
		rec, err := conv.Marshal(map[string]any{"uuid": u, "parentUuid": conv.ParentOrNil(parent), "sessionId": id, "timestamp": now,
			"type": typ, "cwd": s.Cwd, "version": qwenVersion, "message": map[string]any{"role": role, "parts": ps}})
		if err != nil {
			return err
		}
		parent = u
		out = append(out, rec)
		return nil
	}
	for _, m := range r.FreshCalls(ms, "call_") {
		results, rest := msglist.SplitResults(m)
		if len(results.Blocks) > 0 {
			if err := add("tool_result", "user", results.Blocks); err != nil {
				return conv.Written{}, r.Dropped, err
			}
		}
		if len(rest.Blocks) == 0 {
			continue
		}
		typ, role := "user", "user"
		if m.Role == conv.RoleAssistant {
			typ, role = "assistant", "model"
		}
		if err := add(typ, role, rest.Blocks); err != nil {
			return conv.Written{}, r.Dropped, err
		}
	}
	if len(out) == 0 {
		return conv.Written{}, r.Dropped, fmt.Errorf("no message to write")
	}
	return conv.Written{Data: conv.Lines(out), Messages: len(out), Session: id}, r.Dropped, nil
}
