// Package sweagent is ctxc's code for SWE-agent's trajectories, as internal/agent/sweagent/sweagenttraj exports
// them: their reader and the decoder of one line.
package sweagent

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// reader reads SWE-agent trajectories (<instance>.traj) as internal/agent/sweagent/sweagenttraj exports them:
// a header {"type":"swe-agent","sessionId","environment","exitStatus","modelStats":{...},
// "messages":N}, then each message of the trajectory's history on a line: {"role","content",
// "agent","message_type","thought","action","tool_calls":[{"id","function":{"name",
// "arguments"}}],"tool_call_ids":[...],"is_demo"}.
//
// Conversation: SWE-agent is a batch agent; it takes no trajectory back to continue it. What ctxc
// loads is what SWE-agent sends its model at its next query (DefaultAgent.messages and
// _history_to_messages, SWE-agent 1.1): the history's messages of the agent that owns it (the
// first message's "agent", "main" or, before 1.0, "primary"; a subroutine's are left out),
// through the history processors of the run's agent as its "replay_config" names them, each as
// {"role","content"}: a message of role "tool" with the first of its tool_call_ids, an
// assistant's with its tool calls; the demonstrations (is_demo) included, as SWE-agent sends
// them; the system prompt as a user message when the run's model converts it
// (convert_system_to_user). Of the history processors, last_n_observations changes what is sent
// (LastNObservations: every observation but the first and the last n, a multiple of polling
// counted, is sent as "Old environment output: (N lines omitted)"); the others SWE-agent ships
// change no text (cache_control) or are not read (remove_regex, closed_window: the context is
// then the history as it is). A trajectory without a replay_config (SWE-agent before 1.0) names
// none: its history is sent as it is.
//
// Usage: "info.model_stats" counts the tokens sent and received over all of the run's model
// calls (api_calls); ctxc counts them as its recorded usage, one response per call.
type reader struct {
	owner        string
	ownerSet     bool
	systemAsUser bool
	lastN        []lastN
	history      []entry
}

// entry is one history message of the owner: where it is, and what LastNObservations asks of it.
type entry struct {
	ref           conv.Ref
	obs           bool // an observation, not a demonstration's
	keep, remove  bool // tagged keep_output, remove_output
	lines, images int  // its text's lines and its images, as _get_content_stats counts them
	role          conv.Role
}

// lastN is one last_n_observations history processor.
type lastN struct {
	n, polling int
}

// elided is Ref.Sel of an observation sent as LastNObservations elides it.
const elided = 1

// HeaderType is the type of the export's first line (sweagenttraj.HeaderType).
const HeaderType = "swe-agent"

// NewReader is a reader of one SWE-agent trajectory.
func NewReader() conv.Reader { return &reader{} }

func (r *reader) Add(l *conv.Line, doc gjson.Result, st *conv.Stats) {
	v := jsonl.Value(doc.Raw)
	if header(v) {
		r.readHeader(v, st)
		return
	}
	a := v.Get("agent").Str()
	if !r.ownerSet {
		r.owner, r.ownerSet = strings.Clone(a), true // (its own string: the line's bytes may be unmapped after)
	}
	ms := r.messages(v, conv.NoText)
	for i := range ms {
		ms[i].Line = l.Num
		st.CountMessage(&ms[i])
	}
	if a != r.owner {
		return
	}
	e := entry{ref: conv.RefOf(l, ms), role: conv.RoleConst(conv.Role(v.Get("role").Str()))}
	e.obs = v.Get("message_type").Str() == "observation" && v.Get("is_demo") != "true"
	if e.obs && len(r.lastN) > 0 {
		e.keep, e.remove = tagged(v, "keep_output"), tagged(v, "remove_output")
		e.lines, e.images = contentStats(v.Get("content"))
	}
	r.history = append(r.history, e)
}

// readHeader takes the header's model statistics as the recorded usage, and the run's history
// processors and system-as-user setting.
func (r *reader) readHeader(v jsonl.Value, st *conv.Stats) {
	countUsage(v.Get("modelStats"), st)
	r.systemAsUser = v.Get("systemAsUser") == "true"
	v.Get("historyProcessors").Each(func(_ string, p jsonl.Value) bool {
		if p.Get("type").Str() == "last_n_observations" && p.Get("n").Int() > 0 {
			ln := lastN{n: int(p.Get("n").Int()), polling: int(p.Get("polling").Int())}
			if ln.polling <= 0 {
				ln.polling = 1
			}
			r.lastN = append(r.lastN, ln)
		}
		return true
	})
}

func (r *reader) Finish(st *conv.Stats) []conv.Ref {
	st.Format = conv.FormatSWEAgent
	omit := r.omitted()
	var out []conv.Ref
	for i, e := range r.history {
		if omit[i] {
			e.ref.Sel = elided
			m := elidedMessage(e.role, "", e.lines, e.images, conv.NoText)
			e.ref.Tokens, e.ref.Msgs = int32(m.Tokens()), 1
		}
		if e.ref.Msgs > 0 {
			out = append(out, e.ref)
		}
	}
	return out
}

// omitted are the history's observations that LastNObservations elides, by their index
// (_get_omit_indices, the tags of each observation then heeded).
func (r *reader) omitted() map[int]bool {
	if len(r.lastN) == 0 {
		return nil
	}
	var obs []int
	for i, e := range r.history {
		if e.obs {
			obs = append(obs, i)
		}
	}
	omit := map[int]bool{}
	for _, ln := range r.lastN {
		last := max(0, (len(obs)/ln.polling)*ln.polling-ln.n)
		for k, i := range obs {
			e := r.history[i]
			if (k >= 1 && k < last && !e.keep) || e.remove {
				omit[i] = true // (the first observation, the task, is never elided)
			}
		}
	}
	return omit
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	v := jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)
	if !v.IsObject() || header(v) {
		return nil, fmt.Errorf("not a SWE-agent history message")
	}
	var ms []conv.Message
	if x.Sel == elided {
		lines, images := contentStats(v.Get("content"))
		ms = []conv.Message{elidedMessage(conv.Role(v.Get("role").Str()), firstID(v.Get("tool_call_ids")), lines, images, conv.WithText)}
	} else {
		ms = r.messages(v, conv.WithText)
	}
	for i := range ms {
		ms[i].Line = x.LineNum()
	}
	return ms, nil
}

// header: a line is the export's header.
func header(v jsonl.Value) bool {
	return v.Get("type").Str() == HeaderType && !v.Get("role").Exists()
}

// countUsage counts the model's statistics as the run's recorded usage: its tokens sent and
// received, over api_calls responses.
func countUsage(ms jsonl.Value, st *conv.Stats) {
	if !ms.IsObject() {
		return
	}
	sent, received := ms.Get("tokens_sent").Int(), ms.Get("tokens_received").Int()
	calls := ms.Get("api_calls").Int()
	if sent == 0 && received == 0 {
		return
	}
	st.CountUsage("", conv.Usage{Input: int(sent), Output: int(received)}, false)
	if calls > 0 {
		st.Usage.Responses = int(calls)
	}
}

// messages is what one history message sends, the system prompt as a user message when the run's
// model converts it.
func (r *reader) messages(v jsonl.Value, text conv.TextMode) []conv.Message {
	ms := messages(v, text)
	if r.systemAsUser && len(ms) == 1 && ms[0].Role == conv.RoleSystem {
		ms[0].Role = conv.RoleUser
	}
	return ms
}

// messages is what one history message sends: at most one message.
func messages(v jsonl.Value, text conv.TextMode) []conv.Message {
	role := v.Get("role").Str()
	if role == "" {
		return nil
	}
	if role == "tool" {
		b := conv.ContentResultV(v.Get("content"), text)
		b.ID = firstID(v.Get("tool_call_ids"))
		return []conv.Message{{Role: conv.RoleTool, Blocks: []conv.Block{b}}}
	}
	m := conv.OpenAIMessage(v, text)
	m.Role = conv.RoleConst(conv.Role(role))
	if len(m.Blocks) == 0 {
		return nil
	}
	return []conv.Message{m}
}

// elidedMessage is an observation as LastNObservations sends it: "Old environment output: (N
// lines omitted)", its images' number added when it had some.
func elidedMessage(role conv.Role, id string, lines, images int, text conv.TextMode) conv.Message {
	s := "Old environment output: (" + strconv.Itoa(lines) + " lines omitted)"
	if images > 0 {
		s += " (" + strconv.Itoa(images) + " images omitted)"
	}
	b := conv.LiteralBlock(s, text)
	if role == conv.RoleTool {
		b.Kind, b.ID = conv.BlockToolResult, id
		return conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{b}}
	}
	return conv.Message{Role: conv.RoleConst(role), Blocks: []conv.Block{b}}
}

// contentStats are the lines of a message's text and its images, as SWE-agent's
// _get_content_stats counts them (str.splitlines).
func contentStats(c jsonl.Value) (lines, images int) {
	if c.IsString() {
		return splitLines(c.Text()), 0
	}
	c.Each(func(_ string, p jsonl.Value) bool {
		switch p.Get("type").Str() {
		case "text":
			lines += splitLines(p.Get("text").Text())
		case "image_url":
			images++
		}
		return true
	})
	return lines, images
}

// splitLines is len(s.splitlines()) of Python: the lines of s, cut at each of Python's line
// boundaries ("\r\n" one), a last one without its boundary counted.
func splitLines(s string) int {
	n := 0
	start := true // (nothing of the current line seen yet)
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		switch rs[i] {
		case '\n', '\v', '\f', '\x1c', '\x1d', '\x1e', '\u0085', '\u2028', '\u2029':
			n++
			start = true
		case '\r':
			if i+1 < len(rs) && rs[i+1] == '\n' {
				i++
			}
			n++
			start = true
		default:
			start = false
		}
	}
	if !start {
		n++
	}
	return n
}

// tagged reports whether a history message's "tags" hold tag.
func tagged(v jsonl.Value, tag string) bool {
	found := false
	v.Get("tags").Each(func(_ string, t jsonl.Value) bool {
		found = t.Str() == tag
		return !found
	})
	return found
}

// firstID is the first of a tool message's tool_call_ids (SWE-agent sends one result a call).
func firstID(ids jsonl.Value) string {
	var id string
	ids.Each(func(_ string, x jsonl.Value) bool {
		id = x.Str()
		return false
	})
	return id
}

// Record is one line seen on its own (ctxc grep): its message.
func Record(v jsonl.Value) conv.Record {
	if header(v) {
		return conv.Record{}
	}
	return conv.Record{Messages: messages(v, conv.SearchText)}
}

// ReadOnly says why ctxc never writes into a SWE-agent trajectory; a compaction is written with
// -o, as a ctxc-format file.
const ReadOnly = "is a SWE-agent trajectory, which SWE-agent rewrites whole"

// LineTypes tell a session ctxc exports from SWE-agent's files by its header line.
var LineTypes = []conv.LineType{{Type: HeaderType, Session: true}}
