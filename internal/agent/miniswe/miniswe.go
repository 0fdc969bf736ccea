// Package miniswe is ctxc's code for mini-swe-agent's trajectories, as internal/agent/miniswe/miniswetraj
// exports them: their reader and the decoder of one line.
package miniswe

import (
	"fmt"
	"slices"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads mini-swe-agent trajectories (<instance>.traj.json) as internal/agent/miniswe/miniswetraj
// exports them: a header {"type":"mini-swe-agent","sessionId","exitStatus","modelStats":{...},
// "miniVersion","trajectoryFormat","messages":N}, then each message on a line: OpenAI chat
// messages {"role","content","tool_calls":[{"id","function":{"name","arguments"}}],
// "tool_call_id"} with mini-swe-agent's "extra" (an answer's provider response, usage included,
// and its actions; an observation's output and return code), and, last, the run's end,
// {"role":"exit","content":<submission>,"extra":{"exit_status","submission"}}.
//
// Conversation: mini-swe-agent is a batch agent; it takes no trajectory back to continue it.
// What ctxc loads is what it sends its model at a query (DefaultAgent.query, the model's
// _prepare_messages_for_api, mini-swe-agent 2.x): every message it keeps, each without its
// "extra" (1.x's text-based trajectories likewise: their actions are the answers' text). The
// "exit" message ends the run and is never sent: it is not counted either.
//
// Usage: each answer's extra.response.usage (prompt_tokens, its cached_tokens,
// completion_tokens), once per response id.
type reader struct {
	history []conv.Ref
}

// HeaderType is the type of the export's first line (miniswetraj.HeaderType).
const HeaderType = "mini-swe-agent"

// NewReader is a reader of one mini-swe-agent trajectory.
func NewReader() conv.Reader { return &reader{} }

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	v := jsonl.Value(doc.Raw)
	if header(v) {
		return
	}
	ms := messages(v, conv.NoText)
	for i := range ms {
		ms[i].Line = l.Num
		st.CountMessage(&ms[i])
	}
	if len(ms) > 0 && ms[0].Role == conv.RoleAssistant {
		countUsage(v.Get("extra").Get("response"), st)
	}
	if len(ms) > 0 {
		r.history = append(r.history, conv.RefOf(l, ms))
	}
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatMiniSWE
	return r.history
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	v := jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)
	if !v.IsObject() || header(v) {
		return nil, fmt.Errorf("not a mini-swe-agent message")
	}
	ms := messages(v, conv.WithText)
	for i := range ms {
		ms[i].Line = x.LineNum()
	}
	return ms, nil
}

// header: a line is the export's header.
func header(v jsonl.Value) bool {
	return v.Get("type").Str() == HeaderType && !v.Get("role").Exists()
}

// countUsage counts an answer's provider response's usage: its prompt tokens (the cached ones
// apart), its completion tokens; the context of the latest answer is its prompt.
func countUsage(resp jsonl.Value, st *conv.Stats) {
	u := resp.Get("usage")
	if !u.IsObject() {
		return
	}
	prompt, cached := int(u.Get("prompt_tokens").Int()), int(u.Get("prompt_tokens_details").Get("cached_tokens").Int())
	cached = min(max(cached, 0), prompt)
	st.CountUsage(resp.Get("id").Str(), conv.Usage{Input: prompt - cached, CacheRead: cached,
		Output: int(u.Get("completion_tokens").Int())}, true)
}

// messages is what one kept message sends: itself as an OpenAI chat message ("extra" is not
// read; an empty text is none), none for the run's "exit".
func messages(v jsonl.Value, text conv.TextMode) []conv.Message {
	role := v.Get("role").Str()
	if role == "" || role == "exit" {
		return nil
	}
	m := conv.OpenAIMessage(v, text)
	m.Role = conv.RoleConst(m.Role)
	m.Blocks = slices.DeleteFunc(m.Blocks, func(b conv.Block) bool {
		return b.Kind == conv.BlockText && b.Text == "" && b.Chars == 0 // (an answer's "" beside its calls: no text)
	})
	if len(m.Blocks) == 0 {
		return nil
	}
	return []conv.Message{m}
}

// Record is one line seen on its own (ctxc grep): its message.
func Record(v jsonl.Value) conv.Record {
	if header(v) {
		return conv.Record{}
	}
	return conv.Record{Messages: messages(v, conv.SearchText)}
}

// ReadOnly says why ctxc never writes into a mini-swe-agent trajectory; a compaction is written
// with -o, as a ctxc-format file.
const ReadOnly = "is a mini-swe-agent trajectory, which mini-swe-agent rewrites whole"

// LineTypes tell a session ctxc exports from mini-swe-agent's files by its header line.
var LineTypes = []conv.LineType{{Type: HeaderType, Session: true}}
