package transcript

import "github.com/ctxc/ctxc/internal/estimate"

// Item is one block of a message list, flattened, in conversation order: what the summarizers
// read and the fact ledger checks (Flatten makes them from messages).
type Item struct {
	Role string // "system", "developer", "user", "assistant", "tool"
	Kind string // "text", "thinking", "tool_call", "tool_result", "summary" (a previous ctxc summary)
	Name string // tool name for tool_call/tool_result
	Text string // text; for tool_call the arguments JSON; for tool_result the result text
	// Tail, when set, is the end of a tool result of which Text holds only the beginning (the
	// reader decoded just its ends; Chars counts the whole). Each part must hold at least
	// summarize.ToolEndBytes, the most any preview or scan reads.
	Tail    string
	IsError bool // tool_result error
	Group   int  // items with the same non-zero Group stay in the same chunk
	Line    int  // source line number, for notes
	// Chars is the code-point count of Name + Text when the caller already knows it (the
	// transcript reader counts while parsing); 0 means count here.
	Chars int
}

// Size is the item's size in code points, by the estimate's rule.
func (it *Item) Size() int {
	if it.Chars > 0 {
		return it.Chars
	}
	return estimate.Chars(it.Text) + estimate.Chars(it.Name)
}

// Flatten turns messages into items, a block each; a tool call and its results share a group
// so that a summarizer's chunking never separates them.
func Flatten(ms []Message) []Item {
	n := 0
	for i := range ms {
		n += len(ms[i].Blocks)
	}
	items := make([]Item, 0, n)
	callGroup := map[string]int{}
	for i := range ms {
		m := &ms[i]
		group := i + 1
		for _, b := range m.Blocks {
			if b.Kind == BlockToolResult {
				if g, ok := callGroup[b.ID]; ok {
					group = g
				}
			}
		}
		for _, b := range m.Blocks {
			it := Item{Role: string(m.Role), Line: m.Line, Group: group, Name: b.Name, Chars: b.Chars}
			switch b.Kind {
			case BlockText:
				it.Kind, it.Text = "text", b.Text
				if m.Summary {
					it.Kind = "summary"
				}
			case BlockThinking:
				it.Kind, it.Text = "thinking", b.Text
			case BlockToolCall:
				it.Kind, it.Text = "tool_call", b.Args
				if b.ID != "" {
					callGroup[b.ID] = group
				}
			case BlockToolResult:
				it.Kind, it.Text, it.Tail, it.IsError = "tool_result", b.Text, b.Tail, b.IsError
			case BlockImage:
				it.Kind, it.Text, it.Chars = "text", "[image]", 0
			default:
				continue
			}
			items = append(items, it)
		}
	}
	return items
}
