package conv

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// What several agents' compaction writers share: fresh ids, JSONL output, the summary that
// holds the head, copies of the tail's records.

// NewUUID is a random RFC 4122 version 4 UUID.
func NewUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// Lines joins records into JSONL, valid UTF-8 (records carried over byte for byte may hold
// bytes that are not: they are written as \ufffd, jsonl.AppendValidUTF8).
func Lines(recs [][]byte) []byte {
	var out []byte
	for _, r := range recs {
		out, _ = jsonl.AppendValidUTF8(out, r)
		out = append(out, '\n')
	}
	return out
}

// headText is the text of the head messages for formats that cannot keep the head by reference
// (pi): said at the start of the summary, verbatim.
func headText(head []Message) string {
	var b strings.Builder
	for i := range head {
		m := &head[i]
		t := m.TextContent()
		if m.Summary {
			t = strings.TrimPrefix(t, SummaryPreamble)
		}
		if strings.TrimSpace(t) == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "[%s]\n%s", m.Role, t)
	}
	return b.String()
}

// RFC3339ms is t in UTC as RFC 3339 with milliseconds, as the agents write their timestamps.
func RFC3339ms(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// The head section of a summary that holds the head (pi, Claude Code in place): formats whose
// compaction keeps the tail by reference cannot keep the head before the summary, so the
// summary says what the head held, verbatim, between HeadOpen and HeadClose.
const (
	HeadOpen  = "The session began with:\n<ctxc-head>\n"
	HeadClose = "\n</ctxc-head>\n\n"
)

// HeadedSummary is the text of a summary that holds the head: ctxc's preamble, the head's
// section, then the summary. A head already summarized (the context starts with such a
// summary, which planning puts in the middle) is carried on from it, so the task survives any
// number of compactions verbatim.
func HeadedSummary(c *Compaction) string {
	head := headText(c.Head)
	if head == "" {
		for i := range c.Middle {
			if c.Middle[i].Summary {
				head = HeadSection(c.Middle[i].TextContent())
				break
			}
			if c.Middle[i].IsUserTurn() {
				break
			}
		}
	}
	var b strings.Builder
	b.WriteString(SummaryPreamble)
	if head != "" {
		b.WriteString(HeadOpen)
		b.WriteString(head)
		b.WriteString(HeadClose)
	}
	b.WriteString(c.Summary)
	return b.String()
}

// HeadSection returns the head section of a summary ctxc wrote with the head ("" if none).
func HeadSection(summary string) string {
	_, rest, ok := strings.Cut(summary, HeadOpen)
	if !ok {
		return ""
	}
	head, _, ok := strings.Cut(rest, HeadClose)
	if !ok {
		return ""
	}
	return head
}

// CopyTailRecords copies the records of the tail's messages under fresh ids, each made the
// child of the one before (starting from parent, "" for none), as an agent that chains its
// records by id needs its tail copied; edit writes an emergency cut into a copy.
func CopyTailRecords(src *Source, c *Compaction, agent, parent string, edit func(*Object, *Message)) ([][]byte, error) {
	var out [][]byte
	for i := range c.Tail {
		m := &c.Tail[i]
		recs, err := src.Records(m)
		if err != nil {
			return nil, err
		}
		for _, r := range recs {
			if r == nil {
				return nil, fmt.Errorf("%s: a message ctxc made cannot be copied into a %s session", src.Path, agent)
			}
			o, err := ParseObject(r)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: %w", src.Path, m.Line, err)
			}
			if m.Edited {
				edit(o, m)
			}
			id := NewUUID()
			o.Set("id", id)
			if parent != "" {
				o.Set("parentId", parent)
			} else {
				o.Del("parentId")
			}
			parent = id
			out = append(out, o.Encode())
		}
	}
	return out, nil
}

// MetaOf is ctxc's provenance as a record carries it (its "ctxc" member), nil when it has none.
func MetaOf(v jsonl.Value) *MarkerMeta {
	if !v.IsObject() {
		return nil
	}
	var m MarkerMeta
	if json.Unmarshal([]byte(v), &m) != nil {
		return nil
	}
	return &m
}

// IsNumber reports whether v is a JSON number.
func IsNumber(v jsonl.Value) bool {
	return len(v) > 0 && (v[0] == '-' || (v[0] >= '0' && v[0] <= '9'))
}

// ParentOrNil is an event's parentId: the id, or null for the first event.
func ParentOrNil(id string) any {
	if id == "" {
		return nil
	}
	return id
}

// NewHexID is a random id of n hex digits (pi's entry ids are 8).
func NewHexID(n int) string {
	b := make([]byte, (n+1)/2)
	rand.Read(b)
	return hex.EncodeToString(b)[:n]
}

// NewUUIDv7 is a time-ordered UUID, the kind Codex gives its sessions.
func NewUUIDv7(t time.Time) string {
	u := []byte(NewUUID())
	ms := fmt.Sprintf("%012x", t.UnixMilli())
	copy(u[0:8], ms[0:8])
	copy(u[9:13], ms[8:12])
	u[14] = '7'
	return string(u)
}
