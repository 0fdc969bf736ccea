package transcript

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/msglist"
)

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

// SessionTargets are the formats RenderSession writes: the agents whose code has a session writer.
var SessionTargets = func() []Format {
	var out []Format
	for _, c := range agentCodes {
		if c.session != nil {
			out = append(out, c.format)
		}
	}
	return out
}()

// RenderSession writes s as a new session file of format f: the session's text, its id and
// what f could not take. Tool calls and results are paired first (msglist.PairToolCalls), so that every
// result answers a call before it.
func RenderSession(f Format, s *NewSession) (Written, Dropped, error) {
	ms, _ := msglist.PairToolCalls(s.Messages)
	r := &sessionRender{ids: map[string]string{}}
	ms = r.keep(ms)
	if c, ok := codeOf(f); ok && c.session != nil {
		return c.session(ms, s, r)
	}
	return Written{}, Dropped{}, fmt.Errorf("no new %s session can be written (targets: %s)", f, targetNames())
}

func targetNames() string {
	var s []string
	for _, f := range SessionTargets {
		s = append(s, string(f))
	}
	return strings.Join(s, ", ")
}

// sessionRender is what the renderers of a new session share: fresh tool-call ids, and the
// count of what was left out.
type sessionRender struct {
	ids     map[string]string // source call id → fresh id
	dropped Dropped
}

// keep leaves out the blocks no target takes (images, reasoning, opaque items) and the
// messages left empty, counting them; a summary left empty (encrypted) becomes
// msglist.OpaqueSummaryNote.
func (r *sessionRender) keep(ms []Message) []Message {
	out := make([]Message, 0, len(ms))
	for _, m := range ms {
		var bs []Block
		for _, b := range m.Blocks {
			switch b.Kind {
			case BlockImage:
				r.dropped.Images++
				continue
			case BlockThinking:
				r.dropped.Thinking++
				continue
			case BlockOpaque:
				r.dropped.Opaque++
				continue
			case BlockToolResult:
				if b.Images > 0 {
					r.dropped.Images += b.Images
					b.Text = withImageNote(b.Text)
				}
			}
			bs = append(bs, b)
		}
		if len(bs) == 0 && m.Summary {
			// A summary only its agent's provider can read: said, as ctxc load says it.
			bs = []Block{{Kind: BlockText, Text: msglist.OpaqueSummaryNote, Chars: len(msglist.OpaqueSummaryNote)}}
		}
		if len(bs) == 0 {
			continue
		}
		m.Blocks = bs
		out = append(out, m)
	}
	return out
}

// ImagesLeftOutNote ends a tool result whose images a new session could not take, so that the
// model does not read an empty result as no output.
const ImagesLeftOutNote = "[ctxc] The image(s) of this result were left out: the session was handed to an agent that cannot take them."

func withImageNote(text string) string {
	if strings.TrimSpace(text) == "" {
		return ImagesLeftOutNote
	}
	return text + "\n\n" + ImagesLeftOutNote
}

// callID is the fresh id of the source's call id (prefix: the target's kind of id).
func (r *sessionRender) callID(prefix, id string) string {
	if n, ok := r.ids[id]; ok {
		return n
	}
	n := prefix + newHexID(24)
	r.ids[id] = n
	return n
}

// callArgs are a call's arguments as a JSON object: arguments that are not one are kept under
// "input".
func callArgs(args string) json.RawMessage {
	if strings.TrimSpace(args) == "" {
		return json.RawMessage("{}")
	}
	if json.Valid([]byte(args)) && strings.HasPrefix(strings.TrimSpace(args), "{") {
		return json.RawMessage(args)
	}
	b, _ := conv.Marshal(map[string]string{"input": args})
	return b
}

// callArgsText is callArgs as a string (Codex's arguments field).
func callArgsText(args string) string { return string(callArgs(args)) }

// roleOf is the role a target without system or developer messages gives one: user.
func userOrAssistant(r Role) Role {
	if r == RoleAssistant {
		return RoleAssistant
	}
	return RoleUser
}

// freshCalls is ms with every call and result under a fresh id (prefix: the target's kind of
// id), and every result named after its call: the formats of the Gemini API name a function
// response by its function.
func (r *sessionRender) freshCalls(ms []Message, prefix string) []Message {
	names := map[string]string{}
	out := make([]Message, len(ms))
	for i, m := range ms {
		bs := make([]Block, len(m.Blocks))
		for j, b := range m.Blocks {
			switch b.Kind {
			case BlockToolCall:
				names[b.ID] = b.Name
				b.ID = r.callID(prefix, b.ID)
			case BlockToolResult:
				if n, ok := names[b.ID]; ok && b.Name == "" {
					b.Name = n
				}
				b.ID = r.callID(prefix, b.ID)
			}
			bs[j] = b
		}
		m.Blocks = bs
		out[i] = m
	}
	return out
}
