package continuecli

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// Writer writes a compaction as a new Continue CLI session: one JSON document, as
// Continue CLI writes its sessions, with a fresh sessionId, the source's title and
// workspaceDirectory, and the history: the head's messages, the summary as an assistant
// message, then the tail's messages, each rendered anew as a history item (an assistant
// message's calls as its toolCalls, each result as a "tool" message). The first item carries
// the summary as its "conversationSummary", Continue CLI's own compaction mark: on resume it
// sends the history from that item on, that is all of it. ctxc's provenance is under "ctxc" on
// that item, which Continue CLI ignores.
//
// Continue CLI rewrites a session's file whole as the session goes on, so ctxc writes no record
// into it: a compaction in place is refused, -o writes the new session.
type Writer struct{}

func (Writer) Append(src *conv.Source, c *conv.Compaction, late [][]byte) (conv.Written, error) {
	return conv.Written{}, ReadOnly(src.Path)
}

// continueDoc is a session document, its members in Continue CLI's order.
type continueDoc struct {
	SessionID          string            `json:"sessionId"`
	Title              string            `json:"title"`
	WorkspaceDirectory string            `json:"workspaceDirectory"`
	History            []json.RawMessage `json:"history"`
}

func (Writer) New(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	first, err := src.FirstRecord()
	if err != nil {
		return conv.Written{}, err
	}
	h, err := conv.ParseObject(first)
	if err != nil || h.Str("sessionId") == "" {
		return conv.Written{}, fmt.Errorf("%s: not a Continue CLI session (no sessionId on its first line)", src.Path)
	}
	ms := append(append(append([]conv.Message{}, c.Head...), conv.SummaryMessage(c.Summary, 0)), c.Tail...)
	items, err := continueItems(ms)
	if err != nil {
		return conv.Written{}, err
	}
	meta := c.Meta
	meta.TailLines = 0
	if items[0], err = continueMark(items[0], c.Summary, meta); err != nil {
		return conv.Written{}, err
	}
	doc := continueDoc{SessionID: conv.NewUUID(), Title: h.Str("title"), WorkspaceDirectory: h.Str("workspaceDirectory"), History: items}
	data, err := continueEncode(doc)
	if err != nil {
		return conv.Written{}, err
	}
	return conv.Written{Data: data, Messages: len(items), Session: doc.SessionID,
		Resume: fmt.Sprintf("place it as ~/.continue/sessions/%s.json, then: %s", doc.SessionID, conv.ResumeHint(conv.FormatContinue, doc.SessionID))}, nil
}

// continueEncode writes a document as JSON.stringify(doc, undefined, 2) does (HTML characters
// unescaped).
func continueEncode(doc continueDoc) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// continueItems renders messages as history items, one each.
func continueItems(ms []conv.Message) ([]json.RawMessage, error) {
	var out []json.RawMessage
	for i := range ms {
		m := &ms[i]
		var items []map[string]any
		switch m.Role {
		case conv.RoleAssistant:
			items = []map[string]any{continueAssistant(m)}
		case conv.RoleTool:
			items = continueToolItems(m)
		default:
			items = continueUserItems(m)
		}
		for _, it := range items {
			b, err := conv.Marshal(it)
			if err != nil {
				return nil, err
			}
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no message to write")
	}
	return out, nil
}

func continueItem(msg map[string]any) map[string]any {
	return map[string]any{"message": msg, "contextItems": []any{}}
}

// continueAssistant is an assistant message: its text (thinking included, as text Continue CLI
// sends back) and its calls.
func continueAssistant(m *conv.Message) map[string]any {
	text := ""
	var calls []any
	for _, b := range m.Blocks {
		switch b.Kind {
		case conv.BlockText:
			text += b.Text
		case conv.BlockToolCall:
			args := b.Args
			if args == "" {
				args = "{}"
			}
			calls = append(calls, map[string]any{"id": b.ID, "type": "function",
				"function": map[string]any{"name": b.Name, "arguments": args}})
		}
	}
	msg := map[string]any{"role": "assistant", "content": text}
	if len(calls) > 0 {
		msg["toolCalls"] = calls
	}
	return continueItem(msg)
}

// continueToolItems are a message's tool results, one "tool" message each.
func continueToolItems(m *conv.Message) []map[string]any {
	var out []map[string]any
	for _, b := range m.Blocks {
		if b.Kind == conv.BlockToolResult {
			out = append(out, continueItem(map[string]any{"role": "tool", "content": b.Text, "toolCallId": b.ID}))
		}
	}
	return out
}

// continueUserItems is a user (or system) message as a user message, its results apart.
func continueUserItems(m *conv.Message) []map[string]any {
	out := continueToolItems(m)
	text := ""
	for _, b := range m.Blocks {
		if b.Kind == conv.BlockText || b.Kind == conv.BlockThinking {
			if text != "" {
				text += "\n"
			}
			text += b.Text
		}
	}
	if text != "" || len(out) == 0 {
		out = append(out, continueItem(map[string]any{"role": "user", "content": text}))
	}
	return out
}

// continueMark puts the compaction mark and ctxc's provenance on an item.
func continueMark(item json.RawMessage, summary string, meta conv.MarkerMeta) (json.RawMessage, error) {
	o, err := conv.ParseObject(item)
	if err != nil {
		return nil, err
	}
	o.Set("conversationSummary", summary)
	o.Set("ctxc", meta)
	b := o.Encode()
	if !jsonl.Valid(b) {
		return nil, fmt.Errorf("rendering the compaction mark")
	}
	return b, nil
}

// ReadOnly is the error of a command that would write into a Continue CLI session, which Continue
// CLI rewrites whole.
func ReadOnly(path string) *safewrite.ReadOnlyError {
	return &safewrite.ReadOnlyError{Path: path, Reason: "is a Continue CLI session, which Continue CLI rewrites whole",
		Hint: "give -o ~/.continue/sessions/NEW.json to write the compacted session as a new one"}
}
