package claude

import (
	"encoding/json"
	"fmt"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/safewrite"
)

// Writer writes a compaction as Claude Code does when it compacts itself: a
// compact_boundary system record (parentUuid null: Claude Code's walk back from the newest
// record stops there) and an isCompactSummary user message. The boundary carries ctxc's
// provenance under "ctxc", which Claude Code ignores.
//
// In place, the tail is kept by reference, as Claude Code's own partial compaction does:
// compactMetadata.preservedMessages lists the tail's records, which Claude Code relinks one
// after the other under the summary (anchorUuid), dropping the rest of the history before the
// boundary from the context. Two records, no copies: a crash in the middle of the write leaves
// either the file as it was, or a boundary whose summary is missing or cut off, which Claude
// Code resumes as head-less history's tail (checked: cmd/agents_test.go), never a broken chain.
// The head cannot come before a summary kept this way, so the summary holds it verbatim
// (conv.HeadedSummary).
//
// A new file (-o) holds the boundary, copies of the head's records, the summary, then copies
// of the tail's records, re-chained one after the other under fresh uuids and fresh message ids
// (Claude Code merges records that share a message id, even across copies), all with a fresh
// session id.
type Writer struct{}

// Envelope are the session fields every record repeats, taken from the newest one.
var Envelope = []string{"userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch", "slug"}

func (Writer) Append(src *conv.Source, c *conv.Compaction, late [][]byte) (conv.Written, error) {
	if len(late) > 0 {
		return conv.Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	return claudePreservedAppend(src, c)
}

// claudePreservedAppend is the in-place append: the boundary listing the tail's records, and
// the summary they hang off.
func claudePreservedAppend(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	var uuids []string
	var last *conv.Object
	var edited [][]byte // copies of records an emergency compaction cut, kept instead of them
	for i := range c.Tail {
		m := &c.Tail[i]
		recs, err := src.Records(m)
		if err != nil {
			return conv.Written{}, err
		}
		for _, b := range recs {
			o, err := conv.ParseObject(b)
			if err != nil {
				return conv.Written{}, fmt.Errorf("%s:%d: %w", src.Path, m.Line, err)
			}
			if m.Edited {
				if err := claudeApplyEdits(o, m); err != nil {
					return conv.Written{}, fmt.Errorf("%s:%d: %w", src.Path, m.Line, err)
				}
				o.Set("uuid", conv.NewUUID())
				o.Del("toolUseResult")
				edited = append(edited, o.Encode())
			}
			u := o.Str("uuid")
			if u == "" {
				return conv.Written{}, fmt.Errorf("%s:%d: a kept record has no uuid", src.Path, m.Line)
			}
			uuids = append(uuids, u)
			last = o
		}
	}
	if last == nil {
		for i := len(c.Head) - 1; i >= 0 && last == nil; i-- {
			if recs, err := src.Records(&c.Head[i]); err == nil && len(recs) > 0 {
				last, _ = conv.ParseObject(recs[len(recs)-1])
			}
		}
	}
	newest, err := src.LastRecord()
	if err != nil {
		return conv.Written{}, err
	}
	if last == nil {
		if last, err = conv.ParseObject(newest); err != nil {
			return conv.Written{}, fmt.Errorf("%s: %w", src.Path, err)
		}
	}
	env := conv.NewObject()
	env.Set("parentUuid", nil)
	// A subagent transcript (every record a sidechain) stays one: its records go on the side
	// chain with its agent id.
	side := string(last.Get("isSidechain")) == "true"
	env.Set("isSidechain", side)
	for _, k := range Envelope {
		if v := last.Get(k); v != nil {
			env.Set(k, v)
		}
	}
	if id := last.Get("agentId"); side && id != nil {
		env.Set("agentId", id)
	}
	now := conv.RFC3339ms(c.Now)
	sumID := conv.NewUUID()
	meta := c.Meta
	meta.TailLines = 0
	cm := map[string]any{"trigger": "manual", "preTokens": c.Meta.TokensBefore}
	if len(uuids) > 0 {
		cm["preservedMessages"] = map[string]any{"anchorUuid": sumID, "uuids": uuids}
	}
	b := claudeBoundary(env.Clone(), now, cm, meta)
	if no, err := conv.ParseObject(newest); err == nil && no.Str("uuid") != "" {
		b.Set("logicalParentUuid", no.Str("uuid"))
	}
	sum := claudeSummary(env.Clone(), b.Str("uuid"), sumID, now, conv.HeadedSummary(c))
	// The boundary first: until the summary is written, a boundary whose list names records
	// not yet written is ignored by Claude Code (and by ctxc), so a cut write is harmless.
	out := append([][]byte{b.Encode()}, edited...)
	out = append(out, sum.Encode())
	return conv.Written{Data: conv.Lines(out), Messages: 1 + len(c.Tail)}, nil
}

// claudeApplyEdits writes the cut texts of an edited message into a copy of one of its
// records: tool results (content) and tool calls (input).
func claudeApplyEdits(o *conv.Object, m *conv.Message) error {
	raw := o.Get("message")
	if raw == nil {
		return nil
	}
	msg, err := conv.ParseObject(raw)
	if err != nil {
		return err
	}
	var content []json.RawMessage
	if json.Unmarshal(msg.Get("content"), &content) != nil {
		return nil // a string: no blocks to cut
	}
	results, calls := map[string]string{}, map[string]string{}
	for _, b := range m.Blocks {
		switch b.Kind {
		case conv.BlockToolResult:
			results[b.ID] = b.Text
		case conv.BlockToolCall:
			calls[b.ID] = b.Args
		}
	}
	for k, part := range content {
		po, err := conv.ParseObject(part)
		if err != nil {
			continue
		}
		switch po.Str("type") {
		case "tool_result":
			if t, ok := results[po.Str("tool_use_id")]; ok {
				po.Set("content", t)
				content[k] = po.Encode()
			}
		case "tool_use":
			if a, ok := calls[po.Str("id")]; ok && json.Valid([]byte(a)) {
				po.Set("input", json.RawMessage(a))
				content[k] = po.Encode()
			}
		}
	}
	msg.Set("content", content)
	o.Set("message", json.RawMessage(msg.Encode()))
	return nil
}

func (Writer) New(src *conv.Source, c *conv.Compaction) (conv.Written, error) {
	return Records(src, c, conv.NewUUID())
}

// Records renders boundary, head copies, summary and tail copies. session, when set,
// replaces the session id in every record (a new session file).
func Records(src *conv.Source, c *conv.Compaction, session string) (conv.Written, error) {
	head, err := claudeKeptRecords(src, c.Head)
	if err != nil {
		return conv.Written{}, err
	}
	tail, err := claudeKeptRecords(src, c.Tail)
	if err != nil {
		return conv.Written{}, err
	}
	cp, err := newClaudeCopy(src, head, tail, session)
	if err != nil {
		return conv.Written{}, err
	}
	now := conv.RFC3339ms(c.Now)
	meta := c.Meta
	meta.TailLines = 0 // the copies are the new file's own history
	boundary := claudeBoundary(cp.newRecord(), now, map[string]any{"trigger": "manual", "preTokens": c.Meta.TokensBefore}, meta)
	cp.out = [][]byte{boundary.Encode()}
	cp.parent = boundary.Str("uuid")
	if err := cp.copyAll(head); err != nil {
		return conv.Written{}, err
	}
	sum := claudeSummary(cp.newRecord(), cp.parent, conv.NewUUID(), now, conv.SummaryPreamble+c.Summary)
	cp.out = append(cp.out, sum.Encode())
	cp.parent = sum.Str("uuid")
	if err := cp.copyAll(tail); err != nil {
		return conv.Written{}, err
	}
	w := conv.Written{Data: conv.Lines(cp.out), Messages: len(c.Head) + 1 + len(c.Tail)}
	if session != "" {
		w.Session = session
		w.Resume = claudeResumeHint(cp.env, session)
	}
	return w, nil
}

// claudeKept is one record of a kept message, with the message: an edited message's cut texts
// go into the copy of its records.
type claudeKept struct {
	b []byte
	m *conv.Message
}

// claudeKeptRecords lists the records of ms, in order, each with its message.
func claudeKeptRecords(src *conv.Source, ms []conv.Message) ([]claudeKept, error) {
	var out []claudeKept
	for i := range ms {
		recs, err := src.Records(&ms[i])
		if err != nil {
			return nil, err
		}
		for _, b := range recs {
			out = append(out, claudeKept{b, &ms[i]})
		}
	}
	return out, nil
}

// claudeCopy is a new Claude Code file being written: copies of records chained one after the
// other under fresh uuids and message ids, and new records in the session's envelope.
type claudeCopy struct {
	src     *conv.Source
	session string                     // the new session id; "": each copy keeps its own
	env     map[string]json.RawMessage // the envelope of the newest kept record
	out     [][]byte
	parent  string            // uuid of the record written last
	uuids   map[string]string // original uuid → copy's
	msgIDs  map[string]string // original message.id → copy's
}

// newClaudeCopy starts a file of copies of head then tail, in the envelope of the newest of
// their records (with the new session id, when set).
func newClaudeCopy(src *conv.Source, head, tail []claudeKept, session string) (*claudeCopy, error) {
	var newest []byte
	switch {
	case len(tail) > 0:
		newest = tail[len(tail)-1].b
	case len(head) > 0:
		newest = head[len(head)-1].b
	default:
		return nil, fmt.Errorf("%s: nothing kept to write the compaction after", src.Path)
	}
	last, err := conv.ParseObject(newest)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", src.Path, err)
	}
	env := map[string]json.RawMessage{}
	for _, k := range Envelope {
		if v := last.Get(k); v != nil {
			env[k] = v
		}
	}
	if session != "" {
		env["sessionId"], _ = conv.Marshal(session)
	}
	return &claudeCopy{src: src, session: session, env: env, uuids: map[string]string{}, msgIDs: map[string]string{}}, nil
}

// newRecord is an empty record in the session's envelope, at the root of the main chain until
// its parent is set.
func (cp *claudeCopy) newRecord() *conv.Object {
	o := conv.NewObject()
	o.Set("parentUuid", nil)
	o.Set("isSidechain", false)
	for _, k := range Envelope {
		if v, ok := cp.env[k]; ok {
			o.Set(k, v)
		}
	}
	return o
}

// copyAll appends copies of recs, each the child of the one before.
func (cp *claudeCopy) copyAll(recs []claudeKept) error {
	for _, r := range recs {
		if err := cp.copyRecord(r.b, r.m); err != nil {
			return err
		}
	}
	return nil
}

// copyRecord appends a copy of the record b of message m under a fresh uuid, as the child of
// the record written last, on the main chain: a new main session, even from a subagent's
// transcript. Its link to the response whose tool call it answers follows that response's copy
// (and goes when the response was not copied); its message id is renamed so that Claude Code
// does not merge it with the original response.
func (cp *claudeCopy) copyRecord(b []byte, m *conv.Message) error {
	o, err := conv.ParseObject(b)
	if err != nil {
		return fmt.Errorf("%s: a kept record: %w", cp.src.Path, err)
	}
	if m.Edited {
		if err := claudeApplyEdits(o, m); err != nil {
			return fmt.Errorf("%s:%d: %w", cp.src.Path, m.Line, err)
		}
		o.Del("toolUseResult")
	}
	id := conv.NewUUID()
	if old := o.Str("uuid"); old != "" {
		cp.uuids[old] = id
	}
	o.Set("uuid", id)
	o.Set("parentUuid", cp.parent)
	o.Set("isSidechain", false)
	o.Del("logicalParentUuid")
	if cp.session != "" {
		o.Set("sessionId", cp.session)
	}
	if a := o.Str("sourceToolAssistantUUID"); a != "" {
		if n, ok := cp.uuids[a]; ok {
			o.Set("sourceToolAssistantUUID", n)
		} else {
			o.Del("sourceToolAssistantUUID")
		}
	}
	RenameMessageID(o, cp.msgIDs)
	cp.parent = id
	cp.out = append(cp.out, o.Encode())
	return nil
}

// claudeResumeHint says where a new session file goes for claude --resume to find it: the
// folder Claude Code keeps the sessions of the working directory in.
func claudeResumeHint(env map[string]json.RawMessage, session string) string {
	var cwd string
	json.Unmarshal(env["cwd"], &cwd)
	return fmt.Sprintf("place it as ~/.claude/projects/%s/%s.jsonl, then: claude --resume %s", agent.ClaudeProjectDir(cwd), session, session)
}

// claudeBoundary fills o (the session's envelope) as a compact_boundary record.
func claudeBoundary(o *conv.Object, now string, compactMetadata map[string]any, meta conv.MarkerMeta) *conv.Object {
	o.Set("type", "system")
	o.Set("subtype", "compact_boundary")
	o.Set("content", "Conversation compacted")
	o.Set("isMeta", false)
	o.Set("timestamp", now)
	o.Set("uuid", conv.NewUUID())
	o.Set("level", "info")
	o.Set("compactMetadata", compactMetadata)
	o.Set("ctxc", meta)
	return o
}

// claudeSummary fills o (the session's envelope) as the isCompactSummary user message.
func claudeSummary(o *conv.Object, parent, id, now, text string) *conv.Object {
	o.Set("parentUuid", parent)
	o.Set("type", "user")
	o.Set("message", map[string]any{"role": "user", "content": text})
	o.Set("isVisibleInTranscriptOnly", true)
	o.Set("isCompactSummary", true)
	o.Set("uuid", id)
	o.Set("timestamp", now)
	return o
}

// RenameMessageID gives the copy o of a Claude Code record a message.id of its own, the
// same for every copy of one original response (msgIDs: original → copy's). With the original
// id, Claude Code would gather the original records back into the copies' response, as it does
// for the blocks of parallel calls.
func RenameMessageID(o *conv.Object, msgIDs map[string]string) {
	msg := o.Get("message")
	if msg == nil {
		return
	}
	m, err := conv.ParseObject(msg)
	if err != nil {
		return
	}
	if old := m.Str("id"); old != "" {
		n, ok := msgIDs[old]
		if !ok {
			n = "msg_ctxc_" + conv.NewHexID(24)
			msgIDs[old] = n
		}
		m.Set("id", n)
		o.Set("message", json.RawMessage(m.Encode()))
	}
}
