package transcript

import (
	"bytes"
	"fmt"
	"io"

	"github.com/ctxc/ctxc/internal/jsonl"
)

// checkHead gives, for a load that reads from the marker at off, the errors the whole scan
// gives for the lines before it: a first line that shows a JSON document written over several
// lines, garbageLines lines that are not JSON before any that is, and with Strict any line that
// is not JSON before the first that is. Detection has checked the first two when the format was
// not given; the lines read stop at the first valid one.
func checkHead(f io.ReaderAt, off int64, path string, opts Options) error {
	if opts.Format == FormatUnknown && !opts.Strict {
		return nil
	}
	lr := detectReaders.Get().(*jsonl.LineReader)
	defer detectReaders.Put(lr)
	lr.Reset(io.NewSectionReader(f, 0, off))
	lr.OwnLongLines()
	defer lr.Free()
	bad, firstBad := 0, 0
	for {
		l, err := lr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if jsonl.Valid(l.Bytes) {
			return nil
		}
		if opts.Strict {
			return &DataError{Path: path, Line: l.Num, Msg: "not valid JSON"}
		}
		if bad == 0 {
			firstBad = l.Num
		}
		if err := garbage(path, l, 0, bad, firstBad); err != nil {
			return err
		}
		bad++
	}
}

// LoadFile returns the effective context of a file (ctxc load). For the plain message formats it
// finds the last marker by reading the file backwards and parses only what follows it, so the
// cost does not grow with the history before the marker; other formats are scanned whole.
// The Stats of the result then describe only the part read.
func LoadFile(path string, opts Options) (*Result, []Message, error) {
	return LoadFileUpTo(path, -1, opts)
}

// LoadFileUpTo is LoadFile over the first size bytes of the file (all of it when size < 0): what
// a compaction wrote is checked without what an agent appended after it.
// An archived session is decompressed whole into memory first (File.ReaderAt): a load reads
// its lines again by offset.
func LoadFileUpTo(path string, size int64, opts Options) (*Result, []Message, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	text, n, err := f.ReaderAt()
	if err != nil {
		return nil, nil, err
	}
	if size < 0 || size > n {
		size = n
	}
	return load(io.NewSectionReader(text, 0, size), size, path, opts)
}

func load(f *io.SectionReader, size int64, path string, opts Options) (*Result, []Message, error) {
	format, err := detectAt(f, size, path, opts)
	if err != nil {
		return nil, nil, err
	}
	if format == FormatClaude && opts.FromNewestCompaction {
		if res, msgs, ok, err := loadClaudeTail(f, size, size/2, path, opts); err != nil || ok {
			return res, msgs, err
		}
	}
	off := int64(-1)
	if format.IsGeneric() || format == FormatUnknown {
		if off, _, err = FindLastMarker(f, size); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	switch {
	case format.IsGeneric() || format == FormatUnknown:
		opts.keep = FormatOpenAI // one pass: parse with text while scanning
	case format == FormatClaude:
		opts.keep = FormatClaude
	}
	if off <= 0 {
		res, err := scanFileRanges(f, size, path, opts)
		if err != nil {
			return nil, nil, err
		}
		msgs, err := res.Messages(f)
		return res, msgs, err
	}
	if err := checkHead(f, off, path, opts); err != nil {
		return nil, nil, err
	}
	// Line numbers after the marker: count the newlines before it (memchr speed).
	lines := 0
	if !opts.Unnumbered {
		if lines, err = countLines(f, off); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	// Read in ranges as a whole file is: a long line after the marker is read in place.
	res, err := scanFileRangesFrom(f, rangeStart{off: off, lines: lines, format: FormatCtxc}, size, path, opts)
	if err != nil {
		return nil, nil, err
	}
	msgs, err := res.Messages(f)
	return res, msgs, err
}

func countLines(r io.ReaderAt, n int64) (int, error) {
	buf := make([]byte, 1<<20)
	lines := 0
	for off := int64(0); off < n; {
		k := int64(len(buf))
		if n-off < k {
			k = n - off
		}
		m, err := r.ReadAt(buf[:k], off)
		lines += bytes.Count(buf[:m], []byte{'\n'})
		off += int64(m)
		if err != nil && err != io.EOF {
			return 0, err
		}
		if m == 0 {
			break
		}
	}
	return lines, nil
}

// ScanFile scans a whole regular file for its statistics, such as where its compactions are
// (Stats.Records): a small file in one pass, a larger one in ranges read on every core
// (scanFileRanges), where they save more than they cost. An archived session is decompressed as
// a stream through Scan's pipeline: its memory stays bounded whatever the session's size.
func ScanFile(path string, opts Options) (*Result, error) {
	f, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if f.Plain() == nil { // archived, or a snapshot
		return Scan(f, path, opts)
	}
	if size := f.Info().Size(); size >= minRangesFile && opts.Counted == nil {
		return scanFileRanges(f.Plain(), size, path, opts)
	}
	return scanLines(f.Plain(), path, opts) // (the file itself: its line buffer is sized to it, not 1 MiB)
}
