package transcript

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/ctxc/ctxc/internal/bigbuf"
	"github.com/ctxc/ctxc/internal/safewrite"
	"github.com/ctxc/ctxc/internal/sessionstore"
	"github.com/klauspost/compress/zstd"
)

// zstdMagic starts every zstd frame: a file that starts with it is an archived session (what
// `ctxc archive` writes: zstd frames whose concatenated decompression is the session's bytes),
// whatever its name.
var zstdMagic = []byte{0x28, 0xB5, 0x2F, 0xFD}

// maxArchiveWindow bounds the memory the zstd decoder may take for its window. `ctxc archive`
// and the zstd command's levels use 8 MiB or less; `zstd --long` uses 128 MiB. A frame that asks
// for more is an error rather than gigabytes of memory.
const maxArchiveWindow = 128 << 20

// File is an open session file. Its Read gives the session's text: the file's own bytes, or,
// for an archived session, their decompression, streamed. Line numbers and byte offsets of
// everything read through it are those of that text, so an archived session reads exactly as
// the plain file it was archived from.
type File struct {
	path string
	f    *os.File
	info os.FileInfo
	dec  *zstd.Decoder // nil for a plain file

	// ReaderAt's copy of an archived session's text: in memory, or in tmp
	text     io.ReaderAt
	textSize int64
	tmp      *os.File
	tmpName  string // tmp's name while it is still linked

	// snap is the text of a session held as one JSON document that its agent rewrites whole
	// (Continue CLI's), read once as a snapshot (continueSnapshot); nil for any other file.
	snap  memText
	snapR *bytes.Reader
}

// OpenFile opens a session file for reading: the one way ctxc opens one, plain or archived. It
// is stated before it is opened, since opening a FIFO for reading would block until someone
// writes to it, and checked again once open; a directory or anything but a regular file is an
// error naming the path. A file that starts with zstd's magic number reads decompressed. A
// session of an OpenClaw SQLite store, STORE#SESSION-ID, opens as its pi-format export
// (sessionstore.OpenSession).
func OpenFile(path string) (*File, error) {
	if sessionstore.IsSessionName(path) {
		f, info, err := sessionstore.OpenSession(path)
		if err != nil {
			return nil, err
		}
		return &File{path: path, f: f, info: info}, nil
	}
	if info, err := os.Stat(path); err != nil {
		return nil, err
	} else if info.IsDir() {
		return nil, fmt.Errorf("%s: is a directory", path)
	} else if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", path)
	}
	sf := &File{path: path, f: f, info: info}
	if snap, ok, err := continueSnapshot(path, f); err != nil {
		f.Close()
		return nil, err
	} else if ok {
		sf.snap, sf.snapR = snap, bytes.NewReader(snap)
		return sf, nil
	}
	if !startsCompressed(f) {
		return sf, nil
	}
	if sf.dec, err = newArchiveDecoder(sf.compressed()); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return sf, nil
}

func newArchiveDecoder(r io.Reader) (*zstd.Decoder, error) {
	return zstd.NewReader(r, zstd.WithDecoderMaxWindow(maxArchiveWindow))
}

// startsCompressed reads the first bytes of f (without moving its offset) for zstd's magic.
func startsCompressed(f io.ReaderAt) bool {
	var head [4]byte
	n, _ := f.ReadAt(head[:], 0)
	return n == len(head) && bytes.Equal(head[:], zstdMagic)
}

// IsCompressed reports whether the file at path is an archived session: a regular file that
// starts with zstd's magic number. A file that cannot be read is not (opening it says why).
func IsCompressed(path string) bool {
	info, err := os.Stat(path)
	if err != nil || !info.Mode().IsRegular() {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return startsCompressed(f)
}

// Read reads the session's text.
func (f *File) Read(p []byte) (int, error) {
	if f.snapR != nil {
		return f.snapR.Read(p)
	}
	if f.dec == nil {
		return f.f.Read(p)
	}
	return decReader{f.dec}.Read(p)
}

// Rewind makes the next Read start again at the session's start (a format is detected on the
// first lines, then the whole is read).
func (f *File) Rewind() error {
	if f.snapR != nil {
		_, err := f.snapR.Seek(0, io.SeekStart)
		return err
	}
	if f.dec != nil {
		return f.dec.Reset(f.compressed())
	}
	_, err := f.f.Seek(0, io.SeekStart)
	return err
}

// compressed reads an archived session's file from its start, at offsets of its own: the
// decoder reads ahead on goroutines of its own, which must not move anyone's file offset.
func (f *File) compressed() io.Reader {
	return io.NewSectionReader(f.f, 0, f.info.Size())
}

// Close closes the file (and stops its decoder).
func (f *File) Close() error {
	if f.dec != nil {
		f.dec.Close()
	}
	if f.tmp != nil {
		f.tmp.Close()
		if f.tmpName != "" {
			os.Remove(f.tmpName)
		}
	}
	return f.f.Close()
}

// Compressed reports whether the file is an archived session, read decompressed.
func (f *File) Compressed() bool { return f.dec != nil }

// Snapshot reports whether the file is a session its agent rewrites whole, read as the
// snapshot taken when it was opened (its text is not the file's bytes: continueSnapshot).
func (f *File) Snapshot() bool { return f.snap != nil }

// Info is what the file on disk says of itself (for an archived session, Size is the
// compressed size).
func (f *File) Info() os.FileInfo { return f.info }

// Plain is the open file itself when it is a plain session (for reads at offsets, or mapping);
// nil for an archived one, and for a snapshot (Snapshot).
func (f *File) Plain() *os.File {
	if f.dec != nil || f.snap != nil {
		return nil
	}
	return f.f
}

// ReaderAt gives the session's text for reads at offsets, and its size. A plain file is read in
// place. An archived session is decompressed whole first, since reads at offsets (a load's second
// look at its lines, a marker found from the end, a compaction's re-reads) cannot seek in a zstd
// stream: into memory when its text is at most spillSize bytes, else into a temporary file,
// unlinked, that Close removes, so that a large session costs disk (or page cache) rather than
// heap, and is read in ranges on every core as a plain file is. The first spillSize bytes are
// decompressed into memory of their own (bigbuf), which grows without copies and is freed once
// the text is copied, at its size, into the heap or written to the file. The commands that
// only walk a session once (stats, grep, lint, memory) stream it through Read instead.
func (f *File) ReaderAt() (io.ReaderAt, int64, error) {
	if f.snap != nil {
		return f.snap, int64(len(f.snap)), nil
	}
	if f.dec == nil {
		return f.f, f.info.Size(), nil
	}
	if f.text != nil {
		return f.text, f.textSize, nil
	}
	if err := f.Rewind(); err != nil {
		return nil, 0, err
	}
	var head bigbuf.Buf
	defer head.Free()
	if err := readUpTo(&head, f, spillSize+1); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", f.path, err)
	}
	if int64(head.Len()) <= spillSize {
		f.text, f.textSize = memText(bytes.Clone(head.Bytes())), int64(head.Len())
		return f.text, f.textSize, nil
	}
	if err := f.spill(head.Bytes()); err != nil {
		return nil, 0, fmt.Errorf("%s: %w", f.path, err)
	}
	return f.text, f.textSize, nil
}

// readUpTo reads r to its end or n bytes, whichever comes first, into buf: memory that grows
// without copying what it holds, where a slice grown by doubling held, at its last step, one
// and a half to three times what it had read, and left the old arrays to the collector.
func readUpTo(buf *bigbuf.Buf, r io.Reader, n int64) error {
	for int64(buf.Len()) < n {
		buf.Grow(int(min(n-int64(buf.Len()), 1<<20)))
		room := buf.Room()
		k, err := r.Read(room[:min(int64(len(room)), n-int64(buf.Len()))])
		buf.Add(k)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// memText is an archived session's text held in memory (ReaderAt): read at offsets, and read
// in place by the range reader (memSource), as a mapped file is.
type memText []byte

func (m memText) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(m)) {
		return 0, io.EOF
	}
	n := copy(p, m[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// spillSize is the largest archived session ReaderAt holds in memory (a variable for tests).
var spillSize int64 = 64 << 20

// spill writes head and the rest of the decompressed text to a temporary file.
func (f *File) spill(head []byte) error {
	tmp, err := os.CreateTemp("", "ctxc-archived-*.jsonl")
	if err != nil {
		return err
	}
	f.tmp = tmp
	if os.Remove(tmp.Name()) == nil { // unlinked: the text goes with the last descriptor
		f.tmpName = ""
	} else {
		f.tmpName = tmp.Name() // removed by Close where an open file cannot be unlinked
	}
	if _, err := tmp.Write(head); err != nil {
		return err
	}
	rest, err := io.Copy(tmp, f)
	if err != nil {
		return err
	}
	f.text, f.textSize = tmp, int64(len(head))+rest
	return nil
}

// Section gives n bytes of the session's text from offset off. A plain file is read there; an
// archived session is decompressed from its start and the bytes before off discarded: a stream,
// no more memory than the decoder's.
func (f *File) Section(off, n int64) (io.Reader, error) {
	if f.snap != nil {
		return io.NewSectionReader(f.snap, off, n), nil
	}
	if f.dec == nil {
		return io.NewSectionReader(f.f, off, n), nil
	}
	if err := f.Rewind(); err != nil {
		return nil, err
	}
	if _, err := io.CopyN(io.Discard, f, off); err != nil {
		return nil, fmt.Errorf("%s: %w", f.path, err)
	}
	return io.LimitReader(f, n), nil
}

// ArchivedReadOnly is the error of a command that writes into a session given an archived one:
// archives are copies that `ctxc archive` keeps verified frame by frame, and never rewritten.
// hint says what to do instead.
func ArchivedReadOnly(path, hint string) *safewrite.ReadOnlyError {
	return &safewrite.ReadOnlyError{Path: path, Reason: "archived sessions are read-only", Hint: hint}
}

// IsSessionName reports whether a file found in a directory walk is a session by its name: a
// *.jsonl file, or its archive as `ctxc archive` names it, *.jsonl.zst.
func IsSessionName(name string) bool {
	return strings.HasSuffix(name, ".jsonl") || strings.HasSuffix(name, ArchiveSuffix)
}

// ArchiveSuffix ends the names of archived sessions found in a directory walk.
const ArchiveSuffix = ".jsonl.zst"

// Decompressed gives the text of a session read from a stream (standard input): the stream
// itself, or its decompression when it starts with zstd's magic number (`zstd -c` output, an
// archive piped in). done stops the decoder.
func Decompressed(r io.Reader) (text io.Reader, done func(), err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, _ := br.Peek(len(zstdMagic))
	if !bytes.Equal(head, zstdMagic) {
		return br, func() {}, nil
	}
	dec, err := newArchiveDecoder(br)
	if err != nil {
		return nil, nil, err
	}
	return decReader{dec}, dec.Close, nil
}

// decReader reads a zstd stream's decompression, its errors saying what was being read.
type decReader struct{ dec *zstd.Decoder }

func (d decReader) Read(p []byte) (int, error) {
	n, err := d.dec.Read(p)
	if err != nil && !errors.Is(err, io.EOF) {
		err = fmt.Errorf("decompressing the archived session: %w", err)
	}
	return n, err
}
