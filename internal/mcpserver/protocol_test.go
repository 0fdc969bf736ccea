package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ctxc/ctxc/internal/agent"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// inferred is the schema the SDK infers from a Go type, as JSON decoded into any, with the
// registry's formats where a description says {{agents}} (SearchIn's "agent").
func inferred(t *testing.T, typ reflect.Type) any {
	t.Helper()
	s, err := jsonschema.ForType(typ, &jsonschema.ForOptions{})
	if err != nil {
		t.Fatal(err)
	}
	text := strings.ReplaceAll(mustJSON(s), "{{agents}}", strings.Join(agent.Names(), ", "))
	var v any
	if err := json.Unmarshal([]byte(text), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// toolTypes are the In and Out types of each tool.
var toolTypes = map[string][2]reflect.Type{
	"expand": {reflect.TypeFor[ExpandIn](), reflect.TypeFor[ExpandOut]()},
	"grep":   {reflect.TypeFor[GrepIn](), reflect.TypeFor[GrepOut]()},
	"search": {reflect.TypeFor[SearchIn](), reflect.TypeFor[SearchOut]()},
	"stats":  {reflect.TypeFor[StatsIn](), reflect.TypeFor[StatsOut]()},
}

// TestSchemasAreThoseOfTheTypes: the schemas the server lists (written out in schema.go) are
// those the SDK's jsonschema-go infers from the In and Out types, so they cannot drift apart.
func TestSchemasAreThoseOfTheTypes(t *testing.T) {
	cs := connect(t, Options{})
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != len(toolTypes) {
		t.Fatalf("%d tools, want %d", len(tools.Tools), len(toolTypes))
	}
	for _, tl := range tools.Tools {
		types, ok := toolTypes[tl.Name]
		if !ok {
			t.Fatalf("tool %q has no types here", tl.Name)
		}
		if want := inferred(t, types[0]); !reflect.DeepEqual(tl.InputSchema, want) {
			t.Errorf("%s: input schema\n%s\nthe type's\n%s", tl.Name, mustJSON(tl.InputSchema), mustJSON(want))
		}
		if want := inferred(t, types[1]); !reflect.DeepEqual(tl.OutputSchema, want) {
			t.Errorf("%s: output schema\n%s\nthe type's\n%s", tl.Name, mustJSON(tl.OutputSchema), mustJSON(want))
		}
	}
}

// TestValidationAgreesWithJSONSchema: the server accepts the arguments jsonschema-go accepts
// (as the SDK reads them: absent or null is {}), rejects those it rejects, and says which
// property is wrong.
func TestValidationAgreesWithJSONSchema(t *testing.T) {
	for _, c := range []struct {
		tool, args string
		want       string // in the error; "" for valid arguments
	}{
		{"grep", `{"pattern":"x","paths":["/s"]}`, ""},
		{"grep", `{"pattern":"x","paths":null}`, ""},
		{"grep", `{"pattern":"x","paths":[],"max_hits":3.0,"fixed":true,"roles":["user"]}`, ""},
		{"grep", `{"pattern":"x","paths":[],"max_hits":1e3}`, ""},
		{"grep", `{"pattern":7,"paths":["/s"]}`, "pattern"},
		{"grep", `{"pattern":null,"paths":["/s"]}`, "pattern"},
		{"grep", `{"pattern":"x"}`, `"paths"`},
		{"grep", `{"pattern":"x","paths":["/s",3]}`, "paths[1]"},
		{"grep", `{"pattern":"x","paths":"/s"}`, "paths"},
		{"grep", `{"pattern":"x","paths":[],"max_hits":1.5}`, "max_hits"},
		{"grep", `{"pattern":"x","paths":[],"max_hits":"3"}`, "max_hits"},
		{"grep", `{"pattern":"x","paths":[],"max_hits":1e400}`, "max_hits"},
		{"grep", `{"pattern":"x","paths":[],"fixed":"yes"}`, "fixed"},
		{"grep", `{"pattern":"x","paths":[],"bogus":1}`, `"bogus"`},
		{"grep", `{"Pattern":"x","paths":[]}`, `"Pattern"`},
		{"grep", `[1]`, "object"},
		{"grep", `"x"`, "object"},
		{"grep", ``, `"pattern"`},
		{"grep", `null`, `"pattern"`},
		{"expand", `{"path":"/s","marker":2,"offset":0}`, ""},
		{"expand", `{"path":"/s","marker":-1}`, ""},
		{"expand", `{}`, `"path"`},
		{"search", `{"query":"q","paths":["/s"],"since":"2026-01-01T00:00:00Z","limit":5}`, ""},
		{"search", `{"query":"q","paths":["/s"],"roles":[null]}`, "roles[0]"},
		{"stats", `{"paths":["/s"]}`, ""},
		{"stats", `{"paths":[{}]}`, "paths[0]"},
	} {
		var tl *tool
		s := NewServer(Options{})
		for i := range s.tools {
			if s.tools[i].name == c.tool {
				tl = &s.tools[i]
			}
		}
		_, err := tl.input.validate(json.RawMessage(c.args))
		rs, rerr := inferredSchema(t, toolTypes[c.tool][0]).Resolve(nil)
		if rerr != nil {
			t.Fatal(rerr)
		}
		var v any = map[string]any{}
		var theirs error
		if c.args != "" && c.args != "null" {
			theirs = json.Unmarshal([]byte(c.args), &v)
		}
		if theirs == nil {
			theirs = rs.Validate(v)
		}
		if (err == nil) != (theirs == nil) {
			t.Errorf("%s %s: ours %v, jsonschema-go's %v", c.tool, c.args, err, theirs)
		}
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("%s %s: %v, want an error about %s", c.tool, c.args, err, c.want)
		}
	}
}

func inferredSchema(t *testing.T, typ reflect.Type) *jsonschema.Schema {
	t.Helper()
	s, err := jsonschema.ForType(typ, &jsonschema.ForOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestIntegersDecodeAsTheSDKDecodes: an integer written 3.0 or 1e3 reaches the tool as an int;
// one too large for an int is a tool error that names the property.
func TestIntegersDecodeAsTheSDKDecodes(t *testing.T) {
	var got ExpandIn
	s := &Server{tools: []tool{newTool("expand", "", expandInSchema, expandOutSchema, func(_ context.Context, in ExpandIn) (ExpandOut, error) {
		got = in
		return ExpandOut{}, nil
	})}}
	res := s.tools[0].call(context.Background(), json.RawMessage(`{"path":"/s","marker":3.0,"offset":1e3}`))
	if res.IsError || got.Marker != 3 || got.Offset != 1000 {
		t.Errorf("%+v: %+v", res, got)
	}
	res = s.tools[0].call(context.Background(), json.RawMessage(`{"path":"/s","marker":1e19}`))
	if !res.IsError || !strings.Contains(res.Content[0].Text, "marker") {
		t.Errorf("1e19: %+v", res)
	}
}

// TestToolResultsFitTheirSchemas: what each tool returns is valid against its output schema.
func TestToolResultsFitTheirSchemas(t *testing.T) {
	dir := t.TempDir()
	p := session(t, dir)
	cs := connect(t, Options{IndexDir: t.TempDir()})
	for name, args := range map[string]map[string]any{
		"grep":   {"pattern": "quokka-7", "paths": []string{dir}},
		"expand": {"path": p},
		"search": {"query": "quokka", "paths": []string{dir}},
		"stats":  {"paths": []string{p}},
	} {
		res := call(t, cs, name, args, nil)
		if res.IsError {
			t.Fatalf("%s: %s", name, errText(res))
		}
		rs, err := inferredSchema(t, toolTypes[name][1]).Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(res.StructuredContent); err != nil {
			t.Errorf("%s: %v\n%s", name, err, mustJSON(res.StructuredContent))
		}
		if text := errText(res); text != mustJSON(res.StructuredContent) && !jsonEqual(text, mustJSON(res.StructuredContent)) {
			t.Errorf("%s: text content %s is not the structured content", name, text)
		}
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	return json.Unmarshal([]byte(a), &x) == nil && json.Unmarshal([]byte(b), &y) == nil && reflect.DeepEqual(x, y)
}

// waitIn are the arguments of the test tools.
type waitIn struct {
	Text string `json:"text,omitempty"`
}

const waitSchema = `{"type":"object","properties":{"text":{"type":"string"}},"additionalProperties":false}`

// testTools are tools that show what the protocol does with calls: "echo" answers at once,
// "hold" when released (or cancelled), "wait" when cancelled. Each call of hold and wait sends
// its context to started.
type testTools struct {
	started chan context.Context
	release chan struct{}
}

// call returns the context of the next call of hold or wait.
func (tt *testTools) call(t *testing.T) context.Context {
	t.Helper()
	select {
	case ctx := <-tt.started:
		return ctx
	case <-time.After(10 * time.Second):
		t.Fatal("the tool was not called")
		return nil
	}
}

func newTestServer() (*Server, *testTools) {
	tt := &testTools{started: make(chan context.Context, 10), release: make(chan struct{})}
	echo := func(_ context.Context, in waitIn) (waitIn, error) { return in, nil }
	hold := func(ctx context.Context, in waitIn) (waitIn, error) {
		tt.started <- ctx
		select {
		case <-tt.release:
			return in, nil
		case <-ctx.Done():
			return in, ctx.Err()
		}
	}
	wait := func(ctx context.Context, in waitIn) (waitIn, error) {
		tt.started <- ctx
		<-ctx.Done()
		return in, ctx.Err()
	}
	return &Server{tools: []tool{
		newTool("echo", "", waitSchema, waitSchema, echo),
		newTool("hold", "", waitSchema, waitSchema, hold),
		newTool("wait", "", waitSchema, waitSchema, wait),
	}}, tt
}

// wire is a client writing raw lines to a server over pipes.
type wire struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan string
	done  chan error
}

// startInitialized starts a wire and initializes the connection (its answer read).
func startInitialized(t *testing.T, ctx context.Context, s *Server) *wire {
	w := startWire(t, ctx, s)
	w.send(initialize)
	w.next()
	return w
}

func startWire(t *testing.T, ctx context.Context, s *Server) *wire {
	sr, w := io.Pipe()
	r, sw := io.Pipe()
	wr := &wire{t: t, in: w, lines: make(chan string, 100), done: make(chan error, 1)}
	go func() { wr.done <- s.Run(ctx, sr, sw); sw.Close() }()
	go func() {
		br := bufio.NewReader(r)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				close(wr.lines)
				return
			}
			wr.lines <- strings.TrimSuffix(l, "\n")
		}
	}()
	t.Cleanup(func() { w.Close(); r.Close() })
	return wr
}

func (w *wire) send(lines ...string) {
	w.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(w.in, l+"\n"); err != nil {
			w.t.Fatal(err)
		}
	}
}

func (w *wire) next() string {
	w.t.Helper()
	select {
	case l := <-w.lines:
		return l
	case <-time.After(10 * time.Second):
		w.t.Fatal("no answer")
		return ""
	}
}

// end closes the input and returns what Run returned.
func (w *wire) end() error {
	w.t.Helper()
	w.in.Close()
	select {
	case err := <-w.done:
		return err
	case <-time.After(10 * time.Second):
		w.t.Fatal("Run did not return at the end of the input")
		return nil
	}
}

const initialize = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func callLine(id, name string) string {
	return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":{"name":"` + name + `","arguments":{"text":"` + name + `"}}}`
}

// TestProtocol: the answers to each kind of message, line for line (calls are answered at
// once by echo; the other requests in the order they came).
func TestProtocol(t *testing.T) {
	const ok = `{"jsonrpc":"2.0","id":%s,"result":{}}`
	for _, c := range []struct {
		name string
		in   []string
		want []string
	}{
		{"ping before initialize", []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`},
			[]string{`{"jsonrpc":"2.0","id":1,"result":{}}`}},
		{"initialize: the client's version", []string{initialize},
			[]string{`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"ctxc","version":"v1.2.3"}}}`}},
		{"initialize: a version the server does not speak", []string{`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2099-01-01"}}`},
			[]string{`{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"ctxc","version":"v1.2.3"}}}`}},
		{"initialize twice", []string{initialize, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`},
			[]string{`*`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: a second \"initialize\""}}`}},
		{"initialize without params", []string{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`},
			[]string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: \"initialize\" takes an object"}}`}},
		{"tools before initialize", []string{`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, callLine("2", "echo")},
			[]string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: method \"tools/list\" is invalid before initialize"}}`,
				`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"invalid request: method \"tools/call\" is invalid before initialize"}}`}},
		{"unknown method", []string{`{"jsonrpc":"2.0","id":1,"method":"resources/list"}`},
			[]string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: \"resources/list\""}}`}},
		{"bad JSON, then on", []string{`{"jsonrpc":"2.0","id":1,`, `not json`, `{"jsonrpc":"2.0","id":2,"method":"ping"}`},
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not a JSON value"}}`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not a JSON value"}}`,
				`{"jsonrpc":"2.0","id":2,"result":{}}`}},
		{"ids echoed as written", []string{`{"jsonrpc":"2.0","id":"a\u0042","method":"ping"}`, `{"jsonrpc":"2.0", "id" : "x" ,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":-1.5e3,"method":"ping"}`, `{"jsonrpc":"2.0","id":12345678901234567890,"method":"ping"}`},
			[]string{strings.Replace(ok, "%s", `"a\u0042"`, 1), strings.Replace(ok, "%s", `"x"`, 1), strings.Replace(ok, "%s", `-1.5e3`, 1),
				strings.Replace(ok, "%s", `12345678901234567890`, 1)}},
		{"a string id on a call", []string{initialize, callLine(`"c-1"`, "echo")},
			[]string{`*`, `{"jsonrpc":"2.0","id":"c-1","result":{"content":[{"type":"text","text":"{\"text\":\"echo\"}"}],"structuredContent":{"text":"echo"}}}`}},
		{"notifications are not answered", []string{`{"jsonrpc":"2.0","method":"notifications/initialized"}`, `{"jsonrpc":"2.0","method":"notifications/whatever","params":{}}`,
			`{"jsonrpc":"2.0","method":"ping"}`, `{"jsonrpc":"2.0","id":null,"method":"ping"}`, `{"jsonrpc":"2.0","id":3,"result":{}}`, `{"jsonrpc":"2.0","id":1,"method":"ping"}`},
			[]string{`{"jsonrpc":"2.0","id":1,"result":{}}`}},
		{"a notification with an id", []string{`{"jsonrpc":"2.0","id":1,"method":"notifications/initialized"}`},
			[]string{`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: unexpected id for \"notifications/initialized\""}}`}},
		{"invalid requests", []string{`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`, `7`, `{"jsonrpc":"1.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":true,"method":"ping"}`,
			`{"jsonrpc":"2.0","id":2,"method":7}`, `{"jsonrpc":"2.0","id":3}`},
			[]string{`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: batches are not supported"}}`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: not an object"}}`,
				`{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}`,
				`{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: the id must be a string or a number"}}`,
				`{"jsonrpc":"2.0","id":2,"error":{"code":-32600,"message":"invalid request: \"method\" must be a string"}}`,
				`{"jsonrpc":"2.0","id":3,"error":{"code":-32600,"message":"invalid request: no \"method\""}}`}},
		{"tools/list", []string{initialize, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":"x"}}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list","params":{}}`},
			[]string{`*`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: the tools are listed on one page, without a cursor"}}`,
				`{"jsonrpc":"2.0","id":2,"result":{"tools":[{"name":"echo","description":"","inputSchema":` + compactJSON(waitSchema) + `,"outputSchema":` + compactJSON(waitSchema) + `},*`}},
		{"unknown tool", []string{initialize, callLine("1", "nope")},
			[]string{`*`, `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"unknown tool \"nope\""}}`}},
		{"bad arguments", []string{initialize, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":1,"more":2}}}`},
			[]string{`*`, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"validating \"arguments\": text: has type \"integer\", want \"string\"; unexpected additional properties: [\"more\"]"}],"isError":true}}`}},
		{"the last line without its newline", []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\r\n\n  \n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\r"},
			[]string{`{"jsonrpc":"2.0","id":1,"result":{}}`, `{"jsonrpc":"2.0","id":2,"result":{}}`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newTestServer()
			s.o.Version = "v1.2.3"
			var out bytes.Buffer
			if err := s.Run(context.Background(), strings.NewReader(strings.Join(c.in, "\n")), &out); err != nil {
				t.Fatal(err)
			}
			got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
			if out.Len() == 0 {
				got = nil
			}
			if len(got) != len(c.want) {
				t.Fatalf("%d answers, want %d:\n%s", len(got), len(c.want), out.String())
			}
			for i, w := range c.want {
				if w, prefix := strings.CutSuffix(w, "*"); prefix && strings.HasPrefix(got[i], w) || got[i] == w {
					continue
				}
				t.Errorf("answer %d:\n%s\nwant\n%s", i+1, got[i], w)
			}
		})
	}
}

func compactJSON(s string) string {
	var b bytes.Buffer
	json.Compact(&b, []byte(s))
	return b.String()
}

// TestCancelled: notifications/cancelled cancels the call's context, and the call is not
// answered; the server goes on.
func TestCancelled(t *testing.T) {
	s, tt := newTestServer()
	w := startInitialized(t, context.Background(), s)
	w.send(callLine(`"slow"`, "wait"))
	ctx := tt.call(t)
	w.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"slow","reason":"enough"}}`)
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the call was not cancelled")
	}
	w.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if got := w.next(); got != `{"jsonrpc":"2.0","id":2,"result":{}}` {
		t.Errorf("after the cancel: %s", got)
	}
	if err := w.end(); err != nil {
		t.Errorf("Run: %v", err)
	}
	for l := range w.lines {
		t.Errorf("an answer after the cancel: %s", l)
	}
}

// TestAnswersOutOfOrder: a quick call is answered while a slow one runs; the slow one after.
func TestAnswersOutOfOrder(t *testing.T) {
	s, tt := newTestServer()
	w := startInitialized(t, context.Background(), s)
	w.send(callLine("1", "hold"))
	tt.call(t)
	w.send(callLine("2", "echo"))
	if got := w.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":2,"result":`) {
		t.Errorf("first answer: %s", got)
	}
	close(tt.release)
	if got := w.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"text\":\"hold\"}"}]`) {
		t.Errorf("second answer: %s", got)
	}
	if err := w.end(); err != nil {
		t.Errorf("Run: %v", err)
	}
}

// TestSameIDInFlight: a call whose id is that of a call in flight is refused, with id null (the
// answer cannot be told from the first call's); once that call is answered, its id is free.
func TestSameIDInFlight(t *testing.T) {
	s, tt := newTestServer()
	w := startInitialized(t, context.Background(), s)
	w.send(callLine("1", "hold"))
	tt.call(t)
	w.send(callLine("1", "echo"))
	if got := w.next(); got != `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: id 1 is in use by a call in flight"}}` {
		t.Errorf("same id: %s", got)
	}
	close(tt.release)
	w.next()
	w.send(callLine("1", "echo"))
	if got := w.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":`) {
		t.Errorf("the id again: %s", got)
	}
	w.end()
}

// TestEndOfInput: when the input ends, the calls in flight finish and are answered (a script
// that pipes its requests gets their answers), and then Run returns nil.
func TestEndOfInput(t *testing.T) {
	s, tt := newTestServer()
	w := startInitialized(t, context.Background(), s)
	w.send(callLine("1", "hold"))
	ctx := tt.call(t)
	w.in.Close()
	select {
	case err := <-w.done:
		t.Fatalf("Run returned before the call in flight finished: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	if ctx.Err() != nil {
		t.Error("the call in flight was cancelled at the end of the input")
	}
	close(tt.release)
	if err := w.end(); err != nil {
		t.Errorf("Run: %v", err)
	}
	if got := w.next(); !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"{\"text\":\"hold\"}"}]`) {
		t.Errorf("answer: %s", got)
	}
}

// TestContextCancelled: cancelling Run's context (SIGINT, SIGTERM) ends it with the input still
// open, and cancels the calls in flight.
func TestContextCancelled(t *testing.T) {
	s, tt := newTestServer()
	ctx, cancel := context.WithCancel(context.Background())
	w := startInitialized(t, ctx, s)
	w.send(callLine("1", "wait"))
	callCtx := tt.call(t)
	cancel()
	select {
	case err := <-w.done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	<-callCtx.Done()
}

// TestLongMessage: a line longer than the limit is answered with an error and skipped.
func TestLongMessage(t *testing.T) {
	s, _ := newTestServer()
	long := `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"` + strings.Repeat("x", maxMessage) + `"}}`
	var out bytes.Buffer
	in := long + "\n" + `{"jsonrpc":"2.0","id":2,"method":"ping"}` + "\n" + long
	if err := s.Run(context.Background(), strings.NewReader(in), &out); err != nil {
		t.Fatal(err)
	}
	tooLong := `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: a message longer than 16 MiB"}}`
	if want := tooLong + "\n" + `{"jsonrpc":"2.0","id":2,"result":{}}` + "\n" + tooLong + "\n"; out.String() != want {
		t.Errorf("%s", out.String())
	}
}

// TestWriteFails: Run returns the error of a write that fails while the input is open.
func TestWriteFails(t *testing.T) {
	s, _ := newTestServer()
	r, w := io.Pipe()
	done := make(chan error, 1)
	go func() { done <- s.Run(context.Background(), r, failingWriter{}) }()
	io.WriteString(w, `{"jsonrpc":"2.0","id":1,"method":"ping"}`+"\n")
	select {
	case err := <-done:
		if err == nil || err.Error() != "disk full" {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not return")
	}
	w.Close()
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

// TestSDKClientCancels: the SDK's client, its context cancelled during a call, sends
// notifications/cancelled; the server cancels the call and serves the next.
func TestSDKClientCancels(t *testing.T) {
	s, tt := newTestServer()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	go s.Run(ctx, sr, sw)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: cr, Writer: cw}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	callCtx, stop := context.WithCancel(ctx)
	errc := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(callCtx, &mcp.CallToolParams{Name: "wait", Arguments: map[string]any{}})
		errc <- err
	}()
	toolCtx := tt.call(t)
	stop()
	if err := <-errc; err == nil {
		t.Error("the cancelled call returned no error")
	}
	select {
	case <-toolCtx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the tool's context was not cancelled")
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"text": "on"}})
	if err != nil || res.IsError || mustJSON(res.StructuredContent) != `{"text":"on"}` {
		t.Errorf("after the cancel: %+v %v", res, err)
	}
}
