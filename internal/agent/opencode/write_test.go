package opencode

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/tidwall/gjson"
)

func text(role conv.Role, s string) conv.Message {
	return conv.Message{Role: role, Blocks: []conv.Block{{Kind: conv.BlockText, Text: s}}}
}

// The document's shape: a new session, the kept messages under fresh ascending ids, then the
// compaction user message (tail_start_id: the first kept message) and the summary answering it.
func TestWriterDocumentShape(t *testing.T) {
	call := conv.Message{Role: conv.RoleAssistant, Blocks: []conv.Block{{Kind: conv.BlockThinking, Text: "hmm"},
		{Kind: conv.BlockToolCall, ID: "call_1", Name: "read", Args: `{"filePath":"a.txt"}`}}}
	result := conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{{Kind: conv.BlockToolResult, ID: "call_1", Text: "hello"}}}
	failed := conv.Message{Role: conv.RoleAssistant, Blocks: []conv.Block{{Kind: conv.BlockToolCall, ID: "call_2", Name: "bash", Args: "not json"}}}
	failedResult := conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{{Kind: conv.BlockToolResult, ID: "call_2", Text: "boom", IsError: true}}}
	orphan := conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{{Kind: conv.BlockToolResult, ID: "x", Text: "lost"}}}
	empty := conv.Message{Role: conv.RoleUser}
	tests := []struct {
		name       string
		head, tail []conv.Message
		roles      []string // the document's messages
		sent       int      // what opencode sends of them
	}{
		{"head and tail", []conv.Message{text(conv.RoleUser, "first")},
			[]conv.Message{call, result, text(conv.RoleAssistant, "done"), text(conv.RoleUser, "next"), failed, failedResult},
			[]string{"user", "assistant", "assistant", "user", "assistant", "user", "assistant"}, 2 + 6 + 1},
		{"no kept messages", nil, nil, []string{"user", "assistant"}, 2},
		{"odd messages left out", nil, []conv.Message{orphan, empty, text(conv.RoleAssistant, "")},
			[]string{"user", "assistant"}, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &conv.Compaction{Summary: "the summary", Head: tt.head, Tail: tt.tail, Now: time.UnixMilli(1795940385640)}
			w, err := Writer{}.New(nil, c)
			if err != nil {
				t.Fatal(err)
			}
			if !json.Valid(w.Data) {
				t.Fatalf("not JSON: %s", w.Data)
			}
			doc := gjson.ParseBytes(w.Data)
			if id := doc.Get("info.id").Str; id != w.Session || !strings.HasPrefix(id, "ses_") || len(id) != 30 {
				t.Errorf("session id %q (written %q)", id, w.Session)
			}
			msgs := doc.Get("messages").Array()
			var roles []string
			prev := ""
			for _, m := range msgs {
				roles = append(roles, m.Get("info.role").Str)
				id := m.Get("info.id").Str
				if !strings.HasPrefix(id, "msg_") || id <= prev || m.Get("info.sessionID").Str != w.Session {
					t.Errorf("message id %q after %q, session %q", id, prev, m.Get("info.sessionID").Str)
				}
				prev = id
				for _, p := range m.Get("parts").Array() {
					if !strings.HasPrefix(p.Get("id").Str, "prt_") || p.Get("messageID").Str != id {
						t.Errorf("part %s of message %s", p.Raw, id)
					}
				}
			}
			if strings.Join(roles, ",") != strings.Join(tt.roles, ",") {
				t.Fatalf("roles %v, want %v", roles, tt.roles)
			}
			comp, sum := msgs[len(msgs)-2], msgs[len(msgs)-1]
			part := comp.Get("parts.0")
			if part.Get("type").Str != "compaction" || part.Get("tail_start_id").Str != firstID(msgs[:len(msgs)-2]) {
				t.Errorf("compaction part %s", part.Raw)
			}
			if !sum.Get("info.summary").Bool() || sum.Get("info.parentID").Str != comp.Get("info.id").Str ||
				sum.Get("info.mode").Str != "compaction" || sum.Get("info.finish").Str != "stop" ||
				sum.Get(`parts.#(type=="text").text`).Str != "the summary" {
				t.Errorf("summary message %s", sum.Raw)
			}
			if w.Messages != tt.sent {
				t.Errorf("Messages = %d, want %d", w.Messages, tt.sent)
			}
		})
	}
}

func firstID(msgs []gjson.Result) string {
	if len(msgs) == 0 {
		return ""
	}
	return msgs[0].Get("info.id").Str
}

// FuzzWriterNew: any kept messages give a JSON document, without a panic.
func FuzzWriterNew(f *testing.F) {
	f.Add("hi", "read", `{"a":1}`, "out", false, uint8(3))
	f.Add("", "", "[", "", true, uint8(255))
	f.Fuzz(func(t *testing.T, s, name, args, out string, isErr bool, shape uint8) {
		roles := []conv.Role{conv.RoleUser, conv.RoleAssistant, conv.RoleTool, conv.RoleSystem}
		var ms []conv.Message
		for i := 0; i < 4; i++ {
			m := conv.Message{Role: roles[(shape>>(2*i))&3]}
			m.Blocks = []conv.Block{{Kind: conv.BlockText, Text: s}, {Kind: conv.BlockToolCall, ID: s, Name: name, Args: args},
				{Kind: conv.BlockToolResult, ID: s, Text: out, IsError: isErr}, {Kind: conv.BlockThinking, Text: out}}
			ms = append(ms, m)
		}
		w, err := Writer{}.New(nil, &conv.Compaction{Summary: s, Tail: ms, Now: time.Now()})
		if err != nil {
			return
		}
		if !json.Valid(w.Data) {
			t.Fatalf("not JSON: %s", w.Data)
		}
	})
}
