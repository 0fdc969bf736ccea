package audit

import (
	"strings"

	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
)

// Text is what the model sees of a context, as the ledger's facts are looked for in it: texts,
// tool names, the arguments of tool calls (raw, and their string values decoded) and tool
// results. ctxc eval checks its reloaded contexts the same way.
func Text(ms []transcript.Message) string {
	var b strings.Builder
	for i := range ms {
		writeMessage(&b, &ms[i])
	}
	return b.String()
}

func writeMessage(b *strings.Builder, m *transcript.Message) {
	for _, bl := range m.Blocks {
		switch bl.Kind {
		case transcript.BlockText, transcript.BlockThinking, transcript.BlockToolResult:
			b.WriteString(bl.Text)
			b.WriteString(bl.Tail)
		case transcript.BlockToolCall:
			b.WriteString(bl.Name + " " + bl.Args + "\n")
			if gjson.Valid(bl.Args) {
				strs(b, gjson.Parse(bl.Args))
			}
		}
		b.WriteByte('\n')
	}
}

func strs(b *strings.Builder, v gjson.Result) {
	switch {
	case v.Type == gjson.String:
		b.WriteString(v.Str + "\n")
	case v.IsArray() || v.IsObject():
		v.ForEach(func(_, e gjson.Result) bool {
			strs(b, e)
			return true
		})
	}
}
