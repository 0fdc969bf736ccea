package transcript

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/agent/codex"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/tidwall/gjson"
)

var repairNow = time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)

// repairSession writes lines as a session file, loads it and plans its repair.
func repairSession(t *testing.T, lines []string) (RepairPlan, error) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, msgs, err := LoadFile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	src, err := OpenSource(p, res)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	return PlanRepair(src, res.Stats.Format, msgs, repairNow)
}

// cc is a Claude Code record; content is the message content as JSON, msgID the assistant's
// message id; extra fields go before the message.
func cc(typ, uuid, parent, msgID, content, extra string) string {
	p := "null"
	if parent != "" {
		p = `"` + parent + `"`
	}
	msg := `{"role":"user","content":` + content + `}`
	if typ == "assistant" {
		msg = `{"id":"` + msgID + `","role":"assistant","content":` + content + `}`
	}
	return `{"type":"` + typ + `","uuid":"` + uuid + `","parentUuid":` + p + `,"sessionId":"s1","cwd":"/w",` + extra +
		`"timestamp":"2026-05-01T10:00:00.000Z","message":` + msg + `}`
}

// pe is a pi entry.
func pe(id, parent, msg string) string {
	return `{"type":"message","id":"` + id + `","parentId":"` + parent + `","timestamp":"2026-05-12T01:02:28.000Z","message":` + msg + `}`
}

// cx is a Codex response item.
func cx(item string) string {
	return `{"timestamp":"2026-03-01T09:00:01.000Z","type":"response_item","payload":` + item + `}`
}

const (
	piHead   = `{"type":"session","version":3,"id":"019e19b4-eb48-746a-aa6b-8dfcfa3795a1","timestamp":"2026-05-12T01:02:27.657Z","cwd":"/w"}`
	codexTop = `{"timestamp":"2026-03-01T09:00:00.000Z","type":"session_meta","payload":{"id":"019c0000-0000-7000-8000-0000000000a1","timestamp":"2026-03-01T09:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.140.0","source":"cli","model_provider":"openai"}}`
	ccUse1   = `[{"type":"tool_use","id":"toolu_01","name":"Bash","input":{}}]`
	ccText   = `"what is 2+2?"`
	ccAnswer = `[{"type":"text","text":"4"}]`
)

var (
	uuidShape  = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	piIDShape  = regexp.MustCompile(`^[0-9a-f]{8}$`)
	stampOfNow = conv.RFC3339ms(repairNow)
)

// TestPlanRepairTree: the copies a Claude Code or pi session gets, each the child of the one
// before from the parent of the first broken response on, with a call left open answered by
// RepairResultText, a late result moved right after its call, and a result without a call left
// out (alone in its record or beside other blocks).
func TestPlanRepairTree(t *testing.T) {
	for _, tc := range []struct {
		name                         string
		lines                        []string
		parent                       string // the parent of the first copy, as JSON
		want                         []string
		placeholders, moved, dropped int
	}{
		{
			name: "claude open call, a response in two records",
			lines: []string{
				cc("user", "u1", "", "", `"list the files"`, ""),
				cc("assistant", "a1", "u1", "msg_1", `[{"type":"text","text":"looking"}]`, ""),
				cc("assistant", "a2", "a1", "msg_1", ccUse1, ""),
				cc("user", "u2", "a2", "", ccText, ""),
				cc("assistant", "a3", "u2", "msg_2", ccAnswer, ""),
			},
			parent: `"u1"`,
			want: []string{"assistant[m1] text", "assistant[m1] tool_use:toolu_01", "user tool_result:toolu_01!@now",
				"user text", "assistant[m2] text"},
			placeholders: 1,
		},
		{
			name: "claude late result, moved",
			lines: []string{
				cc("user", "u1", "", "", `"list the files"`, ""),
				cc("assistant", "a1", "u1", "msg_1", ccUse1, ""),
				cc("user", "u2", "a1", "", ccText, ""),
				cc("assistant", "a2", "u2", "msg_2", ccAnswer, ""),
				cc("user", "r1", "a2", "", `[{"type":"tool_result","tool_use_id":"toolu_01","content":"a.txt"}]`, `"sourceToolAssistantUUID":"a1",`),
			},
			parent: `"u1"`,
			want:   []string{"assistant[m1] tool_use:toolu_01", "user tool_result:toolu_01=a.txt@now", "user text", "assistant[m2] text"},
			moved:  1,
		},
		{
			name: "claude result without a call beside one with a call",
			lines: []string{
				cc("user", "u1", "", "", `"list the files"`, ""),
				cc("assistant", "a1", "u1", "msg_1", ccUse1, ""),
				cc("user", "r1", "a1", "", `[{"type":"tool_result","tool_use_id":"toolu_01","content":"a.txt"},{"type":"tool_result","tool_use_id":"toolu_99","content":"stray"}]`, `"sourceToolAssistantUUID":"a1",`),
				cc("assistant", "a2", "r1", "msg_2", ccAnswer, ""),
			},
			parent:  `"a1"`,
			want:    []string{"user tool_result:toolu_01=a.txt", "assistant[m1] text"},
			dropped: 1,
		},
		{
			name: "claude result record left out whole",
			lines: []string{
				cc("user", "u1", "", "", `"list the files"`, ""),
				cc("assistant", "a1", "u1", "msg_1", ccAnswer, ""),
				cc("user", "r1", "a1", "", `[{"type":"tool_result","tool_use_id":"toolu_99","content":"stray"}]`, ""),
				cc("user", "u2", "r1", "", ccText, ""),
			},
			parent:  `"a1"`,
			want:    []string{"user text"},
			dropped: 1,
		},
		{
			name: "claude, from a record without a parent field",
			lines: []string{
				`{"type":"assistant","uuid":"a1","sessionId":"s1","message":{"id":"msg_1","role":"assistant","content":` + ccUse1 + `}}`,
				cc("user", "u2", "a1", "", ccText, ""),
			},
			parent:       `null`,
			want:         []string{"assistant[m1] tool_use:toolu_01", "user tool_result:toolu_01!@now", "user text"},
			placeholders: 1,
		},
		{
			name: "pi open call",
			lines: []string{
				piHead,
				pe("e0000001", "", `{"role":"user","content":[{"type":"text","text":"list the files"}],"timestamp":1}`),
				pe("a0000001", "e0000001", `{"role":"assistant","content":[{"type":"toolCall","id":"call_01","name":"bash","arguments":{}}],"stopReason":"toolUse","timestamp":2}`),
				pe("e0000002", "a0000001", `{"role":"user","content":[{"type":"text","text":"what is 2+2?"}],"timestamp":3}`),
			},
			parent:       `"e0000001"`,
			want:         []string{"assistant toolCall:call_01", "toolResult toolResult:call_01!@now", "user text"},
			placeholders: 1,
		},
		{
			name: "pi late result, moved",
			lines: []string{
				piHead,
				pe("e0000001", "", `{"role":"user","content":[{"type":"text","text":"list the files"}],"timestamp":1}`),
				pe("a0000001", "e0000001", `{"role":"assistant","content":[{"type":"toolCall","id":"call_01","name":"bash","arguments":{}}],"stopReason":"toolUse","timestamp":2}`),
				pe("e0000002", "a0000001", `{"role":"user","content":[{"type":"text","text":"what is 2+2?"}],"timestamp":3}`),
				pe("a0000002", "e0000002", `{"role":"assistant","content":[{"type":"text","text":"4"}],"stopReason":"stop","timestamp":4}`),
				pe("r0000001", "a0000002", `{"role":"toolResult","toolCallId":"call_01","toolName":"bash","content":[{"type":"text","text":"a.txt"}],"isError":false,"timestamp":5}`),
			},
			parent: `"e0000001"`,
			want:   []string{"assistant toolCall:call_01", "toolResult toolResult:call_01=a.txt", "user text", "assistant text"},
			moved:  1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := repairSession(t, tc.lines)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Placeholders != tc.placeholders || plan.Moved != tc.moved || plan.Dropped != tc.dropped {
				t.Errorf("counts %+v, want placeholders %d moved %d dropped %d", plan, tc.placeholders, tc.moved, tc.dropped)
			}
			recs := jsonLines(t, plan.Data)
			if plan.Records != len(recs) {
				t.Errorf("Records %d, %d lines", plan.Records, len(recs))
			}
			if got := describeTree(t, recs, tc.parent); strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"), plan.Data)
			}
		})
	}
}

// TestPlanRepairClaudeLinks: a copied result record names the copy of the response whose call
// it answers, and the records of that response share one new message id.
func TestPlanRepairClaudeLinks(t *testing.T) {
	plan, err := repairSession(t, []string{
		cc("user", "u1", "", "", `"list the files"`, ""),
		cc("assistant", "a1", "u1", "msg_1", ccUse1, ""),
		cc("assistant", "a2", "a1", "msg_1", `[{"type":"tool_use","id":"toolu_02","name":"Bash","input":{}}]`, ""),
		cc("user", "r1", "a2", "", `[{"type":"tool_result","tool_use_id":"toolu_01","content":"a.txt"}]`, `"sourceToolAssistantUUID":"a1",`),
		cc("user", "u2", "r1", "", ccText, `"logicalParentUuid":"x",`),
	})
	if err != nil {
		t.Fatal(err)
	}
	recs := jsonLines(t, plan.Data)
	want := []string{"assistant[m1] tool_use:toolu_01", "assistant[m1] tool_use:toolu_02", "user tool_result:toolu_02!@now",
		"user tool_result:toolu_01=a.txt", "user text"}
	if got := describeTree(t, recs, `"u1"`); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if got, want := recs[3].Get("sourceToolAssistantUUID").String(), recs[0].Get("uuid").String(); got != want {
		t.Errorf("sourceToolAssistantUUID %q, want the response's copy %q", got, want)
	}
	for _, r := range recs {
		if r.Get("logicalParentUuid").Exists() {
			t.Errorf("a copy keeps logicalParentUuid: %s", r.Raw)
		}
	}
}

// TestPlanRepairCodex: one compacted item whose replacement_history is the repaired context:
// open calls answered in their call's output type, late outputs moved, stray outputs left out,
// messages Codex rebuilt written as messages.
func TestPlanRepairCodex(t *testing.T) {
	legacy := `{"timestamp":"2025-10-01T08:10:00.000Z","type":"compacted","payload":{"message":"` + codex.SummaryPrefix + ` summary"}}`
	for _, tc := range []struct {
		name                         string
		lines                        []string
		want                         []string
		placeholders, moved, dropped int
	}{
		{
			name: "open calls",
			lines: []string{codexTop,
				cx(`{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]}`),
				cx(`{"type":"function_call","name":"shell","arguments":"{}","call_id":"call_f"}`),
				cx(`{"type":"custom_tool_call","name":"apply_patch","input":"x","call_id":"call_c"}`),
				cx(`{"type":"message","role":"user","content":[{"type":"input_text","text":"what is 2+2?"}]}`),
			},
			want: []string{"message:user=list the files", "function_call:call_f", "custom_tool_call:call_c",
				"function_call_output:call_f!", "custom_tool_call_output:call_c!", "message:user=what is 2+2?"},
			placeholders: 2,
		},
		{
			name: "late and stray outputs",
			lines: []string{codexTop,
				cx(`{"type":"message","role":"user","content":[{"type":"input_text","text":"list the files"}]}`),
				cx(`{"type":"function_call","name":"shell","arguments":"{}","call_id":"call_f"}`),
				cx(`{"type":"message","role":"user","content":[{"type":"input_text","text":"what is 2+2?"}]}`),
				cx(`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"4"}]}`),
				cx(`{"type":"function_call_output","call_id":"call_f","output":"a.txt"}`),
				cx(`{"type":"function_call_output","call_id":"call_zz","output":"stray"}`),
				cx(`{"type":"message","role":"user","content":[{"type":"input_text","text":"thanks"}]}`),
			},
			want: []string{"message:user=list the files", "function_call:call_f", "function_call_output:call_f=a.txt",
				"message:user=what is 2+2?", "message:assistant=4", "message:user=thanks"},
			moved:   1,
			dropped: 1,
		},
		{
			name: "after a compaction Codex rebuilds",
			lines: []string{codexTop,
				cx(`{"type":"message","role":"user","content":[{"type":"input_text","text":"first task"}]}`),
				legacy,
				cx(`{"type":"function_call","name":"shell","arguments":"{}","call_id":"call_f"}`),
				cx(`{"type":"message","role":"user","content":[{"type":"input_text","text":"what is 2+2?"}]}`),
			},
			want: []string{"message:user=first task", "message:user=" + codex.SummaryPrefix + " summary", "function_call:call_f",
				"function_call_output:call_f!", "message:user=what is 2+2?"},
			placeholders: 1,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := repairSession(t, tc.lines)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Placeholders != tc.placeholders || plan.Moved != tc.moved || plan.Dropped != tc.dropped {
				t.Errorf("counts %+v, want placeholders %d moved %d dropped %d", plan, tc.placeholders, tc.moved, tc.dropped)
			}
			recs := jsonLines(t, plan.Data)
			if plan.Records != 1 || len(recs) != 1 {
				t.Fatalf("want one compacted item, got %d (Records %d)", len(recs), plan.Records)
			}
			c := recs[0]
			if c.Get("type").String() != "compacted" || c.Get("timestamp").String() != stampOfNow || !c.Get("payload.message").Exists() {
				t.Errorf("not a compacted item of now: %s", c.Raw)
			}
			var got []string
			for _, it := range c.Get("payload.replacement_history").Array() {
				d := it.Get("type").String() + ":" + it.Get("call_id").String() + it.Get("role").String()
				switch out := it.Get("output").String(); {
				case out == RepairResultText:
					d += "!"
				case out != "":
					d += "=" + out
				}
				if text := it.Get("content.0.text").String(); text != "" {
					d += "=" + text
				}
				got = append(got, d)
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestPlanRepairRefuses: nothing to write when calls and results pair up; an error for a pi v1
// session (entries without ids) and for a format without records of its own.
func TestPlanRepairRefuses(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lines   []string
		wantErr string
	}{
		{"paired", []string{
			cc("user", "u1", "", "", `"list the files"`, ""),
			cc("assistant", "a1", "u1", "msg_1", ccUse1, ""),
			cc("user", "r1", "a1", "", `[{"type":"tool_result","tool_use_id":"toolu_01","content":"a.txt"}]`, ""),
		}, ""},
		{"pi v1", []string{
			`{"type":"session","id":"5b0c7e9a-1111-4222-8333-944455566677","timestamp":"2025-11-20T10:00:00.000Z","cwd":"/w"}`,
			`{"type":"message","timestamp":"2025-11-20T10:00:01.000Z","message":{"role":"user","content":[{"type":"text","text":"list"}],"timestamp":1}}`,
			`{"type":"message","timestamp":"2025-11-20T10:00:02.000Z","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"read","arguments":{}}],"stopReason":"toolUse","timestamp":2}}`,
			`{"type":"message","timestamp":"2025-11-20T10:00:03.000Z","message":{"role":"user","content":[{"type":"text","text":"what is 2+2?"}],"timestamp":3}}`,
		}, "pi v1 session"},
		{"openai", []string{
			`{"role":"user","content":"list"}`,
			`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"ls","arguments":"{}"}}]}`,
			`{"role":"user","content":"what is 2+2?"}`,
		}, "use ctxc load"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := repairSession(t, tc.lines)
			if tc.wantErr == "" {
				if err != nil || plan.Data != nil || plan.Records != 0 {
					t.Errorf("got %+v %v, want nothing to repair", plan, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("error %v, want one saying %q", err, tc.wantErr)
			}
		})
	}
}

// jsonLines parses records written as JSONL, each line ended.
func jsonLines(t *testing.T, data []byte) []gjson.Result {
	t.Helper()
	if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
		t.Fatalf("records without their line end: %q", data)
	}
	var out []gjson.Result
	for _, l := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if len(l) == 0 {
			continue
		}
		if !gjson.ValidBytes(l) {
			t.Fatalf("not JSON: %s", l)
		}
		out = append(out, gjson.ParseBytes(l))
	}
	return out
}

// describeRole describes record k's message by its role and, when it has a provider message id,
// that id as m1, m2, ... in order of first appearance (msgIDs); an id must be one ctxc made anew.
func describeRole(t *testing.T, k int, r gjson.Result, msgIDs map[string]string) string {
	t.Helper()
	d := r.Get("message.role").String()
	if id := r.Get("message.id").String(); id != "" {
		if !strings.HasPrefix(id, "msg_ctxc_") {
			t.Errorf("record %d: message id %q kept", k, id)
		}
		if msgIDs[id] == "" {
			msgIDs[id] = fmt.Sprintf("m%d", len(msgIDs)+1)
		}
		d += "[" + msgIDs[id] + "]"
	}
	return d
}

// describeTree checks that the records of a Claude Code or pi repair are chained one after the
// other under fresh ids from parent, and describes each: its role, new message id (m1, m2, ...),
// blocks, "!" for a RepairResultText error, "=text" for a result's text, "@now" when made anew.
func describeTree(t *testing.T, recs []gjson.Result, parent string) []string {
	t.Helper()
	msgIDs := map[string]string{}
	var out []string
	for k, r := range recs {
		idKey, parentKey, shape := "uuid", "parentUuid", uuidShape
		if r.Get("id").Exists() {
			idKey, parentKey, shape = "id", "parentId", piIDShape
		}
		if got := r.Get(parentKey).Raw; got != parent {
			t.Errorf("record %d: parent %s, want %s", k, got, parent)
		}
		if !shape.MatchString(r.Get(idKey).String()) {
			t.Errorf("record %d: id %q is not a fresh one", k, r.Get(idKey).String())
		}
		parent = `"` + r.Get(idKey).String() + `"`
		d := describeRole(t, k, r, msgIDs)
		c := r.Get("message.content")
		if c.Type == gjson.String {
			d += " text"
			c = gjson.Result{}
		}
		if tcid := r.Get("message.toolCallId").String(); tcid != "" {
			c = gjson.Parse(`[{"type":"toolResult","id":"` + tcid + `"}]`)
			if r.Get("message.isError").Bool() && r.Get("message.content.0.text").String() == RepairResultText {
				d += " toolResult:" + tcid + "!"
			} else {
				d += " toolResult:" + tcid + "=" + r.Get("message.content.0.text").String()
			}
			c = gjson.Result{}
		}
		for _, b := range c.Array() {
			d += " " + b.Get("type").String()
			if id := b.Get("id").String() + b.Get("tool_use_id").String(); id != "" {
				d += ":" + id
			}
			if b.Get("type").String() == "tool_result" {
				if b.Get("is_error").Bool() && b.Get("content").String() == RepairResultText {
					d += "!"
				} else {
					d += "=" + b.Get("content").String()
				}
			}
		}
		if r.Get("timestamp").String() == stampOfNow {
			d += "@now"
		}
		out = append(out, d)
	}
	return out
}
