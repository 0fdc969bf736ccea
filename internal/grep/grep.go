package grep

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
	"github.com/tidwall/gjson"
)

// Options control a search.
type Options struct {
	Format transcript.Format // forced format; FormatUnknown detects
	Roles  map[string]bool   // only messages of these roles ("summary" for compaction summaries); nil: all
	// Context searches only the effective context (what the agent would send now) instead of
	// the whole history.
	Context bool
	// Around is how many messages before and after a match are reported with it (-C).
	Around int
	// Indexed asks for message indexes and the compaction that covered each line (--json):
	// every line is then decoded, not only those the prefilter picks.
	Indexed bool
}

// Hit is one matching message, or with Around one message of context around a match, or
// GroupBreak.
type Hit struct {
	Path    string  `json:"path"`
	Line    int     `json:"line"`
	Role    string  `json:"role"`
	Summary bool    `json:"summary,omitempty"`
	Index   int     `json:"message"` // index of the message in the history (or context); -1 unknown
	Snippet Snippet `json:"-"`
	Match   bool    `json:"match"` // false: a message of context (-C)
	// CoveredBy is the line of the later compaction record whose summarized span holds this
	// line (0: none). Span is that span when the compaction recorded it (ctxc provenance).
	CoveredBy int     `json:"covered_by,omitempty"`
	Span      *[2]int `json:"covered_span,omitempty"`
	InContext bool    `json:"in_context,omitempty"` // --context: the message is in the effective context
	// groupBreak: not a message (GroupBreak); unexported, so never in the JSON output.
	groupBreak bool
}

// GroupBreak is emitted, with Around, between two groups of messages that are not next to each
// other in the history (or the context): grep prints "--" there, as grep(1) -C does.
var GroupBreak = Hit{Index: -1, groupBreak: true}

// IsBreak reports whether h is GroupBreak rather than a message.
func (h Hit) IsBreak() bool { return h.groupBreak }

// compaction is a compaction record found in a file, with the span it summarized when known.
type compaction struct {
	line     int
	from, to int // 0: not recorded
	// Without ctxc's provenance, what the agent's own compaction kept of the lines before it:
	// pi, the entries from firstKeptEntryId on (keptFrom, a line); Claude Code, the records
	// preservedMessages names.
	keptFrom int
	kept     map[int]bool
}

func roleOf(m *transcript.Message) string {
	if m.Summary {
		return "summary"
	}
	if n := m.ToolResults(); n > 0 && n == len(m.Blocks) {
		return "tool" // a message of tool results only (Anthropic's user role), as stats counts it
	}
	return string(m.Role)
}

// texts lists the searchable texts of a message as they are decoded: text, thinking and
// tool-result text, and a tool call's name with its arguments' values.
func texts(m *transcript.Message, out []string) []string {
	for i := range m.Blocks {
		b := &m.Blocks[i]
		switch b.Kind {
		case transcript.BlockText, transcript.BlockThinking, transcript.BlockToolResult:
			if b.Text != "" {
				out = append(out, b.Text)
			}
		case transcript.BlockToolCall:
			out = append(out, b.Name+"\n"+argsText(b.Args))
		}
	}
	return out
}

// argsText renders tool-call arguments (JSON) as decoded text: each field's key and value on
// lines of their own, strings unescaped. Line breaks (never in the prefilter's literal) keep
// a match from spanning a key and its value, which are apart in the raw line.
func argsText(args string) string {
	a := gjson.Parse(args)
	if !a.IsObject() {
		if a.Type == gjson.String {
			return a.String()
		}
		return args
	}
	var b strings.Builder
	a.ForEach(func(k, v gjson.Result) bool {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(k.String())
		b.WriteByte('\n')
		if v.Type == gjson.String {
			b.WriteString(v.String())
		} else {
			b.WriteString(v.Raw)
		}
		return true
	})
	return b.String()
}

// match finds the first match in a message's texts.
func (p *Pattern) match(m *transcript.Message, buf []string) (Snippet, bool) {
	for _, t := range texts(m, buf[:0]) {
		if loc, ok := p.find(t); ok {
			return p.snippet(t, loc[0], loc[1]), true
		}
	}
	return Snippet{}, false
}

// preview is a message's first text as a snippet (a message of context).
func preview(m *transcript.Message) Snippet {
	ts := texts(m, nil)
	if len(ts) > 0 {
		t := ts[0]
		if len(t) > snipBefore+snipAfter {
			cut := snipBefore + snipAfter
			for cut > 0 && t[cut]&0xC0 == 0x80 {
				cut--
			}
			t = t[:cut] + "…"
		}
		return Snippet{Text: strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(t)}
	}
	return Snippet{}
}

// File searches one file and calls emit with each hit, in file order. DecodeAllEnv in the
// environment has it decode every line. An archived session (zstd, see transcript.OpenFile) is
// searched in its decompressed text, streamed through the chunked reader; its hits' line numbers
// are those of that text.
func File(path string, p *Pattern, opts Options, emit func(Hit) error) error {
	return FileRanges(path, p, opts, Ranges{}, emit)
}

// Range is a part of a file that a search can read instead of all of it: the bytes
// [From, To) of whole lines, the first of which is line number Line (1-based).
type Range struct {
	From, To int64
	Line     int
}

// Ranges are the parts of a file of Size bytes that hold every line that can match (an
// index's blocks), in file order; no parts: the whole file (Size, when known, then spares
// Files a stat).
type Ranges struct {
	Size  int64
	Parts []Range
	// Format is the format the index read the file in (with Parts: the file is not detected
	// again).
	Format transcript.Format
	// NoCompactions: the index saw no compaction record in the file. A generic file's lines
	// are then read in parts as an agent's are (no ctxc marker makes later lines copies).
	NoCompactions bool
}

// partsOK reports whether a file read in format can be read in rs's parts: an agent's format,
// or the generic one the index read it in and found no compaction record in.
func (rs Ranges) partsOK(format transcript.Format) bool {
	if format.Snapshot() { // its text is not the file's bytes: read through transcript.OpenFile
		return false
	}
	return format.Native() || format != transcript.FormatUnknown && format == rs.Format && rs.NoCompactions
}

// FileRanges is File reading only rs's parts of the file, when that finds what reading it whole
// does: on the prefilter's path, in an agent's own format or a generic one without compaction
// records (in a generic one, a ctxc marker read or not changes which later lines are copies),
// while the file has rs.Size bytes. Else,
// and for the searches that decode every line, it reads the whole file as File does. The hits
// and their line numbers are those of File.
func FileRanges(path string, p *Pattern, opts Options, rs Ranges, emit func(Hit) error) error {
	if done, err := fileParts(path, p, opts, rs, emit); done {
		return err
	}
	f, err := transcript.OpenFile(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if opts.Context {
		return grepContext(path, p, opts, emit)
	}
	format, err := rangesFormat(f, path, opts, rs)
	if err != nil {
		return err
	}
	g := &grepper{path: path, p: p, opts: opts, format: format, emit: emit}
	size := f.Info().Size()
	if decodesEvery(p, opts, format) {
		if opts.Indexed {
			if g.comps, err = fileCompactions(f, path, format, decodeAll()); err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
		}
		return g.full(wholeText(f))
	}
	plain := f.Plain()
	if plain == nil {
		return g.fast(f, Range{Line: 1}, true)
	}
	parts := []Range{{From: 0, To: size, Line: 1}}
	if len(rs.Parts) > 0 && rs.Size == size && rs.partsOK(format) && rs.within(size) {
		parts = rs.Parts
	}
	if size >= mapFrom {
		if data, release := openMapped(plain, size); data != nil {
			defer release()
			return g.mapped(data, parts)
		}
	}
	for _, r := range parts {
		if err := g.fast(io.NewSectionReader(plain, r.From, r.To-r.From), r, r.To == size); err != nil {
			return err
		}
	}
	return nil
}

// rangesFormat is the session's format: the one the index read it in, when the index names
// parts of it to read and the file has the size it had then (its first records are then not
// read again: a query of 100 sessions would read 6 MB of heads), else detected from its first
// records. A format given with --format is always the one used.
func rangesFormat(f *transcript.File, path string, opts Options, rs Ranges) (transcript.Format, error) {
	if len(rs.Parts) > 0 && rs.partsOK(rs.Format) && opts.Format == transcript.FormatUnknown && f.Info().Size() == rs.Size {
		return rs.Format, nil
	}
	format, err := detectFormat(f, path, opts)
	if err != nil {
		return format, err
	}
	return format, f.Rewind()
}

// within reports whether the parts are ranges of a file of size bytes, in file order, apart.
func (rs Ranges) within(size int64) bool {
	at := int64(0)
	for _, r := range rs.Parts {
		if r.From < at || r.To <= r.From || r.To > size || r.Line < 1 {
			return false
		}
		at = r.To
	}
	return true
}

// wholeText reads the session's text: a plain file up to its size when it was opened (what an
// agent appends meanwhile is for the next search), an archived session to its end.
func wholeText(f *transcript.File) io.Reader {
	if plain := f.Plain(); plain != nil {
		return io.NewSectionReader(plain, 0, f.Info().Size())
	}
	return f
}

// detectFormat says which format the session is, from its first records; a file with nothing
// recognizable at the start is scanned for why (not JSON, not a transcript), naming the file
// and line, or read as messages after all.
func detectFormat(f *transcript.File, path string, opts Options) (transcript.Format, error) {
	format, err := transcript.Detect(f, path, transcript.Options{Format: opts.Format})
	if err != nil || format != transcript.FormatUnknown {
		return format, err
	}
	if err := f.Rewind(); err != nil {
		return format, err
	}
	if _, err := transcript.Scan(wholeText(f), path, transcript.Options{}); err != nil {
		return format, err
	}
	return transcript.FormatOpenAI, nil
}

// fileCompactions lists the compactions of the session, for message indexes and covering
// compactions, in a first pass over its text (an archived session is decompressed twice, as a
// stream each time, rather than held).
func fileCompactions(f *transcript.File, path string, format transcript.Format, every bool) ([]compaction, error) {
	upTo := int64(-1) // an archived session: all of it
	if f.Plain() != nil {
		upTo = f.Info().Size()
	}
	comps, err := listCompactions(path, wholeText(f), upTo, format, every)
	if err != nil {
		return nil, err
	}
	return comps, f.Rewind()
}

type grepper struct {
	path   string
	p      *Pattern
	opts   Options
	format transcript.Format
	emit   func(Hit) error
	comps  []compaction
	copyTo int // lines up to here are copies of a ctxc marker's tail
	buf    []string
	index  int
	around aroundState // full's, for Around
	chunk  int         // fast's buffer size (tests); 0: fastChunk
	seg    int         // mapped's segment size (tests); 0: segSize
}

// covered finds the compaction whose summarized span holds line.
func (g *grepper) covered(line int, h *Hit) {
	for _, c := range g.comps {
		if c.line <= line {
			continue
		}
		if c.from > 0 {
			if line >= c.from && line <= c.to {
				h.CoveredBy, h.Span = c.line, &[2]int{c.from, c.to}
				return
			}
			continue
		}
		if (c.keptFrom > 0 && line >= c.keptFrom) || c.kept[line] {
			continue // kept by the agent's compaction, not summarized
		}
		h.CoveredBy = c.line // no recorded span: what came before it and was not kept
		return
	}
}

// record decodes a line and reports its matches; it returns the messages for -C.
func (g *grepper) record(line []byte, num int) ([]transcript.Message, error) {
	rec, ok := transcript.DecodeRecord(g.format, line, num)
	if !ok {
		return nil, nil
	}
	if rec.Compaction && rec.TailLines > 0 {
		g.copyTo = num + rec.TailLines
	} else if num <= g.copyTo {
		return nil, nil // a verbatim copy of an earlier line: not new history
	}
	return rec.Messages, nil
}

func (g *grepper) want(m *transcript.Message) bool {
	return g.opts.Roles == nil || g.opts.Roles[roleOf(m)]
}

// fast reads part r of the file (f: its bytes; toEnd: up to the file's end) in large chunks
// and decodes only the lines the prefilter picks: lines holding the pattern's literal, or
// "compact" in a message list (a ctxc marker, whose tail copies are not searched again).
func (g *grepper) fast(f io.Reader, r Range, toEnd bool) error {
	chunk := fastChunk
	if g.chunk > 0 {
		chunk = g.chunk
	}
	bp := chunkPool.Get().(*[]byte)
	defer chunkPool.Put(bp)
	if len(*bp) < chunk {
		*bp = make([]byte, chunk)
	}
	buf := (*bp)[:chunk]
	have := 0                // bytes in buf
	lineNum := r.Line - 1    // newlines before buf[0]
	fileStart := r.From == 0 // buf[0] is the file's first byte
	eof := false
	for {
		if !eof && have < len(buf) {
			n, err := io.ReadFull(f, buf[have:])
			have += n
			if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
				eof = true
			} else if err != nil {
				return fmt.Errorf("%s: %w", g.path, err)
			}
		}
		end := bytes.LastIndexByte(buf[:have], '\n') + 1
		if end == 0 && !eof {
			if have == len(buf) { // a line longer than the buffer
				nb := make([]byte, 2*len(buf))
				copy(nb, buf[:have])
				buf, *bp = nb, nb // (the pool keeps the larger buffer; a next file uses its first fastChunk bytes)
			}
			continue
		}
		last := false
		if eof && end < have {
			// An unterminated last line: the agents read it as a record when it is complete
			// JSON, and so does ctxc for their formats (transcript.Scan).
			if g.format.Native() && toEnd {
				end = have
			}
			last = true
		}
		// The same search as a mapped file's segments (segment), on this chunk.
		res := g.segment(buf[:end], fileStart, eof && toEnd)
		if err := g.replay(res, lineNum); err != nil {
			return err
		}
		lineNum += res.newlines
		if last || (eof && end == have) {
			return nil
		}
		fileStart = false
		have = copy(buf, buf[end:have])
	}
}

// mapFrom is the size from which a file is mapped and its segments searched by several
// workers (mapped). A smaller file is read into a chunk of chunkPool (fast): mapping costs a
// page fault for every few pages, which was half of the time of a search of many small
// sessions, where reading copies them into memory already touched.
const mapFrom = 2 * segSize

// fastChunk is how much of a file fast reads at a time. Small enough that a chunk stays in
// the core's cache from its read to its search: with 4 MiB chunks, each byte went to memory
// and back, and a search of 58 MB of candidate sessions took a fifth longer.
const fastChunk = 256 << 10

// chunkPool holds fast's chunks, reused from file to file.
var chunkPool = sync.Pool{New: func() any { return new([]byte) }}

// probe finds the lines the fast path decodes whatever the pattern: ctxc markers, whose
// tail_lines say which lines after them are copies. Other compaction records copy nothing
// into the file (agent formats), so there is no probe for them.
type probe struct{ p *Pattern }

func markerProbe(f transcript.Format) probe {
	if !f.IsGeneric() {
		return probe{}
	}
	p := &Pattern{}
	p.setLit([]byte(f.Agent().Probe()), false)
	return probe{p}
}

func (pr probe) next(b []byte, i int) int {
	if pr.p == nil {
		return -1
	}
	return pr.p.nextLit(b, i)
}

func minPos(xs ...int) int {
	best := -1
	for _, x := range xs {
		if x >= 0 && (best < 0 || x < best) {
			best = x
		}
	}
	return best
}

// full decodes every line: for message indexes, covering compactions and messages around the
// matches.
func (g *grepper) full(r io.Reader) error {
	lr := jsonl.NewLineReader(r)
	g.around = aroundState{lastOut: -1}
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", g.path, err)
		}
		if err := g.fullLine(l); err != nil {
			return err
		}
	}
	if p, ok := lr.Pending(); ok && g.format.Native() {
		return g.fullLine(p)
	}
	return nil
}

// aroundState is what full keeps of the messages for Around.
type aroundState struct {
	before  []indexedMessage // the last Around messages not yet reported
	after   int              // messages still to report after a match
	lastOut int              // index of the last message reported (-1: none yet)
}

// indexedMessage is a message with its index in the history.
type indexedMessage struct {
	m     transcript.Message
	index int
}

// fullLine decodes one line and searches its messages.
func (g *grepper) fullLine(l jsonl.Line) error {
	ms, err := g.record(l.Bytes, l.Num)
	if err != nil {
		return err
	}
	for i := range ms {
		if err := g.fullMessage(&ms[i]); err != nil {
			return err
		}
	}
	return nil
}

// fullMessage searches the next message of the history and reports it when it matches, with
// the messages of context before it that are kept, or when it is one of context after a match;
// else, with Around, it is kept as context for a later match.
func (g *grepper) fullMessage(m *transcript.Message) error {
	a := &g.around
	idx := g.index
	g.index++
	sn, ok := Snippet{}, false
	if g.want(m) {
		sn, ok = g.p.match(m, g.buf)
	}
	switch {
	case ok:
		for _, b := range a.before {
			if err := g.report(&b.m, b.index, preview(&b.m), false); err != nil {
				return err
			}
		}
		a.before = a.before[:0]
		if err := g.report(m, idx, sn, true); err != nil {
			return err
		}
		a.after = g.opts.Around
	case a.after > 0:
		a.after--
		return g.report(m, idx, preview(m), false)
	case g.opts.Around > 0:
		if len(a.before) == g.opts.Around {
			a.before = append(a.before[:0], a.before[1:]...)
		}
		a.before = append(a.before, indexedMessage{m: *m, index: idx})
	}
	return nil
}

// report emits message idx (a match, or context), after GroupBreak when it does not follow the
// last one reported.
func (g *grepper) report(m *transcript.Message, idx int, sn Snippet, match bool) error {
	if g.opts.Around > 0 && g.around.lastOut >= 0 && idx > g.around.lastOut+1 {
		if err := g.emit(GroupBreak); err != nil {
			return err
		}
	}
	g.around.lastOut = idx
	h := Hit{Path: g.path, Line: m.Line, Role: roleOf(m), Summary: m.Summary, Index: -1, Snippet: sn, Match: match}
	if g.opts.Indexed {
		h.Index = idx
		g.covered(m.Line, &h)
	}
	return g.emit(h)
}

// findCompactions lists the compaction records of a file (only the lines holding the format's
// compaction probe are decoded).
func findCompactions(path string, r io.ReaderAt, size int64, format transcript.Format) ([]compaction, error) {
	return listCompactions(path, io.NewSectionReader(r, 0, size), size, format, false)
}

// listCompactions lists the compaction records of a file's text r (its first upTo bytes; all of
// it when upTo < 0): the lines holding the format's compaction probe (internal/agent) are
// decoded, or with every (DecodeAllEnv), all lines.
func listCompactions(path string, r io.Reader, upTo int64, format transcript.Format, every bool) ([]compaction, error) {
	lr := jsonl.NewLineReader(r)
	var out []compaction
	probe := []byte(format.Agent().Probe()) // (the registry's: every compaction record holds it)
	// The lines of record ids, for the compactions that keep records by id.
	idKey := map[transcript.Format]string{transcript.FormatClaude: "uuid", transcript.FormatPi: "id"}[format]
	lines := map[string]int{}
	entries := 0 // pi v1: entry index (the header is entry 0) → line
	entryLine := map[int]int{}
	for {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if idKey != "" {
			if id := gjson.GetBytes(l.Bytes, idKey); id.Type == gjson.String {
				lines[id.String()] = l.Num
			}
			entryLine[entries] = l.Num
			entries++
		}
		if !every && !bytes.Contains(l.Bytes, probe) {
			continue
		}
		rec, ok := transcript.DecodeRecord(format, l.Bytes, l.Num)
		if !ok || !rec.Compaction {
			continue
		}
		c := compaction{line: l.Num}
		switch {
		case rec.Meta != nil && rec.Meta.Source.FromLine > 0 && rec.Meta.Source.Path == "":
			c.from, c.to = rec.Meta.Source.FromLine, rec.Meta.Source.ToLine
		case format == transcript.FormatPi:
			if k := gjson.GetBytes(l.Bytes, "firstKeptEntryId"); k.Type == gjson.String {
				c.keptFrom = lines[k.String()]
			} else if k := gjson.GetBytes(l.Bytes, "firstKeptEntryIndex"); k.Type == gjson.Number {
				c.keptFrom = entryLine[int(k.Int())]
			}
		case format == transcript.FormatClaude:
			gjson.GetBytes(l.Bytes, "compactMetadata.preservedMessages.uuids").ForEach(func(_, u gjson.Result) bool {
				if n, ok := lines[u.String()]; ok {
					if c.kept == nil {
						c.kept = map[int]bool{}
					}
					c.kept[n] = true
				}
				return true
			})
		}
		out = append(out, c)
	}
	if n := len(out); n > 0 && keepsByRebuild[format] && out[n-1].from == 0 {
		// A Codex, Copilot CLI, droid, opencode, Kilo or Cline compaction without ctxc's provenance: what the
		// agent rebuilds from it (a legacy Codex one keeps the initial messages and recent user
		// messages; droid keeps the messages after its anchor; opencode the tail its compaction
		// kept) is the context now.
		_, msgs, err := transcript.LoadFileUpTo(path, upTo, transcript.Options{Format: format})
		if err != nil {
			return nil, err
		}
		out[n-1].kept = map[int]bool{}
		for _, m := range msgs {
			for _, s := range m.Sources() {
				if s.Item == 0 {
					out[n-1].kept[int(s.Line)] = true
				}
			}
		}
	}
	return out, nil
}

// keepsByRebuild are the formats whose own compaction records do not name what they keep: the
// lines kept by the newest one are those the agent's rebuild of the context still holds.
var keepsByRebuild = map[transcript.Format]bool{transcript.FormatCodex: true, transcript.FormatCopilot: true,
	transcript.FormatDroid: true, transcript.FormatOpencode: true, transcript.FormatKilo: true, transcript.FormatCline: true}

// grepContext searches the effective context only.
func grepContext(path string, p *Pattern, opts Options, emit func(Hit) error) error {
	_, msgs, err := transcript.LoadFile(path, transcript.Options{Format: opts.Format})
	if err != nil {
		return err
	}
	var buf []string
	snips := make(map[int]Snippet)
	show := make([]bool, len(msgs))
	for i := range msgs {
		m := &msgs[i]
		if opts.Roles != nil && !opts.Roles[roleOf(m)] {
			continue
		}
		if sn, ok := p.match(m, buf); ok {
			snips[i] = sn
			for j := max(0, i-opts.Around); j <= min(len(msgs)-1, i+opts.Around); j++ {
				show[j] = true
			}
		}
	}
	lastOut := -1
	for j, ok := range show {
		if !ok {
			continue
		}
		if opts.Around > 0 && lastOut >= 0 && j > lastOut+1 {
			if err := emit(GroupBreak); err != nil {
				return err
			}
		}
		c := &msgs[j]
		h := Hit{Path: path, Line: c.Line, Role: roleOf(c), Summary: c.Summary, Index: j, InContext: true}
		if sn, hit := snips[j]; hit {
			h.Snippet, h.Match = sn, true
		} else {
			h.Snippet = preview(c)
		}
		if err := emit(h); err != nil {
			return err
		}
		lastOut = j
	}
	return nil
}

var errNotParts = errors.New("not a file to read in parts")

// decodesEvery reports whether a search of a file of format decodes every line, off the
// prefilter's path: CTXC_GREP_DECODE_ALL, --json (covering compactions), -C, a pattern without
// a literal, or one that may match a text the format's reader adds.
func decodesEvery(p *Pattern, opts Options, format transcript.Format) bool {
	return decodeAll() || opts.Indexed || opts.Around > 0 || p.lit == nil || p.MayMatchOutside(format)
}

// fileParts reads only rs's parts of a plain session (rs.partsOK), opened with no more
// than a descriptor; done is false when FileRanges must read it otherwise (rs names no parts,
// the search decodes every line, or the file is not the one the index read).
func fileParts(path string, p *Pattern, opts Options, rs Ranges, emit func(Hit) error) (done bool, err error) {
	if len(rs.Parts) == 0 || !rs.partsOK(rs.Format) || opts.Format != transcript.FormatUnknown || opts.Context ||
		rs.Size >= mapFrom || decodesEvery(p, opts, rs.Format) {
		return false, nil
	}
	f, size, err := openParts(path)
	if err != nil {
		return false, nil // (FileRanges opens it again, and says what is wrong)
	}
	defer f.Close()
	if size != rs.Size || !rs.within(size) {
		return false, nil
	}
	g := &grepper{path: path, p: p, opts: opts, format: rs.Format, emit: emit}
	for _, r := range rs.Parts {
		if err := g.fast(io.NewSectionReader(f, r.From, r.To-r.From), r, r.To == size); err != nil {
			return true, err
		}
	}
	return true, nil
}
