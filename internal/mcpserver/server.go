// Package mcpserver offers ctxc's grep, expand, search and stats as tools of a Model Context
// Protocol server, so that an agent can look up what its own compaction left out. Results are
// bounded in size and say when they were cut.
//
// The server speaks the protocol itself: JSON-RPC 2.0 messages, one a line, on standard input
// and output, and of MCP what a server of tools needs (initialize, ping, tools/list, tools/call
// and cancellation). The official Go SDK would cost every ctxc process, though few of them serve
// MCP, several milliseconds of start-up in its packages' initialisation; ctxc's tests talk to
// this server with the SDK's client instead, so that the SDK judges the protocol. It imports
// neither cobra nor viper.
package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ctxc/ctxc/internal/address"
	"github.com/ctxc/ctxc/internal/expand"
	"github.com/ctxc/ctxc/internal/grep"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Options of the server.
type Options struct {
	// MaxBytes bounds the JSON of one tool result (default 64 KiB): longer results are cut and
	// say so.
	MaxBytes int
	// MaxFiles bounds how many files one call reads (default 2,000).
	MaxFiles int
	Version  string
	// IndexDir is the index the search tool keeps (default $XDG_CACHE_HOME/ctxc/index).
	IndexDir string
}

func (o Options) maxBytes() int {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return 64 << 10
}

func (o Options) maxFiles() int {
	if o.MaxFiles > 0 {
		return o.MaxFiles
	}
	return 2000
}

// GrepIn are the arguments of the grep tool.
type GrepIn struct {
	Pattern    string   `json:"pattern" jsonschema:"RE2 regular expression (or a fixed string with fixed=true) searched in the decoded message text"`
	Paths      []string `json:"paths" jsonschema:"session files or directories (every *.jsonl below them)"`
	Fixed      bool     `json:"fixed,omitempty" jsonschema:"the pattern is a fixed string"`
	IgnoreCase bool     `json:"ignore_case,omitempty" jsonschema:"ignore case"`
	Roles      []string `json:"roles,omitempty" jsonschema:"only these roles: user, assistant, tool, system, developer, summary"`
	Context    bool     `json:"context,omitempty" jsonschema:"search only the effective context, not the whole history"`
	MaxHits    int      `json:"max_hits,omitempty" jsonschema:"at most this many matches (default 50)"`
}

// GrepHit is one match.
type GrepHit struct {
	Path        string  `json:"path"`
	Line        int     `json:"line"`
	Role        string  `json:"role"`
	Message     int     `json:"message"`
	CoveredBy   int     `json:"covered_by,omitempty" jsonschema:"line of the later compaction that summarized this line"`
	CoveredSpan *[2]int `json:"covered_span,omitempty"`
	Text        string  `json:"text"`
}

// GrepOut is the grep tool's result.
type GrepOut struct {
	Hits      []GrepHit `json:"hits"`
	Truncated bool      `json:"truncated"`
	Note      string    `json:"note,omitempty"`
	Errors    []string  `json:"errors,omitempty"`
}

// ExpandIn are the arguments of the expand tool.
type ExpandIn struct {
	Path   string `json:"path" jsonschema:"a session file holding a compaction ctxc wrote"`
	Marker int    `json:"marker,omitempty" jsonschema:"which compaction: 1 = the first in the file (default: the last)"`
	Offset int    `json:"offset,omitempty" jsonschema:"skip this many messages (to page through a long expansion)"`
}

// ExpandMessage is one message a compaction replaced.
type ExpandMessage struct {
	Line int    `json:"line"`
	Role string `json:"role"`
	Text string `json:"text"`
}

// ExpandOut is the expand tool's result.
type ExpandOut struct {
	Marker    int             `json:"marker_line"`
	Source    string          `json:"source"`
	FromLine  int             `json:"from_line"`
	ToLine    int             `json:"to_line"`
	Total     int             `json:"total_messages"`
	Offset    int             `json:"offset"`
	Messages  []ExpandMessage `json:"messages"`
	Truncated bool            `json:"truncated"`
	Note      string          `json:"note,omitempty"`
}

// StatsIn are the arguments of the stats tool.
type StatsIn struct {
	Paths []string `json:"paths" jsonschema:"session files or directories"`
}

// StatsOut is the stats tool's result.
type StatsOut struct {
	Files     []any    `json:"files"`
	Truncated bool     `json:"truncated"`
	Note      string   `json:"note,omitempty"`
	Errors    []string `json:"errors,omitempty"`
}

// The tools' descriptions, for the agent that chooses among them.
const (
	grepDescription   = "Search the conversation text of LLM-agent sessions (Claude Code, Codex, pi, OpenAI/Anthropic message lists), including what compactions summarized: file, line, role, message index, the compaction that covered the line, and a snippet."
	expandDescription = "The original messages a compaction replaced (read from the lines its ctxc provenance names, checked against the recorded SHA-256), to recover detail a summary left out."
	searchDescription = "Find the messages of past sessions that best match some words (BM25 over an index kept up to date with the paths): session, agent, project folder, time, role, a snippet, and the command that resumes the session. Use it to find the session where something was done; then grep or expand for the detail."
	statsDescription  = "Sizes of sessions: messages by role, tool calls, estimated tokens of the whole history and of the effective context, compactions."
)

// Server is the MCP server with ctxc's tools; Run serves one client.
type Server struct {
	o     Options
	tools []tool // by name
}

// tool is one tool: what tools/list says of it and what tools/call runs.
type tool struct {
	name, description         string
	inputSchema, outputSchema json.RawMessage
	input                     *schema
	// run decodes the validated arguments into the tool's In type and calls it.
	run func(ctx context.Context, args any) (any, error)
}

// NewServer returns the MCP server with ctxc's tools.
func NewServer(o Options) *Server {
	return &Server{o: o, tools: []tool{
		newTool("expand", expandDescription, expandInSchema, expandOutSchema,
			func(_ context.Context, in ExpandIn) (ExpandOut, error) { return o.expand(in) }),
		newTool("grep", grepDescription, grepInSchema, grepOutSchema, o.grep),
		newTool("search", searchDescription, searchInSchema(), searchOutSchema,
			func(_ context.Context, in SearchIn) (SearchOut, error) { return o.search(in) }),
		newTool("stats", statsDescription, statsInSchema, statsOutSchema, o.stats),
	}}
}

// newTool makes a tool of a function from its In type to its Out type, as the SDK's typed
// tools are: the arguments are validated against the input schema, and a Go error is a tool
// error.
func newTool[In, Out any](name, description, inSchema, outSchema string, f func(context.Context, In) (Out, error)) tool {
	return tool{
		name: name, description: description,
		inputSchema: json.RawMessage(inSchema), outputSchema: json.RawMessage(outSchema),
		input: mustSchema(inSchema),
		run: func(ctx context.Context, args any) (any, error) {
			var in In
			if err := decodeArgs(args, &in); err != nil {
				return nil, err
			}
			return f(ctx, in)
		},
	}
}

func (s *Server) version() string {
	if s.o.Version == "" {
		return "dev"
	}
	return s.o.Version
}

// files expands paths as the command line does (address.Expander), but for "-", patterns and
// URLs, and a path that is neither a file nor a store's session is an error: a session of a
// store (STORE#SESSION-ID) and a file as they are, a store for its sessions, a directory for
// every session below it (transcript.Finder: *.jsonl, archived *.jsonl.zst, stores, not the
// files an agent keeps beside its sessions; links followed, each file once). problems are what
// the walks went past (a folder that could not be read, a loop of links), for the result's
// errors.
func (o Options) files(paths []string) (files []string, cut bool, problems []string, err error) {
	if len(paths) == 0 {
		return nil, false, nil, errors.New("paths: give at least one session file or directory")
	}
	finder := transcript.NewFinder(true, filepath.WalkDir)
	files, err = (&address.Expander{Finder: finder}).Expand(paths)
	if err != nil {
		return nil, false, nil, err
	}
	for _, p := range finder.Problems {
		problems = append(problems, p.Error())
	}
	if len(files) > o.maxFiles() {
		return files[:o.maxFiles()], true, problems, nil
	}
	return files, false, problems, nil
}

var errStop = errors.New("stop")

func (o Options) grep(ctx context.Context, in GrepIn) (GrepOut, error) {
	out := GrepOut{Hits: []GrepHit{}}
	if in.Pattern == "" {
		return out, errors.New("pattern: empty")
	}
	p, err := grep.Compile(in.Pattern, in.Fixed, in.IgnoreCase)
	if err != nil {
		return out, err
	}
	p.WithoutHighlights() // a tool result gives the text only
	opts := grep.Options{Context: in.Context, Indexed: true}
	if opts.Roles, err = grep.ParseRoles(in.Roles); err != nil {
		return out, fmt.Errorf("roles: %w", err)
	}
	maxHits := in.MaxHits
	if maxHits <= 0 {
		maxHits = 50
	}
	if maxHits > 10000 {
		return out, errors.New("max_hits: at most 10000")
	}
	files, cut, problems, err := o.files(in.Paths)
	if err != nil {
		return out, err
	}
	out.Errors = append(out.Errors, problems...)
	size := 400 // the JSON around the hits, the note included
	for _, f := range files {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		err := grep.File(f, p, opts, func(h grep.Hit) error {
			if !h.Match {
				return nil
			}
			gh := GrepHit{Path: h.Path, Line: h.Line, Role: h.Role, Message: h.Index, CoveredBy: h.CoveredBy, CoveredSpan: h.Span, Text: h.Snippet.Text}
			b, _ := json.Marshal(gh)
			if len(out.Hits) >= maxHits || size+len(b)+1 > o.maxBytes() {
				out.Truncated = true
				return errStop
			}
			size += len(b) + 1
			out.Hits = append(out.Hits, gh)
			return nil
		})
		if errors.Is(err, errStop) {
			break
		}
		if err != nil {
			out.Errors = append(out.Errors, err.Error())
		}
	}
	switch {
	case out.Truncated:
		out.Note = fmt.Sprintf("cut after %d matches (max_hits %d, result limit %d bytes): narrow the pattern, roles or paths to see the rest", len(out.Hits), maxHits, o.maxBytes())
	case cut:
		out.Truncated = true
		out.Note = fmt.Sprintf("only the first %d files were searched: give narrower paths", o.maxFiles())
	}
	return out, nil
}

func (o Options) expand(in ExpandIn) (ExpandOut, error) {
	out := ExpandOut{Messages: []ExpandMessage{}}
	if in.Path == "" {
		return out, errors.New("path: give a session file")
	}
	if in.Marker < 0 || in.Offset < 0 {
		return out, errors.New("marker and offset must be 0 or more")
	}
	ex, err := expand.At(in.Path, in.Marker, transcript.FormatUnknown)
	if err != nil {
		return out, err
	}
	out.Marker, out.Source, out.FromLine, out.ToLine, out.Total, out.Offset = ex.Marker, ex.Source, ex.From, ex.To, len(ex.Messages), in.Offset
	if ex.Agent {
		out.Note = expand.AgentNote
	}
	size := 600 // the JSON around the messages, the source path and the note included
	for i := in.Offset; i < len(ex.Messages); i++ {
		m := &ex.Messages[i]
		em := ExpandMessage{Line: m.Line, Role: string(m.Role), Text: messageText(m)}
		b, _ := json.Marshal(em)
		if size+len(b)+1 > o.maxBytes() {
			if len(out.Messages) == 0 {
				// One message longer than the limit: its text is cut.
				keep := o.maxBytes() - size - 200
				if keep < 0 {
					keep = 0
				}
				em.Text = cutText(em.Text, keep) + "…[cut]"
				out.Messages = append(out.Messages, em)
				i++
			}
			out.Truncated = true
			out.Note = fmt.Sprintf("cut at the result limit (%d bytes): call again with offset %d for the next messages", o.maxBytes(), i)
			break
		}
		size += len(b) + 1
		out.Messages = append(out.Messages, em)
	}
	return out, nil
}

// messageText renders a message as readable text: its text, calls and results.
func messageText(m *transcript.Message) string {
	var parts []string
	for _, b := range m.Blocks {
		switch b.Kind {
		case transcript.BlockText, transcript.BlockThinking:
			parts = append(parts, b.Text)
		case transcript.BlockToolCall:
			parts = append(parts, fmt.Sprintf("[call %s %s %s]", b.ID, b.Name, b.Args))
		case transcript.BlockToolResult:
			parts = append(parts, fmt.Sprintf("[result %s] %s", b.ID, b.Text))
		}
	}
	return strings.Join(parts, "\n")
}

func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

func (o Options) stats(ctx context.Context, in StatsIn) (StatsOut, error) {
	out := StatsOut{Files: []any{}}
	files, cut, problems, err := o.files(in.Paths)
	if err != nil {
		return out, err
	}
	out.Errors = append(out.Errors, problems...)
	size := 400 // the JSON around the files, the note included
	for i, f := range files {
		if ctx.Err() != nil {
			return out, ctx.Err()
		}
		st, err := statsOne(f)
		if err != nil {
			out.Errors = append(out.Errors, err.Error())
			continue
		}
		b, _ := json.Marshal(st)
		if size+len(b)+1 > o.maxBytes() {
			out.Truncated = true
			out.Note = fmt.Sprintf("cut after %d of %d files at the result limit (%d bytes): give fewer paths", i, len(files), o.maxBytes())
			break
		}
		size += len(b) + 1
		var v any
		json.Unmarshal(b, &v)
		out.Files = append(out.Files, v)
	}
	if cut && !out.Truncated {
		out.Truncated = true
		out.Note = fmt.Sprintf("only the first %d files were read: give narrower paths", o.maxFiles())
	}
	return out, nil
}

func statsOne(path string) (*transcript.Stats, error) {
	res, err := transcript.ScanFile(path, transcript.Options{})
	if err != nil {
		return nil, err
	}
	return res.Stats, nil
}
