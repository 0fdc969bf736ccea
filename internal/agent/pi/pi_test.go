package pi

import (
	"testing"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
)

// TestPiBashText: a bash execution is the user text pi sends for it, counted as it is sent.
func TestPiBashText(t *testing.T) {
	for _, tc := range []struct{ msg, want string }{
		{`{"role":"bashExecution","command":"ls","output":"a\nb","exitCode":0}`, "Ran `ls`\n```\na\nb\n```"},
		{`{"role":"bashExecution","command":"false","output":"","exitCode":1}`, "Ran `false`\n(no output)\n\nCommand exited with code 1"},
		{`{"role":"bashExecution","command":"sleep 9","output":"","cancelled":true,"exitCode":null}`, "Ran `sleep 9`\n(no output)\n\n(command cancelled)"},
		{`{"role":"bashExecution","command":"cat big","output":"x","exitCode":0,"truncated":true,"fullOutputPath":"/tmp/o.txt"}`, "Ran `cat big`\n```\nx\n```\n\n[Output truncated. Full output: /tmp/o.txt]"},
	} {
		doc := jsonl.Value(tc.msg)
		m, emit := Pi.message(doc, conv.WithText)
		stats, _ := Pi.message(doc, conv.NoText)
		if !emit || m.Role != conv.RoleUser || m.TextContent() != tc.want || stats.Chars() != len([]rune(tc.want)) {
			t.Errorf("%s: %q (%d chars, stats %d)", tc.msg, m.TextContent(), m.Chars(), stats.Chars())
		}
	}
	m, emit := Pi.message(jsonl.Value(`{"role":"bashExecution","command":"ls","output":"","excludeFromContext":true}`), conv.NoText)
	if emit || len(m.Blocks) != 1 {
		t.Errorf("excluded bash: emit=%v %+v", emit, m)
	}
}
