package compact

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"os"

	"github.com/ctxc/ctxc/internal/transcript"
)

// hashSpan is the SHA-256 of the file lines the middle spans: from its first line to the last
// context line before the tail (docs/design.md §6 "source"), read back from the file.
func hashSpan(path string, res *transcript.Result, from, tailLine int, spec *specHash) middleHash {
	start, end, last, ok := res.LineSpan(from, tailLine)
	if !ok { // no line of the file (the middle is only what ctxc synthesized): an empty span
		return middleHash{from: from, to: from, sum: hex.EncodeToString(sha256.New().Sum(nil))}
	}
	if spec != nil {
		sum, ok, err := spec.finish(start, end)
		if err != nil {
			return middleHash{err: err}
		}
		if ok {
			return middleHash{from: from, to: last, sum: sum}
		}
	}
	f, err := transcript.OpenFile(path)
	if err != nil {
		return middleHash{err: err}
	}
	defer f.Close()
	h := sha256.New()
	if err := hashText(h, f, start, end); err != nil {
		return middleHash{err: err}
	}
	return middleHash{from: from, to: last, sum: hex.EncodeToString(h.Sum(nil))}
}

// hashText writes bytes [start, end) of the session's text to h: a plain file's in place
// (hashRange), an archived session's as they are decompressed.
func hashText(h hash.Hash, f *transcript.File, start, end int64) error {
	if plain := f.Plain(); plain != nil {
		return hashRange(h, plain, start, end)
	}
	span, err := f.Section(start, end-start)
	if err != nil {
		return err
	}
	n, err := io.Copy(h, span)
	if err == nil && n < end-start {
		err = fmt.Errorf("%s: the archived session ends before byte %d", f.Info().Name(), end)
	}
	return err
}

// hashRange writes bytes [start, end) of f to h. Where it can, the file is mapped rather than
// read (openView): the middle of a session is most of the file, and hashing it in place in the
// page cache saves copying it all once more. A file cut short meanwhile faults; that becomes an
// error, not a crash.
func hashRange(h hash.Hash, f *os.File, start, end int64) error {
	view, release, err := openView(f, start, end)
	if err != nil {
		return err
	}
	defer release()
	return faultsAsErrors(f.Name(), func() error {
		for off := start; off < end; {
			n := min(int64(snapshotEvery), end-off)
			b, err := view(off, n)
			if err != nil {
				return err
			}
			h.Write(b)
			off += n
		}
		return nil
	})
}
