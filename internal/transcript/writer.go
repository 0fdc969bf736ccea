package transcript

import (
	"github.com/ctxc/ctxc/internal/conv"
)

// WriterFor returns the writer of a format; output "ctxc" asks for a ctxc-format file whatever
// the source's format (compact -o --output-format ctxc).
func WriterFor(f Format, output string) Writer {
	if output == "ctxc" {
		return markerWriter{source: f}
	}
	if c, ok := codeOf(f); ok {
		return c.writer
	}
	return markerWriter{source: f}
}

// OpenSource opens the compacted file for its writer; res is the load that planned the
// compaction.
func OpenSource(path string, res *Result) (*Source, error) {
	file, err := OpenFile(path)
	if err != nil {
		return nil, err
	}
	f, n, err := file.ReaderAt()
	if err != nil {
		file.Close()
		return nil, err
	}
	return conv.NewSource(path, file, f, n, res.refs), nil
}

// newHexID is conv.NewHexID.
func newHexID(n int) string { return conv.NewHexID(n) }
