package transcript

import (
	"encoding/json"
	"fmt"
	"regexp"
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
		return Written{}, &BusyError{Path: src.Path, Reason: "changed"}
	}
	return claudePreservedAppend(src, c)
}

// claudePreservedAppend is the in-place append: the boundary listing the tail's records, and
// the summary they hang off.
func claudePreservedAppend(src *Source, c *Compaction) (Written, error) {
	var uuids []string
	var last *object
	for i := range c.Tail {
		recs, err := src.records(&c.Tail[i])
		if err != nil {
			return Written{}, err
		}
		for _, b := range recs {
			o, err := parseObject(b)
			if err != nil {
				return Written{}, fmt.Errorf("%s:%d: %w", src.Path, c.Tail[i].Line, err)
			}
			u := o.str("uuid")
			if u == "" {
				return Written{}, fmt.Errorf("%s:%d: a kept record has no uuid", src.Path, c.Tail[i].Line)
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
	env.set("isSidechain", false)
	for _, k := range claudeEnvelope {
		if v := last.get(k); v != nil {
			env.set(k, v)
		}
	}
	now := rfc3339ms(c.Now)
	sumID := newUUID()
	meta := c.Meta
	meta.TailLines = 0
	cm := map[string]any{"trigger": "manual", "preTokens": c.Meta.TokensBefore}
	if len(uuids) > 0 {
		cm["preservedMessages"] = map[string]any{"anchorUuid": sumID, "uuids": uuids}
	}
	b := env.clone()
	if no, err := parseObject(newest); err == nil && no.str("uuid") != "" {
		b.set("logicalParentUuid", no.str("uuid"))
	}
	b.set("type", "system")
	b.set("subtype", "compact_boundary")
	b.set("content", "Conversation compacted")
	b.set("isMeta", false)
	b.set("timestamp", now)
	b.set("uuid", newUUID())
	b.set("level", "info")
	b.set("compactMetadata", cm)
	b.set("ctxc", meta)
	sum := env.clone()
	sum.set("parentUuid", b.str("uuid"))
	sum.set("type", "user")
	sum.set("message", map[string]any{"role": "user", "content": headedSummary(c)})
	sum.set("isVisibleInTranscriptOnly", true)
	sum.set("isCompactSummary", true)
	sum.set("uuid", sumID)
	sum.set("timestamp", now)
	return Written{Data: lines([][]byte{b.encode(), sum.encode()}), Messages: 1 + len(c.Tail)}, nil
}

func (claudeWriter) New(src *Source, c *Compaction) (Written, error) {
	return claudeRecords(src, c, newUUID())
}

// claudeRecords renders boundary, head copies, summary and tail copies. session, when set,
// replaces the session id in every record (a new session file).
func claudeRecords(src *Source, c *Compaction, session string) (Written, error) {
	var head, tail [][]byte
	for i := range c.Head {
		recs, err := src.records(&c.Head[i])
		if err != nil {
			return Written{}, err
		}
		head = append(head, recs...)
	}
	for i := range c.Tail {
		recs, err := src.records(&c.Tail[i])
		if err != nil {
			return Written{}, err
		}
		tail = append(tail, recs...)
	}
	all := append(append([][]byte{}, head...), tail...)
	if len(all) == 0 {
		return Written{}, fmt.Errorf("%s: nothing kept to write the compaction after", src.Path)
	}
	last, err := parseObject(all[len(all)-1])
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
	boundary := newRec()
	boundary.set("type", "system")
	boundary.set("subtype", "compact_boundary")
	boundary.set("content", "Conversation compacted")
	boundary.set("isMeta", false)
	boundary.set("timestamp", now)
	boundary.set("uuid", newUUID())
	boundary.set("level", "info")
	boundary.set("compactMetadata", map[string]any{"trigger": "manual", "preTokens": c.Meta.TokensBefore})
	boundary.set("ctxc", meta)

	out := [][]byte{boundary.encode()}
	parent := boundary.str("uuid")
	uuids := map[string]string{} // original uuid → copy's
	msgIDs := map[string]string{}
	copyRec := func(b []byte) error {
		o, err := parseObject(b)
		if err != nil {
			return fmt.Errorf("%s: a kept record: %w", src.Path, err)
		}
		id := newUUID()
		if old := o.str("uuid"); old != "" {
			uuids[old] = id
		}
		o.set("uuid", id)
		o.set("parentUuid", parent)
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
		if msg := o.get("message"); msg != nil {
			m, err := parseObject(msg)
			if err == nil {
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
		}
		parent = id
		out = append(out, o.encode())
		return nil
	}
	for _, b := range head {
		if err := copyRec(b); err != nil {
			return Written{}, err
		}
	}
	sum := newRec()
	sum.set("parentUuid", parent)
	sum.set("type", "user")
	sum.set("message", map[string]any{"role": "user", "content": SummaryPreamble + c.Summary})
	sum.set("isVisibleInTranscriptOnly", true)
	sum.set("isCompactSummary", true)
	sum.set("uuid", newUUID())
	sum.set("timestamp", now)
	out = append(out, sum.encode())
	parent = sum.str("uuid")
	for _, b := range tail {
		if err := copyRec(b); err != nil {
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

var claudeDirUnsafe = regexp.MustCompile(`[^A-Za-z0-9]`)

// claudeProjectDir is the folder name Claude Code keeps a working directory's sessions in.
func claudeProjectDir(cwd string) string { return claudeDirUnsafe.ReplaceAllString(cwd, "-") }
