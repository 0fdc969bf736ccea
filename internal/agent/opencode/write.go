package opencode

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// Writer writes a compaction of an opencode session as the document `opencode import FILE`
// takes in (what `opencode export ID` prints): {"info": <session>, "messages": [{"info",
// "parts"}]}, a NEW session under new ids, since import inserts every row under its own id and
// leaves a row whose id exists as it is. The session holds the kept messages (head, then tail),
// then the compaction as opencode records its own: a user message with a "compaction" part whose
// tail_start_id is the first kept message, answered by an assistant message "summary":true (mode
// and agent "compaction") that holds ctxc's summary as its text. opencode's reload rule
// (filterCompacted) then sends "What did we do so far?", the summary and the kept messages.
//
// Kept messages are rendered from what opencode sends of them: a user message's texts, an
// assistant step's reasoning, texts and tool calls with their results (an assistant message of
// one step per step). Files and images of a kept user message are not carried.
type Writer struct{}

// Append refuses: ctxc never writes into opencode's store.
func (Writer) Append(src *conv.Source, c *conv.Compaction, late [][]byte) (conv.Written, error) {
	return conv.Written{}, fmt.Errorf("%s %s", src.Path, ReadOnly)
}

// docIDs makes opencode's ids (Identifier.create): a prefix, then 6 bytes of the time in
// milliseconds times 4096 plus a counter (the bits inverted for a descending id, a session's),
// in hex, then 14 random letters and digits. Each id made is after the one before.
type docIDs struct{ next uint64 }

const idLetters = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

func newDocIDs(now time.Time) *docIDs { return &docIDs{next: uint64(now.UnixMilli())*4096 + 1} }

func (g *docIDs) make(prefix string, descending bool) string {
	v := g.next
	g.next++
	if descending {
		v = ^v
	}
	var b [6]byte
	for i := range b {
		b[i] = byte(v >> (40 - 8*i))
	}
	var r [14]byte
	rand.Read(r[:])
	for i := range r {
		r[i] = idLetters[int(r[i])%len(idLetters)]
	}
	return prefix + "_" + hex.EncodeToString(b[:]) + string(r[:])
}

// docDefaults are what the rendered messages say of the model and the agent that wrote them:
// those of the session's messages, when they say it.
type docDefaults struct {
	agent, providerID, modelID, cwd, root string
}

// DocumentVersion is the "version" of a session ctxc writes (opencode's is its own release).
const DocumentVersion = "ctxc"

// New writes the import document.
func (Writer) New(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	d := &docWriter{ids: newDocIDs(c.Now), now: c.Now.UnixMilli(), def: sessionDefaults(src, c)}
	d.session = d.ids.make("ses", true)
	kept := append(append([]conv.Message(nil), c.Head...), c.Tail...)
	d.renderKept(kept)
	d.renderCompaction(c.Summary)
	doc := document{Info: sessionInfo{ID: d.session, Slug: "ctxc-compacted", ProjectID: "global", Directory: d.def.cwd,
		Title: "Compacted by ctxc", Version: DocumentVersion}, Messages: d.msgs}
	doc.Info.Time.Created, doc.Info.Time.Updated = d.now, d.at
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return conv.Written{}, err
	}
	return conv.Written{Data: append(data, '\n'), Messages: d.count, Session: d.session,
		Resume: "opencode import FILE, then: " + conv.ResumeHint(conv.FormatOpencode, d.session)}, nil
}

// docWriter renders the messages of a document.
type docWriter struct {
	ids      *docIDs
	session  string
	now, at  int64 // the time the document is written; the last message's
	def      docDefaults
	msgs     []docMessage
	lastUser string
	first    string // the first kept message's id
	count    int    // the messages opencode sends of them
}

// document is the import document, its session's id first (as opencode export prints it).
type document struct {
	Info     sessionInfo  `json:"info"`
	Messages []docMessage `json:"messages"`
}

// sessionInfo is a session's info: what opencode's Session.Info requires (import puts the
// project, folder and path of where it runs in place of those written).
type sessionInfo struct {
	ID        string `json:"id"`
	Slug      string `json:"slug"`
	ProjectID string `json:"projectID"`
	Directory string `json:"directory"`
	Title     string `json:"title"`
	Version   string `json:"version"`
	Time      struct {
		Created int64 `json:"created"`
		Updated int64 `json:"updated"`
	} `json:"time"`
}

type docMessage struct {
	Info  map[string]any   `json:"info"`
	Parts []map[string]any `json:"parts"`
}

// add appends a message (its parts get their ids) and counts what opencode sends of it.
func (d *docWriter) add(info map[string]any, parts []map[string]any) string {
	d.at = d.now + int64(len(d.msgs))
	id := d.ids.make("msg", false)
	info["id"], info["sessionID"] = id, d.session
	t, _ := info["time"].(map[string]any)
	if t == nil {
		t = map[string]any{}
		info["time"] = t
	}
	t["created"] = d.at
	if info["role"] == "assistant" {
		t["completed"] = d.at
	}
	for _, p := range parts {
		p["id"], p["sessionID"], p["messageID"] = d.ids.make("prt", false), d.session, id
	}
	d.msgs = append(d.msgs, docMessage{Info: info, Parts: parts})
	d.count += countSent(info, parts)
	return id
}

// countSent is how many messages ctxc's reader (opencode's conversation) makes of a message.
func countSent(info map[string]any, parts []map[string]any) int {
	b, err := json.Marshal(docMessage{Info: info, Parts: parts})
	if err != nil {
		return 0
	}
	f := opencodeLineFields(jsonl.Value(gjson.ParseBytes(b).Raw))
	return len(opencodeMessages(opencodeInfoOf(f.info), f.parts, conv.SearchText))
}

func (d *docWriter) userInfo() map[string]any {
	return map[string]any{"role": "user", "time": map[string]any{}, "agent": d.def.agent,
		"model": map[string]any{"providerID": d.def.providerID, "modelID": d.def.modelID}}
}

func (d *docWriter) assistantInfo(finish string) map[string]any {
	return map[string]any{"parentID": d.lastUser, "role": "assistant", "mode": d.def.agent, "agent": d.def.agent,
		"path": map[string]any{"cwd": d.def.cwd, "root": d.def.root}, "cost": 0,
		"tokens":  map[string]any{"input": 0, "output": 0, "reasoning": 0, "cache": map[string]any{"read": 0, "write": 0}},
		"modelID": d.def.modelID, "providerID": d.def.providerID, "time": map[string]any{}, "finish": finish}
}

// renderKept renders the kept messages, in order: a user message's texts; an assistant message
// (one step) with its tool calls, each with its result from the tool message after it. A tool
// message whose calls are not rendered before it is left out, as is a message with nothing to
// send.
func (d *docWriter) renderKept(ms []conv.Message) {
	for i := 0; i < len(ms); i++ {
		switch ms[i].Role {
		case conv.RoleUser:
			if parts := userParts(&ms[i]); len(parts) > 0 {
				d.lastUser = d.add(d.userInfo(), parts)
				d.noteFirst(d.lastUser)
			}
		case conv.RoleAssistant:
			a, results := &ms[i], (*conv.Message)(nil)
			if i+1 < len(ms) && ms[i+1].Role == conv.RoleTool {
				results = &ms[i+1]
				i++
			}
			parts, calls := assistantParts(a, results, d.now)
			if len(parts) <= 1 {
				continue
			}
			finish := "stop"
			if calls {
				finish = "tool-calls"
			}
			d.noteFirst(d.add(d.assistantInfo(finish), parts))
		}
	}
}

func (d *docWriter) noteFirst(id string) {
	if d.first == "" {
		d.first = id
	}
}

// renderCompaction renders the compaction: the user message of its part (tail_start_id: the
// first kept message), then the summary answering it.
func (d *docWriter) renderCompaction(summary string) {
	part := map[string]any{"type": "compaction", "auto": false}
	if d.first != "" {
		part["tail_start_id"] = d.first
	}
	d.lastUser = d.add(d.userInfo(), []map[string]any{part})
	info := d.assistantInfo("stop")
	info["mode"], info["agent"], info["summary"] = "compaction", "compaction", true
	d.add(info, []map[string]any{{"type": "step-start"},
		{"type": "text", "text": summary, "time": map[string]any{"start": d.at, "end": d.at}}})
}

// userParts are the text parts of a user message.
func userParts(m *conv.Message) []map[string]any {
	var parts []map[string]any
	for _, b := range m.Blocks {
		if b.Kind == conv.BlockText && b.Text != "" {
			parts = append(parts, map[string]any{"type": "text", "text": b.Text})
		}
	}
	return parts
}

// assistantParts are one step's parts: its reasoning, texts and tool calls, each call with its
// result in results (an error's text as the tool's error). calls says whether it has any.
func assistantParts(m, results *conv.Message, now int64) (parts []map[string]any, calls bool) {
	parts = []map[string]any{{"type": "step-start"}}
	span := map[string]any{"start": now, "end": now}
	for _, b := range m.Blocks {
		switch b.Kind {
		case conv.BlockText:
			if b.Text != "" {
				parts = append(parts, map[string]any{"type": "text", "text": b.Text, "time": span})
			}
		case conv.BlockThinking:
			if b.Text != "" {
				parts = append(parts, map[string]any{"type": "reasoning", "text": b.Text, "time": span})
			}
		case conv.BlockToolCall:
			parts = append(parts, toolPart(&b, resultOf(results, b.ID), span))
			calls = true
		}
	}
	return parts, calls
}

// resultOf is the result of call id in a tool message (nil: none).
func resultOf(results *conv.Message, id string) *conv.Block {
	if results == nil {
		return nil
	}
	for i := range results.Blocks {
		if b := &results.Blocks[i]; b.Kind == conv.BlockToolResult && b.ID == id {
			return b
		}
	}
	return nil
}

// toolPart is a tool call with its result: completed with its output, or an error (no result:
// interrupted).
func toolPart(call, result *conv.Block, span map[string]any) map[string]any {
	input := map[string]any{}
	if call.Args != "" && jsonl.Valid([]byte(call.Args)) {
		var v map[string]any
		if json.Unmarshal([]byte(call.Args), &v) == nil && v != nil {
			input = v
		}
	}
	state := map[string]any{"input": input, "time": span}
	switch {
	case result == nil:
		state["status"], state["error"] = "error", Interrupted
	case result.IsError:
		state["status"], state["error"] = "error", result.Text
	default:
		state["status"], state["output"], state["title"], state["metadata"] = "completed", result.Text, call.Name, map[string]any{}
	}
	return map[string]any{"type": "tool", "tool": call.Name, "callID": call.ID, "state": state}
}

// sessionDefaults reads the agent, model and folders of the session's messages (the first
// user and assistant messages that say them, among those compacted).
func sessionDefaults(src *conv.Source, c *conv.Compaction) (d docDefaults) {
	defer func() {
		if d.agent == "" {
			d.agent = "build"
		}
	}()
	seen := map[int]bool{}
	for _, zone := range [][]conv.Message{c.Head, c.Middle, c.Tail} {
		for i := range zone {
			n := zone[i].Line
			if n <= 0 || seen[n] || src == nil {
				continue
			}
			seen[n] = true
			if l, err := src.Line(int32(n)); err == nil {
				d.take(l)
			}
			if d.modelID != "" && d.cwd != "" {
				return d
			}
		}
	}
	return d
}

// take fills what d does not say yet from one message line.
func (d *docDefaults) take(line []byte) {
	info := gjson.GetBytes(line, "info")
	set := func(to *string, v gjson.Result) {
		if *to == "" && v.Type == gjson.String {
			*to = v.Str
		}
	}
	switch info.Get("role").Str {
	case "user":
		set(&d.agent, info.Get("agent"))
		set(&d.providerID, info.Get("model.providerID"))
		set(&d.modelID, info.Get("model.modelID"))
	case "assistant":
		set(&d.providerID, info.Get("providerID"))
		set(&d.modelID, info.Get("modelID"))
		set(&d.cwd, info.Get("path.cwd"))
		set(&d.root, info.Get("path.root"))
	}
}
