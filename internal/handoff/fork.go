package handoff

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/ctxc/ctxc/internal/expand"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/ctxc/ctxc/internal/transcript"
)

// Point is where a fork takes the conversation: before compaction Before (1 = the first, as
// `ctxc expand --marker` numbers them), or after line At.
type Point struct {
	Before int
	At     int
}

// Fork writes the conversation of src as it stood at p as a new session of the same agent:
// the context the agent had then, which the user resumes instead of the compacted one.
func Fork(ctx context.Context, src string, p Point, o Options) (*Result, error) {
	if err := checkSource(src, o.Output); err != nil {
		return nil, err
	}
	format, err := detect(src, o.Format)
	if err != nil {
		return nil, err
	}
	if _, err := ParseTarget(string(format)); err != nil {
		return nil, &UsageError{Msg: fmt.Sprintf("%s: a %s session: fork writes claude-code, codex and pi sessions", src, format)}
	}
	size, err := forkOffset(src, format, p)
	if err != nil {
		return nil, err
	}
	_, msgs, err := transcript.LoadFileUpTo(src, size, transcript.Options{Format: format})
	if err != nil {
		return nil, err
	}
	o.To = format
	return write(ctx, src, format, msgs, o)
}

// forkOffset is how many bytes of the file the context at p is read from.
func forkOffset(src string, format transcript.Format, p Point) (int64, error) {
	if p.At > 0 {
		return lineEnd(src, p.At)
	}
	spans, _, err := expand.Spans(src, format)
	if err != nil {
		return 0, err
	}
	if p.Before < 1 || p.Before > len(spans) {
		return 0, &UsageError{Msg: fmt.Sprintf("%s: no compaction %d (the file has %d)", src, p.Before, len(spans))}
	}
	return spans[p.Before-1].Start, nil
}

// lineEnd is the offset just after line n.
func lineEnd(src string, n int) (int64, error) {
	f, err := transcript.OpenFile(src)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	lr := jsonl.NewLineReader(f)
	for seen := 0; ; {
		l, err := lr.Next()
		if errors.Is(err, io.EOF) {
			return 0, &UsageError{Msg: fmt.Sprintf("%s: no line %d (the file has %d)", src, n, seen)}
		}
		if err != nil {
			return 0, fmt.Errorf("%s: %w", src, err)
		}
		if seen = l.Num; l.Num == n {
			return l.Offset + int64(l.Size), nil
		}
	}
}
