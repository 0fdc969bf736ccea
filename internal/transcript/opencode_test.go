package transcript

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ctxc/ctxc/internal/agent/opencode"
)

// opencodeLine is one message as internal/agent/opencode/opencodestore exports it.
func opencodeLine(id, role, info, parts string) string {
	if info != "" {
		info = "," + info
	}
	return `{"info":{"role":"` + role + `","time":{"created":1}` + info + `,"id":"` + id + `","sessionID":"ses_a"},"parts":[` + parts + `]}`
}

func opencodeText(t string) string { return `{"type":"text","text":"` + t + `"}` }

const opencodeStep = `{"type":"step-start"}`

// opencodeContext loads lines as a file and says its context: one "role:text" per message, the
// texts of its blocks joined by "|" (a call as "call:ID", a result as "result:ID=TEXT", a
// summary's role marked "S").
func opencodeContext(t *testing.T, lines ...string) (string, Stats) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, msgs, err := LoadFile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range msgs {
		var texts []string
		for _, b := range m.Blocks {
			switch b.Kind {
			case BlockToolCall:
				texts = append(texts, "call:"+b.ID+"="+b.Name+b.Args)
			case BlockToolResult:
				texts = append(texts, "result:"+b.ID+"="+b.Text)
			case BlockThinking:
				texts = append(texts, "think:"+b.Text)
			default:
				texts = append(texts, b.Text)
			}
		}
		role := string(m.Role)
		if m.Summary {
			role = "S" + role
		}
		out = append(out, role+":"+strings.Join(texts, "|"))
	}
	return strings.Join(out, " / "), *res.Stats
}

// The conversation before a compaction: a prompt, a step of a tool call and a step of text.
var opencodeBefore = []string{
	opencodeLine("msg_1", "user", "", opencodeText("look")),
	opencodeLine("msg_2", "assistant", `"parentID":"msg_1","finish":"stop"`, opencodeStep+`,{"type":"reasoning","text":"hm"},`+
		`{"type":"tool","tool":"read","callID":"c1","state":{"status":"completed","input":{"filePath":"/n"},"output":"hello"}},`+
		`{"type":"step-finish"},`+opencodeStep+`,`+opencodeText("Done.")),
	opencodeLine("msg_4", "user", "", opencodeText("second")),
	opencodeLine("msg_5", "assistant", `"parentID":"msg_4","finish":"stop"`, opencodeStep+`,`+opencodeText("OK")),
}

// TestOpencodeReloadRule: the context opencode rebuilds (MessageV2.filterCompacted and
// toModelMessages of opencode 1.18.33).
func TestOpencodeReloadRule(t *testing.T) {
	summary := func(info string) string {
		return opencodeLine("msg_7", "assistant", `"parentID":"msg_6","summary":true,"mode":"compaction"`+info, opencodeStep+`,`+opencodeText("the summary"))
	}
	after := []string{
		opencodeLine("msg_8", "user", "", `{"type":"text","text":"Continue","synthetic":true}`),
		opencodeLine("msg_9", "assistant", `"parentID":"msg_8","finish":"stop"`, opencodeStep+`,`+opencodeText("OK")),
	}
	whole := "user:look / assistant:think:hm|call:c1=read{\"filePath\":\"/n\"} / tool:result:c1=hello / assistant:Done. / user:second / assistant:OK"
	for _, tc := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"no compaction", opencodeBefore, whole},
		{"a compaction without a kept tail", concat(opencodeBefore,
			opencodeLine("msg_6", "user", "", `{"type":"compaction","auto":true}`), summary(`,"finish":"stop"`), after),
			"user:What did we do so far? / Sassistant:the summary / user:Continue / assistant:OK"},
		{"a compaction that keeps a tail from msg_4", concat(opencodeBefore,
			opencodeLine("msg_6", "user", "", `{"type":"compaction","auto":true,"tail_start_id":"msg_4"}`), summary(`,"finish":"stop"`), after),
			"user:What did we do so far? / Sassistant:the summary / user:second / assistant:OK / user:Continue / assistant:OK"},
		{"a summary that failed is no compaction", concat(opencodeBefore,
			opencodeLine("msg_6", "user", "", `{"type":"compaction","auto":true}`),
			summary(`,"finish":"error","error":{"name":"ContextOverflowError","data":{}}`), after),
			whole + " / user:What did we do so far? / user:Continue / assistant:OK"},
		{"a summary not finished is no compaction", concat(opencodeBefore,
			opencodeLine("msg_6", "user", "", `{"type":"compaction","auto":true}`), summary(""), after),
			whole + " / user:What did we do so far? / Sassistant:the summary / user:Continue / assistant:OK"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, st := opencodeContext(t, tc.lines...)
			if got != tc.want {
				t.Errorf("context:\n got %s\nwant %s", got, tc.want)
			}
			if st.Format != FormatOpencode {
				t.Errorf("format %q", st.Format)
			}
		})
	}
}

// TestOpencodeParts: what opencode sends of each kind of part.
func TestOpencodeParts(t *testing.T) {
	tool := func(id, state string) string {
		return `{"type":"tool","tool":"bash","callID":"` + id + `","state":{"input":{"command":"ls"},` + state + `}}`
	}
	got, st := opencodeContext(t,
		opencodeLine("msg_1", "user", "", `{"type":"text","text":"shown","ignored":true},`+opencodeText("")+`,`+opencodeText("asked")+
			`,{"type":"file","mime":"text/plain","url":"file:///a"},{"type":"subtask","prompt":"p","description":"d","agent":"a"}`),
		opencodeLine("msg_2", "assistant", `"parentID":"msg_1","finish":"tool-calls"`, opencodeStep+`,`+
			tool("c1", `"status":"completed","output":"big","time":{"start":1,"end":2,"compacted":3}`)+`,`+
			tool("c2", `"status":"error","error":"boom"`)+`,`+
			tool("c3", `"status":"error","error":"stopped","metadata":{"interrupted":true,"output":"half"}`)+`,`+
			tool("c4", `"status":"running"`)),
		opencodeLine("msg_3", "assistant", `"parentID":"msg_1","error":{"name":"APIError","data":{}}`, opencodeStep+`,`+opencodeText("lost")),
		opencodeLine("msg_4", "assistant", `"parentID":"msg_1","error":{"name":"MessageAbortedError","data":{}}`, opencodeStep+`,`+opencodeText("kept")),
		opencodeLine("msg_5", "assistant", `"parentID":"msg_1","error":{"name":"MessageAbortedError","data":{}}`, opencodeStep+`,{"type":"reasoning","text":"only"}`),
	)
	want := `user:asked|The following tool was executed by the user / assistant:call:c1=bash{"command":"ls"}|call:c2=bash{"command":"ls"}|call:c3=bash{"command":"ls"}|call:c4=bash{"command":"ls"}` +
		` / tool:result:c1=[Old tool result content cleared]|result:c2=boom|result:c3=half|result:c4=[Tool execution was interrupted] / assistant:kept`
	if got != want {
		t.Errorf("context:\n got %s\nwant %s", got, want)
	}
	if st.ToolCalls != 4 || st.ToolResults != 4 {
		t.Errorf("calls %d, results %d; want 4 and 4", st.ToolCalls, st.ToolResults)
	}
}

func concat(parts ...any) []string {
	var out []string
	for _, p := range parts {
		switch v := p.(type) {
		case string:
			out = append(out, v)
		case []string:
			out = append(out, v...)
		}
	}
	return out
}

// TestOpencodeRecordedUsage: one response per step-finish part.
func TestOpencodeRecordedUsage(t *testing.T) {
	res, err := ScanFile("../../testdata/fixtures/opencode-1.18-tool.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	u := res.Stats.Usage
	if u == nil || u.Responses != 2 || u.InputTokens != 200 || u.OutputTokens != 10 || u.LastContext != 100 {
		t.Errorf("recorded usage %+v", u)
	}
}

// kiloLine is one message as internal/agent/opencode/opencodestore exports a store of Kilo's.
func kiloLine(id, role, info, parts string) string {
	return `{"agent":"kilo",` + opencodeLine(id, role, info, parts)[1:]
}

// TestKiloParts: what Kilo Code's CLI (kilo 7.7.7, its MessageV2.toModelMessages) sends besides
// what opencode does: no transient text of an assistant, its shared board's notice after a tool's
// output; opencode's lines with the same parts send both as they are.
func TestKiloParts(t *testing.T) {
	tool := func(id, md string) string {
		return `{"type":"tool","tool":"read","callID":"` + id + `","state":{"status":"completed","input":{},"output":"out","metadata":` + md + `}}`
	}
	parts := opencodeStep + `,{"type":"text","text":"working","metadata":{"kilocode.lifecycle":"transient"}},` +
		tool("c1", `{"shared_agent_board_notice":2}`) + `,` + tool("c2", `{"shared_agent_board_notice":"unavailable"}`) + `,` +
		tool("c3", `{"shared_agent_board_notice":0}`) + `,` + tool("c4", `{"shared_agent_board_notice":1.5}`) + `,` + tool("c5", `{}`) +
		`,` + opencodeStep + `,` + opencodeText("Done.")
	calls := `assistant:call:c1=read{}|call:c2=read{}|call:c3=read{}|call:c4=read{}|call:c5=read{}`
	for _, tc := range []struct {
		name   string
		line   func(id, role, info, parts string) string
		format Format
		want   string
	}{
		{"kilo", kiloLine, FormatKilo, "user:look / " + calls + " / tool:result:c1=out\n" + opencode.KiloBoardActivity +
			"|result:c2=out\n" + opencode.KiloBoardUnavailable + "|result:c3=out|result:c4=out|result:c5=out / assistant:Done."},
		{"opencode", opencodeLine, FormatOpencode, "user:look / assistant:working|call:c1=read{}|call:c2=read{}|call:c3=read{}|call:c4=read{}|call:c5=read{}" +
			" / tool:result:c1=out|result:c2=out|result:c3=out|result:c4=out|result:c5=out / assistant:Done."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, st := opencodeContext(t, tc.line("msg_1", "user", "", opencodeText("look")),
				tc.line("msg_2", "assistant", `"parentID":"msg_1","finish":"stop"`, parts))
			if got != tc.want {
				t.Errorf("context:\n got %q\nwant %q", got, tc.want)
			}
			if st.Format != tc.format || st.ToolCalls != 5 {
				t.Errorf("format %q, %d calls", st.Format, st.ToolCalls)
			}
		})
	}
}

// TestKiloSession: a session kilo wrote and compacted itself (testdata, exported from its store):
// the kilo format, its compaction, and the context it resumed with.
func TestKiloSession(t *testing.T) {
	res, msgs, err := LoadFile("../../testdata/fixtures/kilo-7.7-compacted.jsonl", Options{})
	if err != nil {
		t.Fatal(err)
	}
	st := res.Stats
	if st.Format != FormatKilo || st.Compactions != 1 || st.ToolCalls != 1 || st.BadLines != 0 || st.Usage == nil || st.Usage.Responses != 5 {
		t.Errorf("stats %+v", st)
	}
	var roles []string
	for _, m := range msgs {
		roles = append(roles, string(m.Role))
	}
	if got := strings.Join(roles, " "); got != "user assistant user assistant" || !msgs[1].Summary ||
		msgs[0].TextContent() != opencode.CompactionPrompt || !strings.HasPrefix(msgs[2].TextContent(), "Reply with OK.") {
		t.Errorf("context: %s", got)
	}
}
