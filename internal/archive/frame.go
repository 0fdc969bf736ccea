package archive

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
)

// countWriter counts the bytes written through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// appendFrame streams src[e.Archived:end] through the encoder as one zstd frame appended to the
// archive, syncs it, decodes it back and compares it with the bytes read, and only then moves the
// entry forward. On any failure the archive is cut back to its length before the frame.
func (a *Archiver) appendFrame(src *os.File, name string, e *Entry, end int64, res *Result) error {
	plain, err := restoreHash(e.PlainState)
	if err != nil {
		return err
	}
	zsum, err := restoreHash(e.ZstState)
	if err != nil {
		return err
	}
	p := a.path(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	out, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	var in io.Reader = io.NewSectionReader(src, e.Archived, end-e.Archived)
	var red *redactingReader
	if e.Redacted {
		red = newRedactingReader(in)
		in = red
	}
	frameSum, plainLen, n, err := a.writeFrame(out, zsum, in, plain)
	if err == nil {
		err = out.Sync()
	}
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && e.Compressed == 0 {
		err = syncDir(filepath.Dir(p))
	}
	if err == nil {
		err = a.checkFrame(p, e.Compressed, n, frameSum, plainLen)
	}
	if err != nil {
		if terr := os.Truncate(p, e.Compressed); terr != nil {
			return errors.Join(err, terr)
		}
		return err
	}
	head, tail, err := ends(src, end)
	if err != nil {
		return err
	}
	e.Archived, e.Compressed, e.Frames = end, e.Compressed+n, e.Frames+1
	if red != nil {
		e.Plain += plainLen
		res.Redacted = red.redacted
	}
	e.SHA256, e.PlainState = hex.EncodeToString(plain.Sum(nil)), saveHash(plain)
	e.ZstSHA256, e.ZstState = hex.EncodeToString(zsum.Sum(nil)), saveHash(zsum)
	e.Head, e.Tail = head, tail
	a.dirty = true
	res.Compressed = n
	return nil
}

// writeFrame compresses r as one frame onto out, feeding the compressed bytes to zsum and the
// plain bytes to plain; it returns the SHA-256 and the length of this frame's plain bytes and the
// frame's length.
func (a *Archiver) writeFrame(out io.Writer, zsum hash.Hash, r io.Reader, plain hash.Hash) ([]byte, int64, int64, error) {
	cw := &countWriter{w: io.MultiWriter(out, zsum)}
	a.enc.Reset(cw)
	frame := sha256.New()
	plainLen, err := io.Copy(a.enc, io.TeeReader(r, io.MultiWriter(plain, frame)))
	if err != nil {
		return nil, 0, 0, err
	}
	if err := a.enc.Close(); err != nil {
		return nil, 0, 0, err
	}
	return frame.Sum(nil), plainLen, cw.n, nil
}

// checkFrame decodes the frame at p[off:off+n] and compares it with what was read from the source.
func (a *Archiver) checkFrame(p string, off, n int64, want []byte, plainLen int64) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	got, size, err := a.decodeSum(io.NewSectionReader(f, off, n))
	if err != nil {
		return fmt.Errorf("the frame just written does not decode: %w", err)
	}
	if size != plainLen || !bytes.Equal(got, want) {
		return fmt.Errorf("the frame just written decodes to other bytes than the session's (%d bytes, want %d)", size, plainLen)
	}
	return nil
}

// decodeSum decodes a stream of frames and returns the SHA-256 and length of its content.
func (a *Archiver) decodeSum(r io.Reader) ([]byte, int64, error) {
	if err := a.dec.Reset(r); err != nil {
		return nil, 0, err
	}
	h := sha256.New()
	n, err := io.Copy(h, a.dec)
	return h.Sum(nil), n, err
}

// syncDir makes a new file's directory entry durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
