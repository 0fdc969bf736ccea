package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// The protocol: JSON-RPC 2.0 messages, one per line, on the server's input and output (MCP's
// stdio transport); the requests a tools-only server answers (initialize, ping, tools/list,
// tools/call) and the notification it heeds (notifications/cancelled).

// protocolVersions are the versions of MCP the server speaks, newest first: a client asking for
// one of them gets it, any other client the newest.
var protocolVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// maxMessage bounds one line of input: a longer one is answered with an error and skipped.
const maxMessage = 16 << 20

// JSON-RPC's error codes.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601
	codeInvalidParams  = -32602
	codeInternalError  = -32603
)

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func errorf(code int, format string, args ...any) *rpcError {
	return &rpcError{Code: code, Message: fmt.Sprintf(format, args...)}
}

// response is every message the server writes.
type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// nullID answers a message whose id cannot be read.
var nullID = json.RawMessage("null")

// message is a request (id set) or a notification read from the input.
type message struct {
	id       json.RawMessage // as the client wrote it: the answer echoes it byte for byte
	method   string
	params   json.RawMessage
	response bool // a response: the server asks nothing, so it is dropped
}

// conn is the server's side of one connection.
type conn struct {
	server *Server

	out     io.Writer
	writeMu sync.Mutex
	closed  atomic.Bool // nothing more is written
	ended   atomic.Bool // the input ended: a failed write is the client gone, not an error
	broken  chan struct{}
	failed  sync.Once
	failure error // the first failed write, before broken is closed

	initialized bool // read and written by the reading goroutine only

	callCtx   context.Context
	stopCalls context.CancelFunc
	mu        sync.Mutex
	calls     map[string]*inFlight // the tools/call requests in flight, by idKey
	wg        sync.WaitGroup
}

// inFlight is a tools/call being run.
type inFlight struct {
	cancel    context.CancelFunc
	cancelled bool // by the client: the request is not answered
}

// Run serves one client reading r and writing w (standard input and output for `ctxc mcp`)
// until the input ends, ctx is cancelled or a write fails. When the input ends, the calls in
// flight finish and their answers are written (a script may pipe its requests and close the
// input), and Run returns nil; a cancelled ctx cancels them.
func (s *Server) Run(ctx context.Context, r io.Reader, w io.Writer) error {
	c := &conn{server: s, out: w, broken: make(chan struct{}), calls: map[string]*inFlight{}}
	c.callCtx, c.stopCalls = context.WithCancel(ctx)
	defer c.close()
	served := make(chan error, 1)
	go func() { served <- c.serve(r) }()
	select {
	case err := <-served:
		return err
	case <-ctx.Done():
		return ctx.Err()
	case <-c.broken:
		return c.failure
	}
}

// serve reads and handles messages until the input ends, then waits for the calls in flight
// (cancelled first when the input failed rather than ended).
func (c *conn) serve(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var err error
	for err == nil && !c.closed.Load() {
		var line []byte
		var tooLong bool
		line, tooLong, err = readLine(br)
		switch {
		case err != nil:
		case tooLong:
			c.reply(nullID, nil, errorf(codeInvalidRequest, "invalid request: a message longer than %d MiB", maxMessage>>20))
		default:
			c.handle(line)
		}
	}
	c.ended.Store(true)
	if err != io.EOF {
		c.stopCalls()
	}
	c.wg.Wait()
	if err == io.EOF {
		return nil
	}
	return err
}

// readLine returns the next line of input without its newline (the last one may lack it);
// tooLong says it was longer than maxMessage, and then it is not returned.
func readLine(br *bufio.Reader) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) <= maxMessage {
			line = append(line, chunk...)
		} else {
			tooLong, line = true, nil
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && (len(line) > 0 || tooLong) {
			err = nil // the last line; io.EOF comes with the next read
		}
		return line, tooLong, err
	}
}

// close stops the connection as Run returns: no more writes, the calls cancelled.
func (c *conn) close() {
	c.closed.Store(true)
	c.stopCalls()
}

// handle answers one line of input.
func (c *conn) handle(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	m, err := parseMessage(line)
	switch {
	case err != nil:
		id := m.id
		if id == nil {
			id = nullID
		}
		c.reply(id, nil, err)
	case m.response:
	default:
		c.dispatch(m)
	}
}

// parseMessage reads a line as a JSON-RPC message. On an error, the message holds the id when
// it could be read.
func parseMessage(line []byte) (message, *rpcError) {
	var m message
	if !json.Valid(line) {
		return m, errorf(codeParseError, "parse error: not a JSON value")
	}
	if line[0] == '[' {
		return m, errorf(codeInvalidRequest, "invalid request: batches are not supported")
	}
	var fields map[string]json.RawMessage
	if line[0] != '{' || json.Unmarshal(line, &fields) != nil {
		return m, errorf(codeInvalidRequest, "invalid request: not an object")
	}
	if id, ok := fields["id"]; ok && !isNull(id) { // an id null is no id, as for the SDK
		if !isID(id) {
			return m, errorf(codeInvalidRequest, "invalid request: the id must be a string or a number")
		}
		m.id = id
	}
	var version string
	if json.Unmarshal(fields["jsonrpc"], &version) != nil || version != "2.0" {
		return m, errorf(codeInvalidRequest, `invalid request: "jsonrpc" must be "2.0"`)
	}
	method, ok := fields["method"]
	if !ok {
		_, result := fields["result"]
		_, failed := fields["error"]
		if result || failed {
			m.response = true
			return m, nil
		}
		return m, errorf(codeInvalidRequest, `invalid request: no "method"`)
	}
	if json.Unmarshal(method, &m.method) != nil {
		return m, errorf(codeInvalidRequest, `invalid request: "method" must be a string`)
	}
	m.params = fields["params"]
	return m, nil
}

// dispatch answers a request or heeds a notification.
func (c *conn) dispatch(m message) {
	if strings.HasPrefix(m.method, "notifications/") {
		c.notification(m)
		return
	}
	if m.id == nil {
		return // a request sent as a notification: no one waits for its answer
	}
	switch m.method {
	case "initialize":
		res, err := c.initialize(m.params)
		c.reply(m.id, res, err)
	case "ping":
		c.reply(m.id, struct{}{}, nil)
	case "tools/list", "tools/call":
		switch {
		case !c.initialized:
			c.reply(m.id, nil, errorf(codeInvalidRequest, "invalid request: method %q is invalid before initialize", m.method))
		case m.method == "tools/list":
			res, err := c.server.listTools(m.params)
			c.reply(m.id, res, err)
		default:
			c.startCall(m)
		}
	default:
		c.reply(m.id, nil, errorf(codeMethodNotFound, "method not found: %q", m.method))
	}
}

// notification heeds notifications/cancelled; the others (initialized, roots changed...) need
// nothing of a tools-only server.
func (c *conn) notification(m message) {
	if m.id != nil {
		c.reply(m.id, nil, errorf(codeInvalidRequest, "invalid request: unexpected id for %q", m.method))
		return
	}
	if m.method == "notifications/cancelled" {
		fields, _ := object(m.params)
		c.cancel(fields["requestId"])
	}
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

type initializeResult struct {
	ProtocolVersion string          `json:"protocolVersion"`
	Capabilities    json.RawMessage `json:"capabilities"`
	ServerInfo      implementation  `json:"serverInfo"`
}

// initialize answers the client's first request: the protocol version and the server's tools.
func (c *conn) initialize(params json.RawMessage) (any, *rpcError) {
	if c.initialized {
		return nil, errorf(codeInvalidRequest, `invalid request: a second "initialize"`)
	}
	fields, ok := object(params)
	if !ok {
		return nil, errorf(codeInvalidParams, `invalid params: "initialize" takes an object`)
	}
	var asked string
	json.Unmarshal(fields["protocolVersion"], &asked) // not a string: a version the server does not speak
	version := protocolVersions[0]
	if slices.Contains(protocolVersions, asked) {
		version = asked
	}
	c.initialized = true
	return initializeResult{
		ProtocolVersion: version,
		Capabilities:    json.RawMessage(`{"tools":{}}`),
		ServerInfo:      implementation{Name: "ctxc", Version: c.server.version()},
	}, nil
}

// startCall runs a tools/call in its own goroutine, cancelled by notifications/cancelled or by
// Run's context; its answer may come after those of later requests.
func (c *conn) startCall(m message) {
	t, args, err := c.server.toolFor(m.params)
	if err != nil {
		c.reply(m.id, nil, err)
		return
	}
	key := idKey(m.id)
	ctx, ok := c.track(key)
	if !ok {
		c.reply(nullID, nil, errorf(codeInvalidRequest, "invalid request: id %s is in use by a call in flight", m.id))
		return
	}
	go func() {
		defer c.wg.Done()
		res := t.call(ctx, args)
		if c.untrack(key) {
			c.reply(m.id, res, nil)
		}
	}()
}

// track records a call in flight and returns its context; false if its id is in use.
func (c *conn) track(key string) (context.Context, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, busy := c.calls[key]; busy {
		return nil, false
	}
	ctx, cancel := context.WithCancel(c.callCtx)
	c.calls[key] = &inFlight{cancel: cancel}
	c.wg.Add(1)
	return ctx, true
}

// untrack forgets a finished call (so that its id may be used again once answered) and says
// whether to answer it: not when the client cancelled it.
func (c *conn) untrack(key string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	cl := c.calls[key]
	delete(c.calls, key)
	cl.cancel()
	return !cl.cancelled
}

// cancel cancels the call in flight with this id, if any.
func (c *conn) cancel(id json.RawMessage) {
	if !isID(id) {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cl, ok := c.calls[idKey(id)]; ok {
		cl.cancelled = true
		cl.cancel()
	}
}

// reply writes the answer to a request: its result or its error.
func (c *conn) reply(id json.RawMessage, result any, err *rpcError) {
	r := response{JSONRPC: "2.0", ID: id, Result: result}
	if err != nil {
		r.Result, r.Error = nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // one line: Encode ends it with a newline, and escapes those in strings
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r); err != nil {
		buf.Reset()
		enc.Encode(response{JSONRPC: "2.0", ID: id, Error: errorf(codeInternalError, "internal error: %v", err)})
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if c.closed.Load() {
		return
	}
	if _, err := c.out.Write(buf.Bytes()); err != nil {
		c.closed.Store(true)
		if !c.ended.Load() {
			c.failed.Do(func() { c.failure = err; close(c.broken) })
		}
	}
}

// object returns the members of a JSON object; false if raw is not one.
func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var fields map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &fields) != nil {
		return nil, false
	}
	return fields, true
}

func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// isID says whether raw is a JSON-RPC id: a string or a number.
func isID(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '"' || raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9')
}

// idKey names a request id in the calls in flight: the string, or the number as written.
func idKey(id json.RawMessage) string {
	var s string
	if json.Unmarshal(id, &s) == nil {
		return "s" + s
	}
	return "n" + string(id)
}
