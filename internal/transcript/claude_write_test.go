package transcript

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/claude"
	"github.com/tidwall/gjson"
)

// claudeCopySession is a Claude Code subagent session (every record a sidechain): one response
// in two records, two tool calls and their results, the newest record in another directory.
var claudeCopySession = []string{
	cc("user", "u1", "", "", `"start"`, `"isSidechain":true,"logicalParentUuid":"zz",`),
	cc("assistant", "a1", "u1", "msg_1", `[{"type":"text","text":"looking"}]`, `"isSidechain":true,`),
	cc("assistant", "a2", "a1", "msg_1", ccUse1, `"isSidechain":true,`),
	cc("user", "r1", "a2", "", `[{"type":"tool_result","tool_use_id":"toolu_01","content":"a.txt"}]`, `"isSidechain":true,"sourceToolAssistantUUID":"a2","toolUseResult":{"stdout":"a.txt"},`),
	cc("assistant", "a3", "r1", "msg_2", `[{"type":"tool_use","id":"toolu_02","name":"Bash","input":{"command":"cat"}}]`, `"isSidechain":true,`),
	cc("user", "r2", "a3", "", `[{"type":"tool_result","tool_use_id":"toolu_02","content":"b.txt"}]`, `"isSidechain":true,"sourceToolAssistantUUID":"a3","toolUseResult":{"stdout":"b.txt"},`),
	strings.Replace(cc("assistant", "a4", "r2", "msg_3", ccAnswer, `"isSidechain":true,`), `"cwd":"/w"`, `"cwd":"/w/sub dir"`, 1),
}

// TestClaudeNewFile: a new Claude Code file is the boundary, copies of the head's records, the
// summary, then copies of the tail's records, each the child of the one before under a fresh
// uuid, on the main chain of one new session. The copies of one response share a new message
// id; a result's link to the response whose call it answers follows that response's copy, or
// goes when the response was summarized; an edited message's copy holds its cut text.
func TestClaudeNewFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(claudeCopySession, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, msgs, err := LoadFile(p, Options{})
	if err != nil || len(msgs) != 6 {
		t.Fatalf("%d messages, %v", len(msgs), err)
	}
	src, err := OpenSource(p, res)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	for _, tc := range []struct {
		name       string
		head, tail int // messages kept before and after the summary
		edit       int // index of a tail message cut, -1 for none
		want       []string
	}{
		{"head and tail", 2, 2, -1, []string{"boundary", "user text", "assistant[m1] text", "assistant[m1] tool_use:toolu_01",
			"summary", "user tool_result:toolu_02=b.txt src=none", "assistant[m2] text"}},
		{"a tail holding the response of its result", 1, 5, -1, []string{"boundary", "user text", "summary",
			"assistant[m1] text", "assistant[m1] tool_use:toolu_01", "user tool_result:toolu_01=a.txt src=#5",
			"assistant[m2] tool_use:toolu_02", "user tool_result:toolu_02=b.txt src=#7", "assistant[m3] text"}},
		{"no head, an edited result", 0, 2, 0, []string{"boundary", "summary",
			"user tool_result:toolu_02=[cut] src=none", "assistant[m1] text"}},
		{"head only", 6, 0, -1, []string{"boundary", "user text", "assistant[m1] text", "assistant[m1] tool_use:toolu_01",
			"user tool_result:toolu_01=a.txt src=#4", "assistant[m2] tool_use:toolu_02", "user tool_result:toolu_02=b.txt src=#6",
			"assistant[m3] text", "summary"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms := cloneMessages(msgs)
			c := &Compaction{Summary: "what happened", Head: ms[:tc.head], Middle: ms[tc.head : len(ms)-tc.tail],
				Tail: ms[len(ms)-tc.tail:], Now: repairNow}
			c.Meta.TokensBefore, c.Meta.TailLines = 1234, 7
			if tc.edit >= 0 {
				m := &c.Tail[tc.edit]
				m.Edited = true
				m.Blocks[0].Text = "[cut]"
			}
			w, err := claude.Writer{}.New(src, c)
			if err != nil {
				t.Fatal(err)
			}
			if w.Messages != tc.head+1+tc.tail || !uuidShape.MatchString(w.Session) {
				t.Errorf("Messages %d, Session %q", w.Messages, w.Session)
			}
			if want := "~/.claude/projects/-w-sub-dir/" + w.Session + ".jsonl"; !strings.Contains(w.Resume, want) {
				t.Errorf("Resume %q does not say %q", w.Resume, want)
			}
			recs := jsonLines(t, w.Data)
			if got := describeNewClaude(t, recs, w.Session); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), w.Data)
			}
			b, sum := recs[0], recs[0]
			for _, r := range recs {
				if r.Get("isCompactSummary").Bool() {
					sum = r
				}
				if r.Get("message.content.0.content").String() == "[cut]" && r.Get("toolUseResult").Exists() {
					t.Errorf("the copy of a cut result keeps the full output: %s", r.Raw)
				}
			}
			if b.Get("cwd").String() != "/w/sub dir" || sum.Get("cwd").String() != "/w/sub dir" {
				t.Errorf("boundary and summary not in the newest record's envelope: %s\n%s", b.Raw, sum.Raw)
			}
			if b.Get("compactMetadata.preTokens").Int() != 1234 || b.Get("compactMetadata.trigger").String() != "manual" ||
				b.Get("ctxc.tail_lines").Int() != 0 || b.Get("ctxc.tokens_before").Int() != 1234 {
				t.Errorf("boundary metadata: %s", b.Raw)
			}
			if sum.Get("message.content").String() != SummaryPreamble+"what happened" {
				t.Errorf("summary: %s", sum.Raw)
			}
		})
	}
}

// TestClaudeRecordsInSession: without a new session id, the copies keep the session they had
// and no resume command is given; with nothing kept there is nothing to chain the summary to.
func TestClaudeRecordsInSession(t *testing.T) {
	p := filepath.Join(t.TempDir(), "s.jsonl")
	os.WriteFile(p, []byte(strings.Join(claudeCopySession, "\n")+"\n"), 0o644)
	res, msgs, err := LoadFile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := OpenSource(p, res)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	w, err := claude.Records(src, &Compaction{Summary: "s", Head: msgs[:1], Tail: msgs[5:], Now: repairNow}, "")
	if err != nil {
		t.Fatal(err)
	}
	if w.Session != "" || w.Resume != "" {
		t.Errorf("Session %q Resume %q, want none", w.Session, w.Resume)
	}
	recs := jsonLines(t, w.Data)
	want := []string{"boundary", "user text", "summary", "assistant[m1] text"}
	if got := describeNewClaude(t, recs, "s1"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if _, err := claude.Records(src, &Compaction{Summary: "s", Middle: msgs, Now: repairNow}, ""); err == nil ||
		!strings.Contains(err.Error(), "nothing kept") {
		t.Errorf("nothing kept: error %v", err)
	}
}

// cloneMessages copies ms with their blocks, to edit without touching the loaded context.
func cloneMessages(ms []Message) []Message {
	out := make([]Message, len(ms))
	for i, m := range ms {
		m.Blocks = append([]Block(nil), m.Blocks...)
		out[i] = m
	}
	return out
}

// describeNewClaude checks that recs are chained one after the other from a root, under fresh
// uuids, on the main chain of session, with no link back to the old chain; and describes each: "boundary",
// "summary", or its role, new message id (m1, m2, ...), blocks and result texts, and where its
// sourceToolAssistantUUID points ("src=#k": record k; "src=none": no such field).
func describeNewClaude(t *testing.T, recs []gjson.Result, session string) []string {
	t.Helper()
	at := map[string]int{}
	msgIDs := map[string]string{}
	parent := "null"
	var out []string
	for k, r := range recs {
		id := r.Get("uuid").String()
		if got := r.Get("parentUuid").Raw; got != parent {
			t.Errorf("record %d: parent %s, want %s", k, got, parent)
		}
		if !uuidShape.MatchString(id) || at[id] != 0 {
			t.Errorf("record %d: uuid %q is not a fresh one", k, id)
		}
		at[id] = k + 1
		parent = `"` + id + `"`
		if r.Get("sessionId").String() != session || r.Get("isSidechain").Raw != "false" ||
			r.Get("logicalParentUuid").Exists() {
			t.Errorf("record %d: %s", k, r.Raw)
		}
		switch {
		case r.Get("subtype").String() == "compact_boundary":
			out = append(out, "boundary")
			continue
		case r.Get("isCompactSummary").Bool():
			out = append(out, "summary")
			continue
		}
		d := describeRole(t, k, r, msgIDs)
		c := r.Get("message.content")
		if c.Type == gjson.String {
			d += " text"
		}
		for _, b := range c.Array() {
			if c.Type != gjson.JSON {
				break
			}
			d += " " + b.Get("type").String()
			if bid := b.Get("id").String() + b.Get("tool_use_id").String(); bid != "" {
				d += ":" + bid
			}
			if b.Get("type").String() == "tool_result" {
				d += "=" + b.Get("content").String()
			}
		}
		if s := r.Get("sourceToolAssistantUUID"); s.Exists() {
			d += fmt.Sprintf(" src=#%d", at[s.String()])
		} else if strings.HasPrefix(d, "user tool_result") {
			d += " src=none"
		}
		out = append(out, d)
	}
	return out
}
