package grep

import (
	"bytes"
	"os"
	"runtime"

	"github.com/ctxc/ctxc/internal/transcript"
)

// segSize is how much of a mapped file one worker searches at a time.
const segSize = 16 << 20

// event is what a segment found: a hit, or a ctxc marker whose next lines copy the tail. Lines
// are counted from the segment's start until the segments are put back in order.
type event struct {
	line int
	tail int // a marker: lines after it that are copies
	hit  *Hit
}

type segResult struct {
	events   []event
	newlines int
}

// mapped searches parts of a file mapped by mapFile (the whole file: fileRange): segments of
// about segSize bytes (cut at line ends) are searched by one worker per core, at most two per
// worker in flight, and their hits reported in file order. data must be such a mapping: a
// searched segment's pages are dropped from it (dropPages), so that peak RSS stays that of the
// segments in flight.
func (g *grepper) mapped(data []byte, parts []Range) error {
	bounds := g.segmentBounds(data, parts)
	workers := max(1, min(runtime.GOMAXPROCS(0), len(bounds)))
	results := make([]chan segResult, len(bounds))
	for i := range results {
		results[i] = make(chan segResult, 1)
	}
	jobs := make(chan int, 2*workers)
	stop := make(chan struct{})
	defer close(stop)
	for w := 0; w < workers; w++ {
		go func() {
			for i := range jobs {
				b := bounds[i]
				results[i] <- g.segment(data[b.from:b.to], b.from == 0, b.to == len(data))
				dropPages(data, b.from, b.to)
			}
		}()
	}
	go func() {
		defer close(jobs)
		for i := range bounds {
			select {
			case jobs <- i:
			case <-stop:
				return
			}
		}
	}()
	base := 0
	for i, b := range bounds {
		r := <-results[i]
		if b.line > 0 {
			base = b.line - 1
		}
		if err := g.replay(r, base); err != nil {
			return err
		}
		base += r.newlines
	}
	return nil
}

// bound is a segment of a mapped file: its bytes [from, to), and when it starts a part, the
// number of the part's first line (0: it follows the segment before it).
type bound struct{ from, to, line int }

// segmentBounds cuts the parts of data into segments of about segSize bytes, at line ends.
func (g *grepper) segmentBounds(data []byte, parts []Range) []bound {
	seg := segSize
	if g.seg > 0 {
		seg = g.seg
	}
	var bounds []bound
	for _, p := range parts {
		stop := int(min(p.To, int64(len(data))))
		line := p.Line
		for at := int(p.From); at < stop; line = 0 {
			end := at + seg
			if end >= stop {
				end = stop
			} else if nl := bytes.IndexByte(data[end:stop], '\n'); nl >= 0 {
				end += nl + 1
			} else {
				end = stop
			}
			bounds = append(bounds, bound{at, end, line})
			at = end
		}
	}
	return bounds
}

// replay reports a segment's hits in order, base being the newlines before the segment, and
// skips the lines a ctxc marker's tail copies repeat.
func (g *grepper) replay(r segResult, base int) error {
	for _, e := range r.events {
		line := base + e.line
		if e.hit == nil {
			if e.tail > 0 {
				g.copyTo = line + e.tail
			}
			continue
		}
		if line <= g.copyTo {
			continue // a verbatim copy of an earlier line: not new history
		}
		e.hit.Line = line
		if err := g.emit(*e.hit); err != nil {
			return err
		}
	}
	return nil
}

// segment searches complete lines (the last one may be unterminated at the end of the file).
func (g *grepper) segment(region []byte, fileStart, fileEnd bool) segResult {
	var res segResult
	var sc lineScratch // claudeLine's, reused
	probe := markerProbe(g.format)
	counted, num := 0, 0
	cands := g.p.candidates(region)
	candAt, cmpAt := cands.next(0), probe.next(region, 0)
	for {
		at := minPos(candAt, cmpAt)
		if at < 0 {
			break
		}
		// The line's start, counting the lines before it: forwards, newline to newline with
		// memchr (bytes.LastIndexByte goes back a byte at a time, over lines of 100 KB).
		for {
			nl := bytes.IndexByte(region[counted:at], '\n')
			if nl < 0 {
				break
			}
			counted += nl + 1
			num++
		}
		ls := counted
		le := g.shapeIn(region, ls, at, &sc)
		if le < 0 {
			if le = bytes.IndexByte(region[at:], '\n'); le < 0 {
				le = len(region)
			} else {
				le += at
			}
		}
		terminated := le < len(region)
		lb := region[ls:le]
		if fileStart && ls == 0 {
			lb = bytes.TrimPrefix(lb, []byte{0xEF, 0xBB, 0xBF})
		}
		// An unterminated last line is read as a record only in the agents' formats, as they
		// (and transcript.Scan) do.
		if terminated || (fileEnd && g.format.Native()) {
			res.events = g.searchLine(lb, num+1, res.events, &sc)
		}
		sc.walked, sc.litKnown = false, false
		next := le + 1
		if next > len(region) {
			break
		}
		// The line is counted: the next line's start is not looked for from this one's (a
		// second read of a line that may be 100 KB).
		counted, num = next, num+1
		if candAt >= 0 && candAt < next {
			candAt = cands.next(next)
		}
		if cmpAt >= 0 && cmpAt < next {
			cmpAt = probe.next(region, next)
		}
	}
	// The lines up to the last line searched are counted already.
	res.newlines = num + bytes.Count(region[counted:], []byte{'\n'})
	return res
}

// searchLine reports the hits of one line (and a ctxc marker's tail): a Claude Code record as
// claudeLine reads it when it can, a pi entry as piLine does, a plain message as plainLine does,
// else decoded. sc is claudeLine's, reused.
func (g *grepper) searchLine(lb []byte, line int, events []event, sc *lineScratch) []event {
	var h *Hit
	var read bool
	switch {
	case g.format == transcript.FormatClaude:
		h, read = g.claudeLine(lb, sc)
	case g.format == transcript.FormatPi:
		h, read = g.piLine(lb, sc)
	case g.format.IsGeneric():
		h, read = g.plainLine(lb, sc)
	}
	if read {
		if h != nil {
			events = append(events, event{line: line, hit: h})
		}
		return events
	}
	// The record is dropped before the segment is: the file stays mapped, and hits keep
	// copies of their snippets.
	rec, ok := transcript.DecodeRecordTransient(g.format, lb, line)
	if !ok {
		return events
	}
	if rec.Compaction && rec.TailLines > 0 {
		events = append(events, event{line: line, tail: rec.TailLines})
	}
	for i := range rec.Messages {
		m := &rec.Messages[i]
		if !g.want(m) {
			continue
		}
		if sn, ok := g.p.match(m, nil); ok {
			// The role may point into the mapped file: copied, as the snippet is.
			h := Hit{Path: g.path, Role: ownRole(roleOf(m)), Summary: m.Summary, Index: -1, Snippet: sn, Match: true}
			events = append(events, event{line: line, hit: &h})
		}
	}
	return events
}

func openMapped(f *os.File, size int64) ([]byte, func()) { return mapFile(f, size) }
