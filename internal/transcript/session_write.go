package transcript

import (
	"fmt"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/msglist"
)

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
	r := &conv.SessionRender{IDs: map[string]string{}}
	ms = keep(r, ms)
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

// keep leaves out the blocks no target takes (images, reasoning, opaque items) and the
// messages left empty, counting them; a summary left empty (encrypted) becomes
// msglist.OpaqueSummaryNote.
func keep(r *conv.SessionRender, ms []Message) []Message {
	out := make([]Message, 0, len(ms))
	for _, m := range ms {
		var bs []Block
		for _, b := range m.Blocks {
			switch b.Kind {
			case BlockImage:
				r.Dropped.Images++
				continue
			case BlockThinking:
				r.Dropped.Thinking++
				continue
			case BlockOpaque:
				r.Dropped.Opaque++
				continue
			case BlockToolResult:
				if b.Images > 0 {
					r.Dropped.Images += b.Images
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
