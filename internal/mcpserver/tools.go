package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
)

// The tool requests: tools/list and tools/call, answered as the SDK's typed tools answer them.

// toolInfo is what tools/list says of a tool.
type toolInfo struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema"`
}

// listTools answers tools/list: every tool, on one page.
func (s *Server) listTools(params json.RawMessage) (any, *rpcError) {
	if len(params) > 0 && !isNull(params) {
		fields, ok := object(params)
		if !ok {
			return nil, errorf(codeInvalidParams, `invalid params: "tools/list" takes an object`)
		}
		if c := fields["cursor"]; len(c) > 0 && !isNull(c) && string(c) != `""` {
			return nil, errorf(codeInvalidParams, "invalid params: the tools are listed on one page, without a cursor")
		}
	}
	infos := make([]toolInfo, len(s.tools))
	for i, t := range s.tools {
		infos[i] = toolInfo{Name: t.name, Description: t.description, InputSchema: t.inputSchema, OutputSchema: t.outputSchema}
	}
	return struct {
		Tools []toolInfo `json:"tools"`
	}{infos}, nil
}

// toolFor reads the params of a tools/call: the tool and its arguments.
func (s *Server) toolFor(params json.RawMessage) (*tool, json.RawMessage, *rpcError) {
	fields, ok := object(params)
	if !ok {
		return nil, nil, errorf(codeInvalidParams, `invalid params: "tools/call" takes an object`)
	}
	var name string
	if json.Unmarshal(fields["name"], &name) != nil {
		return nil, nil, errorf(codeInvalidParams, `invalid params: "name" must be a string`)
	}
	for i := range s.tools {
		if s.tools[i].name == name {
			return &s.tools[i], fields["arguments"], nil
		}
	}
	return nil, nil, errorf(codeInvalidParams, "unknown tool %q", name)
}

// content is a text content of a tool result.
type content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// toolResult is a tools/call's answer, as the SDK's typed tools give it: the Out value as
// structured content and as the JSON text of its one text content, or a tool error (isError)
// whose text is the error's.
type toolResult struct {
	Content           []content       `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
}

func errorResult(err error) *toolResult {
	return &toolResult{Content: []content{{Type: "text", Text: err.Error()}}, IsError: true}
}

// call runs a tool: bad arguments, the tool's errors and its panics are tool errors.
func (t *tool) call(ctx context.Context, args json.RawMessage) (res *toolResult) {
	defer func() {
		if p := recover(); p != nil {
			res = errorResult(fmt.Errorf("%s: internal error: %v", t.name, p))
		}
	}()
	in, err := t.input.validate(args)
	if err != nil {
		return errorResult(err)
	}
	out, err := t.run(ctx, in)
	if err != nil {
		return errorResult(err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the text content is read by a model: <, > and & as they are
	if err := enc.Encode(out); err != nil {
		return errorResult(fmt.Errorf("%s: encoding the result: %w", t.name, err))
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	return &toolResult{Content: []content{{Type: "text", Text: string(b)}}, StructuredContent: b}
}
