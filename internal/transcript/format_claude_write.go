package transcript

import (
	"encoding/json"
	"fmt"
	"regexp"

	"github.com/ctxc/ctxc/internal/safewrite"
)

// claudeWriter writes a compaction as Claude Code does when it compacts itself: a
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
// (headedSummary).
//
// A new file (-o) holds the boundary, copies of the head's records, the summary, then copies
// of the tail's records, re-chained one after the other under fresh uuids and fresh message ids
// (Claude Code merges records that share a message id, even across copies), all with a fresh
// session id.
type claudeWriter struct{}

// claudeEnvelope are the session fields every record repeats, taken from the newest one.
var claudeEnvelope = []string{"userType", "entrypoint", "cwd", "sessionId", "version", "gitBranch", "slug"}

func (claudeWriter) Append(src *Source, c *Compaction, late [][]byte) (Written, error) {
	if len(late) > 0 {
		return Written{}, &safewrite.BusyError{Path: src.Path, Reason: safewrite.ReasonChanged}
	}
	return claudePreservedAppend(src, c)
}

// claudePreservedAppend is the in-place append: the boundary listing the tail's records, and
// the summary they hang off.
func claudePreservedAppend(src *Source, c *Compaction) (Written, error) {
	var uuids []string
	var last *object
	var edited [][]byte // copies of records an emergency compaction cut, kept instead of them
	for i := range c.Tail {
		m := &c.Tail[i]
		recs, err := src.records(m)
		if err != nil {
			return Written{}, err
		}
		for _, b := range recs {
			o, err := parseObject(b)
			if err != nil {
				return Written{}, fmt.Errorf("%s:%d: %w", src.Path, m.Line, err)
			}
			if m.Edited {
				if err := claudeApplyEdits(o, m); err != nil {
					return Written{}, fmt.Errorf("%s:%d: %w", src.Path, m.Line, err)
				}
				o.set("uuid", newUUID())
				o.del("toolUseResult")
				edited = append(edited, o.encode())
			}
			u := o.str("uuid")
			if u == "" {
				return Written{}, fmt.Errorf("%s:%d: a kept record has no uuid", src.Path, m.Line)
			}
			uuids = append(uuids, u)
			last = o
		}
	}
	if last == nil {
		for i := len(c.Head) - 1; i >= 0 && last == nil; i-- {
			if recs, err := src.records(&c.Head[i]); err == nil && len(recs) > 0 {
				last, _ = parseObject(recs[len(recs)-1])
			}
		}
	}
	newest, err := src.LastRecord()
	if err != nil {
		return Written{}, err
	}
	if last == nil {
		if last, err = parseObject(newest); err != nil {
			return Written{}, fmt.Errorf("%s: %w", src.Path, err)
		}
	}
	env := &object{vals: map[string]json.RawMessage{}}
	env.set("parentUuid", nil)
	// A subagent transcript (every record a sidechain) stays one: its records go on the side
	// chain with its agent id.
	side := string(last.get("isSidechain")) == "true"
	env.set("isSidechain", side)
	for _, k := range claudeEnvelope {
		if v := last.get(k); v != nil {
			env.set(k, v)
		}
	}
	if id := last.get("agentId"); side && id != nil {
		env.set("agentId", id)
	}
	now := rfc3339ms(c.Now)
	sumID := newUUID()
	meta := c.Meta
	meta.TailLines = 0
	cm := map[string]any{"trigger": "manual", "preTokens": c.Meta.TokensBefore}
	if len(uuids) > 0 {
		cm["preservedMessages"] = map[string]any{"anchorUuid": sumID, "uuids": uuids}
	}
	b := claudeBoundary(env.clone(), now, cm, meta)
	if no, err := parseObject(newest); err == nil && no.str("uuid") != "" {
		b.set("logicalParentUuid", no.str("uuid"))
	}
	sum := claudeSummary(env.clone(), b.str("uuid"), sumID, now, headedSummary(c))
	// The boundary first: until the summary is written, a boundary whose list names records
	// not yet written is ignored by Claude Code (and by ctxc), so a cut write is harmless.
	out := append([][]byte{b.encode()}, edited...)
	out = append(out, sum.encode())
	return Written{Data: lines(out), Messages: 1 + len(c.Tail)}, nil
}

// claudeApplyEdits writes the cut texts of an edited message into a copy of one of its
// records: tool results (content) and tool calls (input).
func claudeApplyEdits(o *object, m *Message) error {
	raw := o.get("message")
	if raw == nil {
		return nil
	}
	msg, err := parseObject(raw)
	if err != nil {
		return err
	}
	var content []json.RawMessage
	if json.Unmarshal(msg.get("content"), &content) != nil {
		return nil // a string: no blocks to cut
	}
	results, calls := map[string]string{}, map[string]string{}
	for _, b := range m.Blocks {
		switch b.Kind {
		case BlockToolResult:
			results[b.ID] = b.Text
		case BlockToolCall:
			calls[b.ID] = b.Args
		}
	}
	for k, part := range content {
		po, err := parseObject(part)
		if err != nil {
			continue
		}
		switch po.str("type") {
		case "tool_result":
			if t, ok := results[po.str("tool_use_id")]; ok {
				po.set("content", t)
				content[k] = po.encode()
			}
		case "tool_use":
			if a, ok := calls[po.str("id")]; ok && json.Valid([]byte(a)) {
				po.set("input", json.RawMessage(a))
				content[k] = po.encode()
			}
		}
	}
	msg.set("content", content)
	o.set("message", json.RawMessage(msg.encode()))
	return nil
}

func (claudeWriter) New(src *Source, c *Compaction) (Written, error) {
	return claudeRecords(src, c, newUUID())
}

// claudeRecords renders boundary, head copies, summary and tail copies. session, when set,
// replaces the session id in every record (a new session file).
func claudeRecords(src *Source, c *Compaction, session string) (Written, error) {
	type rec struct {
		b []byte
		m *Message
	}
	var head, tail []rec
	for _, zone := range []struct {
		ms  []Message
		out *[]rec
	}{{c.Head, &head}, {c.Tail, &tail}} {
		for i := range zone.ms {
			recs, err := src.records(&zone.ms[i])
			if err != nil {
				return Written{}, err
			}
			for _, b := range recs {
				*zone.out = append(*zone.out, rec{b, &zone.ms[i]})
			}
		}
	}
	all := append(append([]rec{}, head...), tail...)
	if len(all) == 0 {
		return Written{}, fmt.Errorf("%s: nothing kept to write the compaction after", src.Path)
	}
	last, err := parseObject(all[len(all)-1].b)
	if err != nil {
		return Written{}, fmt.Errorf("%s: %w", src.Path, err)
	}
	env := map[string]json.RawMessage{}
	for _, k := range claudeEnvelope {
		if v := last.get(k); v != nil {
			env[k] = v
		}
	}
	if session != "" {
		env["sessionId"], _ = marshal(session)
	}
	now := rfc3339ms(c.Now)

	newRec := func() *object {
		o := &object{vals: map[string]json.RawMessage{}}
		o.set("parentUuid", nil)
		o.set("isSidechain", false)
		for _, k := range claudeEnvelope {
			if v, ok := env[k]; ok {
				o.set(k, v)
			}
		}
		return o
	}
	meta := c.Meta
	meta.TailLines = 0 // the copies are the new file's own history
	boundary := claudeBoundary(newRec(), now, map[string]any{"trigger": "manual", "preTokens": c.Meta.TokensBefore}, meta)

	out := [][]byte{boundary.encode()}
	parent := boundary.str("uuid")
	uuids := map[string]string{} // original uuid → copy's
	msgIDs := map[string]string{}
	copyRec := func(b []byte, m *Message) error {
		o, err := parseObject(b)
		if err != nil {
			return fmt.Errorf("%s: a kept record: %w", src.Path, err)
		}
		if m.Edited {
			if err := claudeApplyEdits(o, m); err != nil {
				return fmt.Errorf("%s:%d: %w", src.Path, m.Line, err)
			}
			o.del("toolUseResult")
		}
		id := newUUID()
		if old := o.str("uuid"); old != "" {
			uuids[old] = id
		}
		o.set("uuid", id)
		o.set("parentUuid", parent)
		o.set("isSidechain", false) // a new main session, even from a subagent's transcript
		o.del("logicalParentUuid")
		if session != "" {
			o.set("sessionId", session)
		}
		if a := o.str("sourceToolAssistantUUID"); a != "" {
			if n, ok := uuids[a]; ok {
				o.set("sourceToolAssistantUUID", n)
			} else {
				o.del("sourceToolAssistantUUID")
			}
		}
		claudeRenameMessageID(o, msgIDs)
		parent = id
		out = append(out, o.encode())
		return nil
	}
	for _, r := range head {
		if err := copyRec(r.b, r.m); err != nil {
			return Written{}, err
		}
	}
	sum := claudeSummary(newRec(), parent, newUUID(), now, SummaryPreamble+c.Summary)
	out = append(out, sum.encode())
	parent = sum.str("uuid")
	for _, r := range tail {
		if err := copyRec(r.b, r.m); err != nil {
			return Written{}, err
		}
	}
	w := Written{Data: lines(out), Messages: len(c.Head) + 1 + len(c.Tail)}
	if session != "" {
		var cwd string
		json.Unmarshal(env["cwd"], &cwd)
		w.Session = session
		w.Resume = fmt.Sprintf("place it as ~/.claude/projects/%s/%s.jsonl, then: claude --resume %s", claudeProjectDir(cwd), session, session)
	}
	return w, nil
}

// claudeBoundary fills o (the session's envelope) as a compact_boundary record.
func claudeBoundary(o *object, now string, compactMetadata map[string]any, meta MarkerMeta) *object {
	o.set("type", "system")
	o.set("subtype", "compact_boundary")
	o.set("content", "Conversation compacted")
	o.set("isMeta", false)
	o.set("timestamp", now)
	o.set("uuid", newUUID())
	o.set("level", "info")
	o.set("compactMetadata", compactMetadata)
	o.set("ctxc", meta)
	return o
}

// claudeSummary fills o (the session's envelope) as the isCompactSummary user message.
func claudeSummary(o *object, parent, id, now, text string) *object {
	o.set("parentUuid", parent)
	o.set("type", "user")
	o.set("message", map[string]any{"role": "user", "content": text})
	o.set("isVisibleInTranscriptOnly", true)
	o.set("isCompactSummary", true)
	o.set("uuid", id)
	o.set("timestamp", now)
	return o
}

var claudeDirUnsafe = regexp.MustCompile(`[^A-Za-z0-9]`)

// claudeProjectDir is the folder name Claude Code keeps a working directory's sessions in.
func claudeProjectDir(cwd string) string { return claudeDirUnsafe.ReplaceAllString(cwd, "-") }

// claudeRenameMessageID gives the copy o of a Claude Code record a message.id of its own, the
// same for every copy of one original response (msgIDs: original → copy's). With the original
// id, Claude Code would gather the original records back into the copies' response, as it does
// for the blocks of parallel calls.
func claudeRenameMessageID(o *object, msgIDs map[string]string) {
	msg := o.get("message")
	if msg == nil {
		return
	}
	m, err := parseObject(msg)
	if err != nil {
		return
	}
	if old := m.str("id"); old != "" {
		n, ok := msgIDs[old]
		if !ok {
			n = "msg_ctxc_" + newHexID(24)
			msgIDs[old] = n
		}
		m.set("id", n)
		o.set("message", json.RawMessage(m.encode()))
	}
}
