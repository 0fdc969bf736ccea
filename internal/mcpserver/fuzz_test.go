package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// fuzzServer has the four tools with their names and schemas, and functions that answer from
// their arguments alone (the real ones would read whatever paths the fuzzer makes up).
func fuzzServer() *Server {
	return &Server{tools: []tool{
		newTool("expand", expandDescription, expandInSchema, expandOutSchema, func(_ context.Context, in ExpandIn) (ExpandOut, error) {
			if in.Marker > 3 {
				return ExpandOut{}, errors.New("marker: no such compaction")
			}
			return ExpandOut{Source: in.Path, Offset: in.Offset, Messages: []ExpandMessage{{Role: "user", Text: in.Path}}}, nil
		}),
		newTool("grep", grepDescription, grepInSchema, grepOutSchema, func(ctx context.Context, in GrepIn) (GrepOut, error) {
			if in.Pattern == "" {
				return GrepOut{}, errors.New("pattern: empty")
			}
			return GrepOut{Hits: []GrepHit{{Path: strings.Join(in.Paths, "\n"), Text: in.Pattern, Role: strings.Join(in.Roles, ",")}}}, ctx.Err()
		}),
		newTool("search", searchDescription, searchInSchema(), searchOutSchema, func(_ context.Context, in SearchIn) (SearchOut, error) {
			return SearchOut{Note: in.Query + in.Since, Errors: in.Paths}, nil
		}),
		newTool("stats", statsDescription, statsInSchema, statsOutSchema, func(_ context.Context, in StatsIn) (StatsOut, error) {
			return StatsOut{Files: []any{map[string]any{"paths": in.Paths}}}, nil
		}),
	}}
}

// FuzzServe feeds arbitrary bytes to the server as its input: it must not panic, must return
// nil at the end of the input, and must write only well-formed JSON-RPC answers, at most one a
// line of input.
func FuzzServe(f *testing.F) {
	for _, seed := range []string{
		initialize + "\n" + `{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n" +
			`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n" +
			`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"grep","arguments":{"pattern":"x","paths":["/s"],"max_hits":3}}}` + "\n" +
			`{"jsonrpc":"2.0","id":"e","method":"tools/call","params":{"name":"expand","arguments":{"path":"/s","marker":2.0}}}` + "\n" +
			`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}` + "\n" +
			`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"q","paths":null,"roles":[1]}}}` + "\n" +
			`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"stats","arguments":{"paths":["a","b"],"x":1}}}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r\n" + `not json` + "\n\n" + `[{"jsonrpc":"2.0","id":2,"method":"ping"}]`,
		`{"jsonrpc":"2.0","id":-1e999,"method":"initialize","params":{"protocolVersion":7}}` + "\n" + `{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		initialize + "\n" + `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"grep","arguments":"<&>"}}` + "\n" +
			`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"grep","arguments":{"pattern":"\u2028\ud800","paths":[]}}}`,
		`{"jsonrpc":"2.0","id":"\u0000\"","method":"\xff"}`,
		`{}` + "\n" + `null` + "\n" + `{"jsonrpc":"2.0","id":1,"result":{}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		if err := fuzzServer().Run(context.Background(), bytes.NewReader(data), &out); err != nil {
			t.Fatalf("Run: %v", err)
		}
		if out.Len() == 0 {
			return
		}
		if !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
			t.Fatalf("the output does not end a line: %q", out.String())
		}
		answers := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
		if lines := bytes.Count(data, []byte("\n")) + 1; len(answers) > lines {
			t.Fatalf("%d answers to %d lines", len(answers), lines)
		}
		for _, a := range answers {
			if err := checkAnswer(a); err != nil {
				t.Fatalf("%v: %s", err, a)
			}
		}
	})
}

// checkAnswer says what is wrong with an answer: a JSON-RPC 2.0 response, with an id (a
// string, a number or null) and either a result or an error with a code and a message.
func checkAnswer(line string) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &m); err != nil || m == nil {
		return errors.New("not a JSON object")
	}
	if string(m["jsonrpc"]) != `"2.0"` {
		return errors.New(`no "jsonrpc":"2.0"`)
	}
	id, ok := m["id"]
	if !ok || !isID(id) && !isNull(id) {
		return errors.New("no id, or not a string, a number or null")
	}
	result, hasResult := m["result"]
	e, hasError := m["error"]
	if hasResult == hasError || len(m) != 3 {
		return errors.New("not one of result and error, or other members")
	}
	if hasResult {
		var r map[string]json.RawMessage
		if json.Unmarshal(result, &r) != nil || r == nil {
			return errors.New("a result that is not an object")
		}
		return nil
	}
	var rpc struct {
		Code    *int    `json:"code"`
		Message *string `json:"message"`
	}
	if json.Unmarshal(e, &rpc) != nil || rpc.Code == nil || rpc.Message == nil {
		return errors.New("an error without an integer code and a message")
	}
	return nil
}
