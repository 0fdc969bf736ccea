package conv

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// The writing of a new session of an agent from a conversation (ctxc handoff, ctxc fork), as
// each agent's code does it: what it is given, what it could not take, fresh call ids.

// NewSession is a conversation to write as a new session of an agent, whatever format it was
// read from (ctxc handoff, ctxc fork): the messages are rendered from the message model, not
// copied from records, under fresh ids.
type NewSession struct {
	Messages []Message
	Cwd      string // the project the agent resumes the session in
	Now      time.Time
}

// Dropped counts what a target format could not take, left out of a new session.
type Dropped struct {
	Images   int // images (their data is not in the message model)
	Thinking int // reasoning: its signature or encryption binds it to the model that wrote it
	Opaque   int // items the target has no shape for (encrypted reasoning, unknown items)
	// Unsent are user messages written but which the target, when it resumes, takes for its own
	// commands and does not send (Gemini CLI: a text starting with "/" or "?").
	Unsent int
}

// Any reports whether anything was dropped.
func (d Dropped) Any() bool { return d.Images+d.Thinking+d.Opaque+d.Unsent > 0 }

func (d Dropped) String() string {
	var parts []string
	for _, p := range []struct {
		n    int
		what string
	}{{d.Images, "image(s)"}, {d.Thinking, "reasoning block(s)"}, {d.Opaque, "item(s) of no shape the target takes"},
		{d.Unsent, "user message(s) the target takes for its commands on resume"}} {
		if p.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
		}
	}
	return strings.Join(parts, ", ")
}

// SessionRender is what the renderers of a new session share: fresh tool-call ids, and the
// count of what was left out.
type SessionRender struct {
	IDs     map[string]string // source call id → fresh id
	Dropped Dropped
}

// CallID is the fresh id of the source's call id (prefix: the target's kind of id).
func (r *SessionRender) CallID(prefix, id string) string {
	if n, ok := r.IDs[id]; ok {
		return n
	}
	n := prefix + NewHexID(24)
	r.IDs[id] = n
	return n
}

// CallArgs are a call's arguments as a JSON object: arguments that are not one are kept under
// "input".
func CallArgs(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(args)) && strings.HasPrefix(strings.TrimSpace(args), "{") {
		return json.RawMessage(args)
	}
	b, _ := Marshal(map[string]string{"input": args})
	return b
}

// CallArgsText is callArgs as a string (Codex's arguments field).
func CallArgsText(args string) string { return string(CallArgs(args)) }

// UserOrAssistant is the role a target without system or developer messages gives one: user.
func UserOrAssistant(r Role) Role {
	if r == RoleAssistant {
		return RoleAssistant
	}
	return RoleUser
}

// FreshCalls is ms with every call and result under a fresh id (prefix: the target's kind of
// id), and every result named after its call: the formats of the Gemini API name a function
// response by its function.
func (r *SessionRender) FreshCalls(ms []Message, prefix string) []Message {
	names := map[string]string{}
	out := make([]Message, len(ms))
	for i, m := range ms {
		bs := make([]Block, len(m.Blocks))
		for j, b := range m.Blocks {
			switch b.Kind {
			case BlockToolCall:
				names[b.ID] = b.Name
				b.ID = r.CallID(prefix, b.ID)
			case BlockToolResult:
				if n, ok := names[b.ID]; ok && b.Name == "" {
					b.Name = n
				}
				b.ID = r.CallID(prefix, b.ID)
			}
			bs[j] = b
		}
		m.Blocks = bs
		out[i] = m
	}
	return out
}
