package cline

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/agent/cline/clinesess"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/tidwall/gjson"
)

// Writer writes a compaction as a new Cline session: -o names its messages file,
// SESSIONS/<new-id>/<new-id>.messages.json, in a folder ctxc creates (clinesess.CheckNewSession),
// and the folder holds, as Cline's own sessions do:
//   - <new-id>.json, the source's manifest with the new id (provider, model, working folder);
//   - <new-id>.messages.json, every message of the source, as it stored them;
//   - <new-id>.compaction.json, Cline's compaction state standing for all of them: the head's
//     messages, the summary (a user message marked metadata.kind "compaction_summary", as
//     Cline marks its own), then the tail's messages, each rendered anew as a Cline message; keyed
//     by the last message it stands for (source_last_message_key), with ctxc's provenance under
//     "ctxc", which Cline ignores.
//
// On resume (`cline --id NEW-ID`, ACP session/load) Cline sends the compaction's messages, then
// those it stores after them. The source's folder is never written into: a compaction in place is
// refused.
type Writer struct{}

func (Writer) Append(src *conv.Source, c *conv.Compaction, late [][]byte) (conv.Written, error) {
	return conv.Written{}, clinesess.ReadOnly(src.Path)
}

func (Writer) New(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	if c.Output == "" || !clinesess.Named(c.Output) {
		return conv.Written{}, &safewrite.OutputError{Path: orStdout(c.Output),
			Msg: "a Cline session is written as a new session: give -o SESSIONS/<new-id>/<new-id>" + clinesess.MessagesSuffix + " (or --output-format ctxc)"}
	}
	id := strings.TrimSuffix(filepath.Base(c.Output), clinesess.MessagesSuffix)
	dir := filepath.Dir(c.Output)
	first, err := src.FirstRecord()
	if err != nil {
		return conv.Written{}, err
	}
	h := gjson.ParseBytes(first)
	if !gjson.ValidBytes(first) || h.Get("type").Str != HeaderType {
		return conv.Written{}, fmt.Errorf("%s: not a Cline session's export (no header on its first line)", src.Path)
	}
	stored, err := storedMessages(src, int(h.Get("messages").Int()))
	if err != nil {
		return conv.Written{}, err
	}
	manifest, err := manifestOf(c.Meta.Source.Path, h.Get("sessionId").Str, id, dir)
	if err != nil {
		return conv.Written{}, err
	}
	state, n, err := compactionState(stored, c)
	if err != nil {
		return conv.Written{}, err
	}
	doc, err := conv.Marshal(map[string]any{"messages": stored})
	if err != nil {
		return conv.Written{}, err
	}
	return conv.Written{Data: doc, Messages: n, Session: id, Resume: conv.ResumeHint(conv.FormatCline, id), Folder: dir,
		Files: []conv.BesideFile{{Path: filepath.Join(dir, id+".json"), Data: manifest},
			{Path: clinesess.CompactionPath(c.Output), Data: state}}}, nil
}

func orStdout(p string) string {
	if p == "" {
		return "-"
	}
	return p
}

// storedMessages is the source's messages as Cline stored them: the export's lines after its header.
func storedMessages(src *conv.Source, n int) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, n)
	for i := range n {
		b, err := src.Line(int32(i + 2))
		if err != nil {
			return nil, err
		}
		if !gjson.ValidBytes(b) {
			return nil, fmt.Errorf("%s:%d: not a JSON message", src.Path, i+2)
		}
		out = append(out, json.RawMessage(b))
	}
	return out, nil
}

// manifestOf is the source's manifest (<id>.json beside its messages) with the new id, its
// paths those of the new folder.
func manifestOf(source, oldID, id, dir string) ([]byte, error) {
	p := filepath.Join(filepath.Dir(source), oldID+".json")
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, fmt.Errorf("the manifest of the Cline session: %w", err)
	}
	o, err := conv.ParseObject(b)
	if err != nil || o.Str("session_id") != oldID {
		return nil, fmt.Errorf("%s: not the manifest of Cline session %s", p, oldID)
	}
	o.Set("session_id", id)
	if o.Str("messages_path") != "" {
		o.Set("messages_path", filepath.Join(dir, id+clinesess.MessagesSuffix))
	}
	if o.Str("compaction_path") != "" {
		o.Set("compaction_path", filepath.Join(dir, id+".compaction.json"))
	}
	return o.Encode(), nil
}

// compactionState is the compaction state: the rendered messages standing for every shown stored
// message, and how many messages ctxc reads of it.
func compactionState(stored []json.RawMessage, c *conv.Compaction) ([]byte, int, error) {
	var last gjson.Result
	count := 0
	for _, m := range stored {
		if v := gjson.ParseBytes(m); !v.Get("metadata.displayOnly").Bool() {
			last, count = v, count+1
		}
	}
	if count == 0 {
		return nil, 0, fmt.Errorf("no message to compact")
	}
	ms := append(append(append([]conv.Message{}, c.Head...), conv.SummaryMessage(c.Summary, 0)), c.Tail...)
	msgs, n := render(ms)
	meta := c.Meta
	meta.TailLines = 0
	state := map[string]any{"version": 1, "updated_at": c.Now.UTC().Format("2006-01-02T15:04:05.000Z"),
		"source_message_count": count, "source_last_message_key": clinesess.MessageKey(last),
		"messages": msgs, "ctxc": meta}
	b, err := conv.Marshal(state)
	return b, n, err
}

// render renders messages as Cline stores them, and how many messages its reader gives of
// them: a user's texts as text parts, an assistant's texts and calls (tool_use, its input the
// call's arguments), each tool result a user message of its own (tool_result, its content the
// text sent); thinking is none of it.
func render(ms []conv.Message) ([]map[string]any, int) {
	var out []map[string]any
	n := 0
	for i := range ms {
		m := &ms[i]
		var parts []any
		role := "user"
		if m.Role == conv.RoleAssistant {
			role = "assistant"
		}
		for _, b := range m.Blocks {
			switch b.Kind {
			case conv.BlockText:
				parts = append(parts, map[string]any{"type": "text", "text": b.Text})
			case conv.BlockToolCall:
				var input any = map[string]any{}
				if b.Args != "" && json.Valid([]byte(b.Args)) {
					input = json.RawMessage(b.Args)
				}
				parts = append(parts, map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": input})
			case conv.BlockToolResult:
				out = append(out, map[string]any{"id": fmt.Sprintf("ctxc_%d", len(out)+1), "role": "user",
					"content": []any{map[string]any{"type": "tool_result", "tool_use_id": b.ID, "name": b.Name, "content": b.Text}}})
				n++
			}
		}
		if len(parts) == 0 {
			continue
		}
		msg := map[string]any{"id": fmt.Sprintf("ctxc_%d", len(out)+1), "role": role, "content": parts}
		if m.Summary {
			msg["metadata"] = map[string]any{"kind": "compaction_summary"}
		}
		out = append(out, msg)
		n++
	}
	return out, n
}
