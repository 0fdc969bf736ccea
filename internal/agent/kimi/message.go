package kimi

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// Texts Kimi Code CLI puts around what a record holds (its toolResultRender and compaction
// handoff).
const (
	ErrorStatus      = "<system>ERROR: Tool execution failed.</system>"
	EmptyStatus      = "<system>Tool output is empty.</system>"
	EmptyErrorStatus = "<system>ERROR: Tool execution failed. Tool output is empty.</system>"
	// interruptedResult is the result a call still waiting when its step closed gets.
	interruptedResult = "Tool execution was interrupted before its result was recorded. Do not assume the tool completed successfully."
	// ContinuationNote follows a compaction's summary.
	ContinuationNote = "<system-reminder>\nContext compaction is complete — continue the work that was in progress when it began.\n</system-reminder>"
	wallTimeHead     = "Wall time: "
)

// wallTime: the tools whose results Kimi sends after their wall time.
func wallTime(tool string) bool {
	switch tool {
	case "Agent", "AgentSwarm", "Bash", "FetchURL", "Glob", "Grep", "WebSearch":
		return true
	}
	return strings.HasPrefix(tool, "mcp__")
}

// Wrappers are the texts the reader puts around what a line holds.
var Wrappers = []conv.Wrapper{conv.Head(ErrorStatus + "\n"), conv.Fixed(EmptyStatus), conv.Fixed(EmptyErrorStatus),
	conv.Fixed(ErrorStatus + "\n" + interruptedResult), conv.Fixed(ContinuationNote), conv.Head(wallTimeHead)}

// LineTypes tell Kimi Code CLI's logs by their records of the conversation.
var LineTypes = []conv.LineType{{Type: "context.append_message", Message: true}, {Type: "context.append_loop_event"},
	{Type: "context.apply_compaction"}, {Type: "turn.prompt"}, {Type: "profile.bind"}}

// ReadOnly says why ctxc never writes into a Kimi Code CLI log; a compaction is written with -o,
// as a ctxc-format file.
const ReadOnly = "is a Kimi Code CLI log, whose compaction ctxc does not write"

// blank: a text part Kimi leaves out of its requests.
func blank(p jsonl.Value) bool {
	return p.Get("type").Str() == "text" && strings.TrimSpace(p.Get("text").Str()) == ""
}

// vacuousPart: a part that gives an assistant message no content.
func vacuousPart(p jsonl.Value) bool {
	switch p.Get("type").Str() {
	case "text":
		return strings.TrimSpace(p.Get("text").Str()) == ""
	case "think":
		return !p.Get("encrypted").Exists() && strings.TrimSpace(p.Get("think").Str()) == ""
	}
	return false
}

// partBlock is a content part as a block.
func partBlock(p jsonl.Value, text conv.TextMode) conv.Block {
	switch p.Get("type").Str() {
	case "text":
		return conv.TextBlockV(conv.BlockText, p.Get("text"), text)
	case "think":
		return conv.TextBlockV(conv.BlockThinking, p.Get("think"), text)
	case "image_url", "audio_url", "video_url":
		return conv.Block{Kind: conv.BlockImage}
	}
	return conv.OpaqueBlockV(p, text)
}

// messageOf is a context.append_message's message: its content, less blank texts, and its calls
// (none when it has neither).
func messageOf(msg jsonl.Value, text conv.TextMode) []conv.Message {
	role := conv.RoleConst(conv.Role(msg.Get("role").Str()))
	m := conv.Message{Role: role}
	if role == conv.RoleTool {
		b := conv.ContentResultV(msg.Get("content"), text)
		b.ID = msg.Get("toolCallId").Str()
		m.Blocks = []conv.Block{b}
		return []conv.Message{m}
	}
	msg.Get("content").Each(func(_ string, p jsonl.Value) bool {
		if !blank(p) {
			m.Blocks = append(m.Blocks, partBlock(p, text))
		}
		return true
	})
	msg.Get("toolCalls").Each(func(_ string, c jsonl.Value) bool {
		m.Blocks = append(m.Blocks, conv.ToolCallBlockV(c.Get("id").Str(), c.Get("name").Str(), c.Get("arguments"), text))
		return true
	})
	if len(m.Blocks) == 0 {
		return nil
	}
	m.Summary = msg.Get("origin").Get("kind").Str() == "compaction_summary"
	if role == conv.RoleAssistant {
		m.MsgID = msgID
	}
	return []conv.Message{m}
}

// msgID is every assistant message's: Kimi sends adjacent assistant messages as one, and the
// lines of one step are one message.
const msgID = "kimi"

// partMessage is a content.part's part, as the assistant's (none for a blank text).
func partMessage(ev jsonl.Value, text conv.TextMode) []conv.Message {
	p := ev.Get("part")
	if blank(p) || !p.IsObject() {
		return nil
	}
	return []conv.Message{{Role: conv.RoleAssistant, Blocks: []conv.Block{partBlock(p, text)}, MsgID: msgID}}
}

// callMessage is a tool.call, as the assistant's: its arguments as JSON.
func callMessage(ev jsonl.Value, text conv.TextMode) []conv.Message {
	args := ev.Get("args")
	if !args.Exists() {
		args = "null"
	}
	return []conv.Message{{Role: conv.RoleAssistant, MsgID: msgID,
		Blocks: []conv.Block{conv.ToolCallBlockV(ev.Get("toolCallId").Str(), ev.Get("name").Str(), args, text)}}}
}

// resultMessage is a tool.result as Kimi sends it: its status line when it failed or gave
// nothing, its output, its wall time before it (timed), its note after.
func resultMessage(ev jsonl.Value, timed bool, text conv.TextMode) conv.Message {
	res := ev.Get("result")
	output, isErr := res.Get("output"), res.Get("isError").Bool()
	var texts []string
	images := 0
	switch single, ok := singleText(output); {
	case ok && isErr && single == "":
		texts = []string{EmptyErrorStatus}
	case ok && isErr:
		texts = []string{ErrorStatus + "\n" + single}
	case ok && (strings.TrimSpace(single) == "" || strings.TrimSpace(single) == "Tool output is empty."):
		texts = []string{EmptyStatus}
	case ok:
		texts = []string{single}
	default:
		texts, images = partTexts(output, isErr)
	}
	if d := res.Get("durationMs"); timed && isNumber(d) {
		ms, _ := strconv.ParseFloat(string(d), 64)
		texts[0] = wallTimeHead + strconv.FormatFloat(ms/1000, 'f', 3, 64) + " seconds\n" + texts[0]
	}
	if note := res.Get("note").Str(); note != "" {
		if len(texts) == 1 && images == 0 {
			texts[0] += "\n" + note
		} else {
			texts = append(texts, note)
		}
	}
	var kept []string
	for _, t := range texts {
		if strings.TrimSpace(t) != "" {
			kept = append(kept, t)
		}
	}
	b := conv.LiteralBlock(conv.JoinLines(kept), text)
	b.Kind, b.ID, b.Images, b.IsError = conv.BlockToolResult, ev.Get("toolCallId").Str(), images, isErr
	return conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{b}}
}

// singleText is an output that is a string or a list of one text part.
func singleText(output jsonl.Value) (string, bool) {
	if output.IsString() {
		return output.Str(), true
	}
	n, first := 0, jsonl.Value("")
	output.Each(func(_ string, p jsonl.Value) bool {
		if n == 0 {
			first = p
		}
		n++
		return n < 2
	})
	if n == 1 && first.Get("type").Str() == "text" {
		return first.Get("text").Str(), true
	}
	return "", false
}

// partTexts are an output list's texts (a part that is no text as its JSON) and images, after
// its status line when it failed or holds only blank texts.
func partTexts(output jsonl.Value, isErr bool) (texts []string, images int) {
	empty := true
	output.Each(func(_ string, p jsonl.Value) bool {
		switch p.Get("type").Str() {
		case "text":
			texts = append(texts, p.Get("text").Str())
			empty = empty && strings.TrimSpace(p.Get("text").Str()) == ""
		case "image_url", "audio_url", "video_url":
			images++
			empty = false
		default:
			texts = append(texts, string(p))
			empty = false
		}
		return true
	})
	switch {
	case empty && isErr:
		return []string{EmptyErrorStatus}, 0
	case empty:
		return []string{EmptyStatus}, 0
	case isErr:
		texts = append([]string{ErrorStatus}, texts...)
	}
	if len(texts) == 0 {
		texts = []string{""}
	}
	return texts, images
}

// summaryMessage is a compaction's summary, as the user's: its contextSummary (the summary with
// Kimi's note before it), else its summary (a text, or a message's texts).
func summaryMessage(v jsonl.Value, text conv.TextMode) (conv.Message, bool) {
	s := v.Get("contextSummary")
	sum := v.Get("summary")
	if sum.IsString() {
		if !s.IsString() {
			s = sum
		}
	} else if !s.IsString() {
		if !sum.IsObject() || !sum.Get("content").IsArray() {
			return conv.Message{}, false
		}
		t := conv.TextBuilder{Text: text.On(), NoCount: text == conv.SearchText}
		sum.Get("content").Each(func(_ string, p jsonl.Value) bool {
			if p.Get("type").Str() == "text" {
				t.Val(p.Get("text"))
			}
			return true
		})
		return conv.Message{Role: conv.RoleUser, Summary: true, Blocks: []conv.Block{t.Block()}}, true
	}
	return conv.Message{Role: conv.RoleUser, Summary: true, Blocks: []conv.Block{conv.TextBlockV(conv.BlockText, s, text)}}, true
}

// interruptedMessage is the result of call id, still waiting when its step closed.
func interruptedMessage(id string, text conv.TextMode) conv.Message {
	b := conv.LiteralBlock(ErrorStatus+"\n"+interruptedResult, text)
	b.Kind, b.ID, b.IsError = conv.BlockToolResult, id, true
	return conv.Message{Role: conv.RoleTool, Blocks: []conv.Block{b}}
}

// continuationMessage is the note after a compaction's summary.
func continuationMessage(text conv.TextMode) conv.Message {
	return conv.Message{Role: conv.RoleUser, Blocks: []conv.Block{conv.LiteralBlock(ContinuationNote, text)}}
}

func (r *reader) Materialize(b []byte, x conv.Ref) ([]conv.Message, error) {
	if x.Sel == selJoined {
		return joined(b, x)
	}
	v := jsonl.Value(gjson.Parse(conv.UnsafeString(b)).Raw)
	if !v.IsObject() {
		return nil, fmt.Errorf("not a Kimi Code CLI record")
	}
	ms, err := materialize(v, x.Sel)
	for i := range ms {
		ms[i].Line = x.LineNum()
	}
	return ms, err
}

func materialize(v jsonl.Value, sel uint8) ([]conv.Message, error) {
	ev := v.Get("event")
	switch sel {
	case selMessage:
		return messageOf(v.Get("message"), conv.WithText), nil
	case selPart:
		return partMessage(ev, conv.WithText), nil
	case selCall:
		return callMessage(ev, conv.WithText), nil
	case selResult, selResultTimed:
		return []conv.Message{resultMessage(ev, sel == selResultTimed, conv.WithText)}, nil
	case selInterrupted:
		return []conv.Message{interruptedMessage(ev.Get("toolCallId").Str(), conv.WithText)}, nil
	case selSummary:
		m, ok := summaryMessage(v, conv.WithText)
		if !ok {
			return nil, fmt.Errorf("a compaction record without its summary")
		}
		return []conv.Message{m}, nil
	case selContinuation:
		return []conv.Message{continuationMessage(conv.WithText)}, nil
	}
	return nil, fmt.Errorf("unknown part %d of a Kimi Code CLI record", sel)
}

// joined is the typed user messages of the lines b holds as one message, as Kimi joins adjacent
// ones: each one's texts, joined by a blank line, then their other parts.
func joined(b []byte, x conv.Ref) ([]conv.Message, error) {
	var texts []string
	var rest []conv.Block
	for _, line := range bytes.Split(b, []byte{'\n'}) {
		line = conv.TrimLine(line)
		if !bytes.Contains(line, []byte(`"context.append_message"`)) || !gjson.ValidBytes(line) {
			continue
		}
		v := jsonl.Value(gjson.ParseBytes(line).Raw)
		msg := v.Get("message")
		if v.Get("type").Str() != "context.append_message" || msg.Get("role").Str() != "user" || msg.Get("origin").Get("kind").Str() != "user" {
			continue
		}
		var t strings.Builder
		msg.Get("content").Each(func(_ string, p jsonl.Value) bool {
			switch {
			case p.Get("type").Str() == "text":
				if !blank(p) {
					t.WriteString(p.Get("text").Str())
				}
			default:
				rest = append(rest, partBlock(p, conv.WithText))
			}
			return true
		})
		if t.Len() > 0 {
			texts = append(texts, t.String())
		}
	}
	if len(texts)+len(rest) == 0 {
		return nil, fmt.Errorf("no user message in the lines it spans")
	}
	m := conv.Message{Role: conv.RoleUser, Line: x.LineNum()}
	if len(texts) > 0 {
		m.Blocks = append(m.Blocks, conv.LiteralBlock(strings.Join(texts, "\n\n"), conv.WithText))
	}
	m.Blocks = append(m.Blocks, rest...)
	return []conv.Message{m}, nil
}

// Record is one line seen on its own (ctxc grep): the message it holds or adds to; a compaction's
// summary is its record.
func Record(v jsonl.Value) conv.Record {
	ev := v.Get("event")
	switch v.Get("type").Str() {
	case "context.append_message":
		return conv.Record{Messages: messageOf(v.Get("message"), conv.SearchText)}
	case "context.apply_compaction":
		m, ok := summaryMessage(v, conv.SearchText)
		if !ok {
			return conv.Record{}
		}
		return conv.Record{Messages: []conv.Message{m}, Compaction: true}
	case "context.append_loop_event":
		switch ev.Get("type").Str() {
		case "content.part":
			return conv.Record{Messages: partMessage(ev, conv.SearchText)}
		case "tool.call":
			return conv.Record{Messages: callMessage(ev, conv.SearchText)}
		case "tool.result":
			return conv.Record{Messages: []conv.Message{resultMessage(ev, false, conv.SearchText)}}
		}
	}
	return conv.Record{}
}
