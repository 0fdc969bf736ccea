package transcript

import (
	"fmt"
	"strings"
	"sync"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/ctxc/ctxc/internal/agent/codex"
	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// Formats lists the accepted --format values: the formats of the registry (internal/agent).
func Formats() []Format {
	names := agent.Names()
	out := make([]Format, len(names))
	for i, n := range names {
		out[i] = Format(n)
	}
	return out
}

// Wrapper is a fixed text a format's reader puts around what a line holds.
type Wrapper = conv.Wrapper

// Wrappers are a format's wrappers (its agent code's): a byte-level search for a literal that
// meets one (inside it, or across an edge that touches the line's text) must decode every line.
func Wrappers(f Format) []Wrapper {
	c, _ := codeOf(f)
	return c.wrappers
}

// ParseFormat validates a --format value ("" and "auto" mean detect).
func ParseFormat(s string) (Format, error) {
	switch s {
	case "", "auto":
		return FormatUnknown, nil
	}
	if _, ok := agent.Lookup(s); ok {
		return Format(s), nil
	}
	return FormatUnknown, fmt.Errorf("unknown format %q (want auto, %s)", s, strings.Join(agent.Names(), ", "))
}

func newFormatReader(f Format) formatReader {
	if c, ok := codeOf(f); ok {
		return c.reader()
	}
	return newGenericReader(f)
}

// detectLine classifies one valid JSON line. strong is true when the line alone decides the
// format; weak answers (a plain {"role","content":"..."} line) may be refined by later lines.
func detectLine(doc gjson.Result) (f Format, strong bool, err error) {
	if !doc.IsObject() {
		return FormatUnknown, false, fmt.Errorf("a JSON %s, not a transcript record (want one JSON object per line)", jsonKind(doc))
	}
	m, sure := walkMembers(jsonl.Value(doc.Raw))
	if !sure {
		m = gjsonMembers(doc)
	}
	return m.detect(jsonl.Value(doc.Raw))
}

// lineMembers are the members of an object line that detection looks at, each the first of its
// key (as gjson's Get finds it), "" when absent; messageRole is the "role" of its "message"
// object.
type lineMembers struct {
	typ, id, payload, timestamp, recordType, instructions, uuid, sessionID, leafUUID jsonl.Value
	compact, createdBy, createdAt, messages, role, message, messageRole              jsonl.Value
	// Gemini CLI and Qwen Code: "$set", "$rewindTo", "projectHash", "systemPayload" and
	// whether the "message" object has "parts".
	set, rewindTo, projectHash, systemPayload, messageParts jsonl.Value
	// opencode and Kilo (as internal/agent/opencode/opencodestore exports them): "info" and "parts", and the
	// "agent" an export of Kilo's store names.
	info, parts, agent jsonl.Value
	// Continue CLI (as continueSnapshot lays its sessions out): "workspaceDirectory",
	// "contextItems".
	workspaceDirectory, contextItems jsonl.Value
}

// walkMembers reads an object line's lineMembers in one walk, where a gjson.Get per key read
// the line up to its key (the whole line for each absent one: eight passes over a message
// line). sure is false when a key is written with an escape, which gjson matches unescaped:
// the caller asks gjson (gjsonMembers). FuzzDetectLine holds the two to the same reading.
func walkMembers(v jsonl.Value) (m lineMembers, sure bool) {
	sure = true
	v.Each(func(k string, val jsonl.Value) bool {
		var at *jsonl.Value
		switch k {
		case "type":
			at = &m.typ
		case "id":
			at = &m.id
		case "payload":
			at = &m.payload
		case "timestamp":
			at = &m.timestamp
		case "record_type":
			at = &m.recordType
		case "instructions":
			at = &m.instructions
		case "uuid":
			at = &m.uuid
		case "sessionId":
			at = &m.sessionID
		case "leafUuid":
			at = &m.leafUUID
		case "compact":
			at = &m.compact
		case "created_by":
			at = &m.createdBy
		case "created_at":
			at = &m.createdAt
		case "messages":
			at = &m.messages
		case "role":
			at = &m.role
		case "message":
			at = &m.message
		case "$set":
			at = &m.set
		case "$rewindTo":
			at = &m.rewindTo
		case "projectHash":
			at = &m.projectHash
		case "systemPayload":
			at = &m.systemPayload
		case "info":
			at = &m.info
		case "parts":
			at = &m.parts
		case "workspaceDirectory":
			at = &m.workspaceDirectory
		case "contextItems":
			at = &m.contextItems
		case "agent":
			at = &m.agent
		default:
			if strings.IndexByte(k, '\\') >= 0 {
				sure = false
				return false
			}
			return true
		}
		if *at == "" {
			*at = val
		}
		return true
	})
	if sure && m.message.IsObject() {
		m.message.Each(func(k string, val jsonl.Value) bool {
			if strings.IndexByte(k, '\\') >= 0 {
				sure = false
				return false
			}
			switch {
			case k == "role" && m.messageRole == "":
				m.messageRole = val
			case k == "parts" && m.messageParts == "":
				m.messageParts = val
			}
			return true
		})
	}
	return m, sure
}

// gjsonMembers reads an object line's lineMembers with gjson.
func gjsonMembers(doc gjson.Result) lineMembers {
	get := func(path string) jsonl.Value { return jsonl.Value(doc.Get(path).Raw) }
	return lineMembers{typ: get("type"), id: get("id"), payload: get("payload"), timestamp: get("timestamp"),
		recordType: get("record_type"), instructions: get("instructions"), uuid: get("uuid"), sessionID: get("sessionId"),
		leafUUID: get("leafUuid"), compact: get("compact"), createdBy: get("created_by"), createdAt: get("created_at"),
		messages: get("messages"), role: get("role"), message: get("message"), messageRole: get("message.role"),
		set: get("$set"), rewindTo: get("$rewindTo"), projectHash: get("projectHash"), systemPayload: get("systemPayload"),
		messageParts: get("message.parts"), info: get("info"), parts: get("parts"), agent: get("agent"),
		workspaceDirectory: get("workspaceDirectory"), contextItems: get("contextItems")}
}

// detect tells an object line's format (v: the line) from its members.
func (m *lineMembers) detect(v jsonl.Value) (f Format, strong bool, err error) {
	has := func(v jsonl.Value) bool { return v != "" }
	typ := m.typ.Str()
	lt, known := lineTypes()[typ]
	switch {
	case (typ == "session_start" || typ == "compaction_state") && has(m.id):
		return FormatDroid, true, nil
	case copilotEventType(typ) && has(m.id) && has(m.timestamp):
		return FormatCopilot, true, nil
	case typ == "session" && has(m.id):
		return FormatPi, true, nil
	case m.info.IsObject() && m.parts.IsArray() && m.agent.Str() == agent.Kilo:
		return FormatKilo, true, nil
	case m.info.IsObject() && m.parts.IsArray():
		return FormatOpencode, true, nil
	case known && lt.matches(m):
		return lt.format, !lt.Weak, nil
	case has(m.payload) && has(m.timestamp) && codex.ItemTypes[typ]:
		return FormatCodex, true, nil
	case has(m.recordType) || (has(m.instructions) && has(m.id) && has(m.timestamp)):
		return FormatCodex, true, nil
	case has(m.sessionID) && has(m.workspaceDirectory) && !has(m.typ), m.message.IsObject() && m.contextItems.IsArray():
		return FormatContinue, true, nil
	case m.set.IsObject() || m.rewindTo.IsString() || (has(m.projectHash) && has(m.sessionID)) || (typ == "gemini" && has(m.id)):
		return FormatGemini, true, nil
	case has(m.uuid) && (typ == "tool_result" || (claudeTypes[typ] && (has(m.systemPayload) || m.messageParts.IsArray()))):
		return FormatQwen, true, nil
	case claudeTypes[typ] && (has(m.uuid) || has(m.sessionID)):
		return FormatClaude, true, nil
	case typ == "summary" && has(m.leafUUID), typ == "file-history-snapshot", typ == "queue-operation":
		return FormatClaude, true, nil
	case has(m.compact):
		return FormatCtxc, true, nil
	case has(m.createdBy) && has(m.createdAt):
		return FormatCtxc, true, nil
	case has(m.messages) && m.messages[0] == '[' && !has(m.role):
		return FormatUnknown, true, fmt.Errorf(`a {"messages":[...]} conversation per line (a fine-tuning dataset?), not a transcript of one session`)
	}
	msg := v
	if !has(m.role) {
		if !has(m.messageRole) {
			return FormatUnknown, false, nil
		}
		msg = m.message // crabtalk's {"agent","message":{...}} lines
	}
	switch d, sure := messageDialectV(msg); d {
	case DialectAnthropic:
		return FormatAnthropic, sure, nil
	case DialectOpenAI:
		return FormatOpenAI, sure, nil
	}
	return FormatUnknown, false, nil
}

// lineType is a format's LineType, by the agent code that names it.
type lineType struct {
	conv.LineType
	format Format
}

func (t lineType) matches(m *lineMembers) bool {
	return (!t.Session || m.sessionID != "") && (!t.NoID || m.id == "") && (!t.Message || m.message.IsObject())
}

// lineTypes are the line types of every agent code, by type.
var lineTypes = sync.OnceValue(func() map[string]lineType {
	out := map[string]lineType{}
	for _, c := range agentCodes {
		for _, t := range c.lines {
			out[t.Type] = lineType{t, c.format}
		}
	}
	return out
})

// copilotEventType: Copilot CLI's event types are dotted, "<area>.<event>".
func copilotEventType(typ string) bool {
	area, _, ok := strings.Cut(typ, ".")
	return ok && copilotAreas[area]
}

var copilotAreas = map[string]bool{"session": true, "user": true, "assistant": true, "tool": true, "system": true,
	"model": true, "hook": true, "subagent": true, "skill": true, "permission": true, "abort": true}

var claudeTypes = map[string]bool{"user": true, "assistant": true, "system": true, "attachment": true,
	"progress": true, "summary": true}

func jsonKind(doc gjson.Result) string {
	switch {
	case doc.IsArray():
		return "array"
	case doc.Type == gjson.String:
		return "string"
	case doc.Type == gjson.Number:
		return "number"
	case doc.Type == gjson.True, doc.Type == gjson.False:
		return "boolean"
	case doc.Type == gjson.Null:
		return "null"
	}
	return "value"
}

// messageDialect tells an OpenAI chat message from an Anthropic Messages API one. sure is false
// when the line is valid in both (plain text content).
func messageDialect(msg gjson.Result) (d Dialect, sure bool) {
	return messageDialectV(jsonl.Value(msg.Raw))
}

func messageDialectV(msg jsonl.Value) (d Dialect, sure bool) {
	var role string
	var content jsonl.Value
	openAIKeys := false
	msg.Walk(func(k string, rest jsonl.Value) int {
		switch k {
		case "role":
			v, n := rest.Prefix()
			role = v.Str()
			return n
		case "content":
			v, n := rest.Prefix()
			content = v
			return n
		case "tool_calls", "tool_call_id", "function_call":
			openAIKeys = true
		}
		return -1
	})
	switch role {
	case "tool", "function":
		return DialectOpenAI, true
	case "system", "developer":
		return DialectOpenAI, false
	}
	if openAIKeys {
		return DialectOpenAI, true
	}
	if content.IsArray() {
		d := DialectNone
		content.Walk(func(_ string, b jsonl.Value) int {
			n := jsonl.SkipValue(string(b), 0)
			switch jsonl.Value(b[:n]).Get("type").Str() {
			case "tool_use", "tool_result", "thinking", "redacted_thinking", "image", "document", "server_tool_use", "web_search_tool_result":
				d = DialectAnthropic
			case "image_url", "input_audio", "refusal", "file":
				d = DialectOpenAI
			}
			if d != DialectNone {
				return len(b) // stop looking: consume the rest
			}
			return n
		})
		if d != DialectNone {
			return d, true
		}
	}
	if role == "user" || role == "assistant" {
		return DialectOpenAI, false
	}
	return DialectNone, false
}
