package transcript

import (
	"fmt"
	"io"
	"sync"

	"github.com/ctxc/ctxc/internal/conv"
	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/tidwall/gjson"
)

// Detect reads the start of r and returns the format its first records show.
func Detect(r io.Reader, path string, opts Options) (Format, error) {
	if opts.Format != FormatUnknown {
		return opts.Format, nil
	}
	lr := detectReaders.Get().(*jsonl.LineReader)
	defer detectReaders.Put(lr)
	lr.Reset(r)
	lr.OwnLongLines() // a long first line: read once, freed as the next is read, never pooled
	defer lr.Free()
	if opts.MaxLine > 0 {
		lr.SetMaxLine(opts.MaxLine)
	}
	return detectLines(lr, path)
}

// detectAt is Detect of the first size bytes of f. A file of inPlaceFrom bytes or more that
// can be mapped is read where it is (jsonl.SliceReader): its first lines may be one of 100 MB,
// which Detect's buffer would gather, doubling, into copies several times its size.
func detectAt(f io.ReaderAt, size int64, path string, opts Options) (Format, error) {
	if opts.Format != FormatUnknown {
		return opts.Format, nil
	}
	if size >= inPlaceFrom {
		if src, ok := newWindowSource(f).(inPlace); ok {
			if data, release, err := src.mapWindow(0, int(size)); err == nil {
				defer release()
				sr := jsonl.NewSliceReader(data, detectBuf)
				if opts.MaxLine > 0 {
					sr.SetMaxLine(opts.MaxLine)
				}
				var format Format
				err := faultsAsErrors(path, func() (err error) {
					format, err = detectLines(sr, path)
					return err
				})
				return format, err
			}
		}
	}
	return Detect(io.NewSectionReader(f, 0, size), path, opts)
}

// DetectFile is Detect of an open session file from its start: a plain file is read in place
// when it is large (detectAt), an archived one decompressed.
func DetectFile(f *File, opts Options) (Format, error) {
	if plain := f.Plain(); plain != nil {
		return detectAt(plain, f.Info().Size(), f.path, opts)
	}
	return Detect(f, f.path, opts)
}

// detectLines reads lines from the start of a file until they show its format.
func detectLines(lr lineSource, path string) (Format, error) {
	weak := FormatUnknown
	seen, bad, firstBad := 0, 0, 0
	for seen < detectWindow {
		l, err := lr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return FormatUnknown, fmt.Errorf("%s: %w", path, err)
		}
		if !jsonl.Valid(l.Bytes) {
			if bad == 0 {
				firstBad = l.Num
			}
			if err := garbage(path, l, seen, bad, firstBad); err != nil {
				return FormatUnknown, err
			}
			bad++
			continue
		}
		seen++
		f, strong, derr := detectLine(gjson.Parse(conv.UnsafeString(l.Bytes)))
		if derr != nil {
			if weak == FormatUnknown {
				return FormatUnknown, &DataError{Path: path, Line: l.Num, Msg: derr.Error()}
			}
			continue
		}
		if f != FormatUnknown && (weak == FormatUnknown || strong) {
			weak = f
		}
		if strong {
			break
		}
	}
	return weak, nil
}

const detectBuf = 64 << 10

// lineSource is what detection reads lines from: a stream's LineReader, or a mapped file's
// SliceReader.
type lineSource interface {
	Next() (jsonl.Line, error)
}

// detectReaders are Detect's line readers of detectBuf bytes: a search of thousands of
// sessions detects each one's format, and a fresh buffer for each was most of its page faults.
var detectReaders = sync.Pool{New: func() any {
	return jsonl.NewLineReaderSize(nil, detectBuf) // the first lines: the rest of a file is not read
}}
