package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/ctxc/ctxc/internal/safewrite"
)

// schema is the version of the index's layout; an index of another version is rebuilt. Layout
// 6 records line numbers in 64 bits (documents and blocks), merges segments instead of
// rebuilding the index past a count of them, and bounds the text of a segment.
const schema = 6

// maxManifest bounds a manifest's bytes: its table of ids and grep's view of it hold offsets
// in 31 bits. A manifest takes about 250 bytes a session: this is some 8 million sessions, and
// encode says so rather than write offsets that wrapped.
const maxManifest = math.MaxInt32

const manifestName = "manifest"

// legacyManifest is the manifest of the index of an older ctxc (JSON), removed by the rebuild.
const legacyManifest = "manifest.json"

// Manifest names an index's segments and the files they cover.
type Manifest struct {
	Schema   int
	NextFile uint32
	NextSeg  int
	Segments []SegmentInfo
	Files    map[string]*FileEntry // by absolute path
	Dirs     map[string]*Listing   // the folders walked, by absolute path (Walker)

	raw []byte // the bytes it was read from
}

// SegmentInfo is one segment: its file name in the index folder and what it holds.
type SegmentInfo struct {
	Name   string `json:"name"`
	Docs   int    `json:"docs"`
	Length uint64 `json:"length"` // the terms of its documents
	Text   int64  `json:"text"`   // the raw bytes it covers
}

// FileEntry is one indexed session file: the state it was indexed in and what the search
// shows of it.
type FileEntry struct {
	ID    uint32 `json:"id"`
	Size  int64  `json:"size"`
	MTime int64  `json:"mtime"` // modification time, ns since the epoch
	// Done is the bytes indexed (complete lines only: a line still being written is indexed
	// once complete), Lines their lines; Tail checks that a grown file only grew: the SHA-256
	// of the tailBytes before Done.
	Done  int64  `json:"done"`
	Lines int    `json:"lines"`
	Tail  string `json:"tail"`
	// Format, Session, Project and Start describe the session for search results.
	Format  string `json:"format"`
	Session string `json:"session,omitempty"`
	Project string `json:"project,omitempty"`
	Start   int64  `json:"start,omitempty"` // unix seconds of its first timestamp
	// Compressed: a zstd file (an archived session); Done and Lines count decompressed bytes.
	Compressed bool `json:"compressed,omitempty"`
	// Scan: the file has lines the index cannot vouch for (not JSON): grep always reads it,
	// so that it reports them as a scan does.
	Scan bool `json:"scan,omitempty"`
}

// IndexError says the index cannot be used (missing, damaged, another schema): grep reads the
// files instead, search rebuilds it.
type IndexError struct {
	Path string
	Err  error
}

func (e *IndexError) Error() string { return fmt.Sprintf("index %s: %v", e.Path, e.Err) }
func (e *IndexError) Unwrap() error { return e.Err }

// ErrNoIndex: the folder holds no index yet.
var ErrNoIndex = errors.New("no index here yet (ctxc index builds it)")

// DefaultDir is $XDG_CACHE_HOME/ctxc/index (~/.cache/ctxc/index).
func DefaultDir() (string, error) {
	dir := os.Getenv("XDG_CACHE_HOME")
	if dir == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		dir = filepath.Join(home, ".cache")
	}
	return filepath.Join(dir, "ctxc", "index"), nil
}

func newManifest() *Manifest {
	return &Manifest{Schema: schema, NextFile: 1, Files: map[string]*FileEntry{}, Dirs: map[string]*Listing{}}
}

// readManifest reads dir's manifest.
func readManifest(dir string) (*Manifest, error) {
	path := filepath.Join(dir, manifestName)
	info, err := os.Stat(path)
	if err != nil {
		return nil, noManifest(dir, err)
	}
	if m := cachedManifest(path, info); m != nil {
		return m, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, noManifest(dir, err)
	}
	return decodeKept(dir, info, data)
}

// decodeKept decodes the whole manifest of dir, read as data from the file that info states,
// and keeps it for the process's next reads (when data is all of that file).
func decodeKept(dir string, info os.FileInfo, data []byte) (*Manifest, error) {
	if err := peekSchema(dir, data); err != nil {
		return nil, err
	}
	m, err := decodeManifest(data)
	if err != nil {
		return nil, &IndexError{dir, fmt.Errorf("%s: %w", manifestName, err)}
	}
	if err := checkSchema(dir, m.Schema); err != nil {
		return nil, err
	}
	m.raw = data
	if int64(len(data)) == info.Size() {
		keepManifest(filepath.Join(dir, manifestName), info, m)
	}
	return m, nil
}

// checkSchema says that an index of another layout is to be rebuilt.
func checkSchema(dir string, s int) error {
	if s != schema {
		return &IndexError{dir, &LayoutError{Found: s}}
	}
	return nil
}

// LayoutError: the index was written in another layout than this ctxc's, by an older ctxc (or a
// newer one); an update rebuilds it once, in this layout.
type LayoutError struct{ Found int }

func (e *LayoutError) Error() string {
	if e.Found > schema {
		return fmt.Sprintf("index layout %d of a newer ctxc, this ctxc reads %d (ctxc index rebuilds it)", e.Found, schema)
	}
	return fmt.Sprintf("index layout %d of an older ctxc, this ctxc reads %d (ctxc index rebuilds it once: "+
		"layout %d holds archives past 4 GiB without rebuilding)", e.Found, schema, schema)
}

// peekSchema reads a manifest's schema, the number after its magic, before anything else of
// it: the sections of another layout need not decode.
func peekSchema(dir string, data []byte) error {
	if len(data) <= len(manifestMagic) || string(data[:len(manifestMagic)]) != manifestMagic {
		return nil // (not a manifest: said by the decoding)
	}
	if s, n := binary.Uvarint(data[len(manifestMagic):]); n > 0 {
		return checkSchema(dir, int(s))
	}
	return nil
}

// manifests are the manifests read, by path: a command reads its index's manifest several
// times (to walk, to update, to query), and a manifest is most of what a query reads. A kept
// manifest is shared: it is never changed (an update changes a clone), and the file is
// replaced by a rename, so a manifest file of the same identity, size and time is the one
// read.
var manifests = struct {
	sync.Mutex
	by map[string]keptManifest
}{by: map[string]keptManifest{}}

type keptManifest struct {
	info os.FileInfo
	m    *Manifest
}

func cachedManifest(path string, info os.FileInfo) *Manifest {
	manifests.Lock()
	defer manifests.Unlock()
	k, ok := manifests.by[path]
	if !ok || !os.SameFile(k.info, info) || k.info.Size() != info.Size() || !k.info.ModTime().Equal(info.ModTime()) {
		return nil
	}
	return k.m
}

func keepManifest(path string, info os.FileInfo, m *Manifest) {
	manifests.Lock()
	defer manifests.Unlock()
	manifests.by[path] = keptManifest{info, m}
}

// clone copies what an update changes: the maps and the list of segments (the entries are
// replaced, never changed in place).
func (m *Manifest) clone() *Manifest {
	c := *m
	c.Segments = append([]SegmentInfo(nil), m.Segments...)
	c.Files = make(map[string]*FileEntry, len(m.Files))
	for p, e := range m.Files {
		c.Files[p] = e
	}
	c.Dirs = make(map[string]*Listing, len(m.Dirs))
	for p, l := range m.Dirs {
		c.Dirs[p] = l
	}
	return &c
}

// noManifest says why dir's manifest cannot be read (err: why it could not be stated or read).
func noManifest(dir string, err error) error {
	if info, serr := os.Stat(dir); serr == nil && !info.IsDir() {
		return &IndexError{dir, errors.New("not an index folder (an index of an older ctxc is a file: remove it)")}
	}
	if !errors.Is(err, os.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
		return &IndexError{dir, err}
	}
	if _, err := os.Stat(filepath.Join(dir, legacyManifest)); err == nil {
		return &IndexError{dir, errOlderLayout}
	}
	return &IndexError{dir, ErrNoIndex}
}

// errOlderLayout: the folder holds the index of an older ctxc (a JSON manifest).
var errOlderLayout = &LayoutError{Found: 1}

// The manifest is binary, read by every query: its file entries are most of it, one per
// session of the archive, and a search reads only those of its results (manifestFile). All
// integers are varints unless said otherwise; a string is its length, then its bytes.
//
//	magic "CTXCMAN3", schema, next file, next segment
//	segments: count, then name, docs, length, text
//	files:    count, then path, id, size, mtime, done, lines, tail, format, session, project,
//	          start, flags (1 compressed, 2 scan), sorted by path
//	folders:  count, then path, mtime, count of names, names
//	ids:      per file, sorted by id: id u32, the offset of its entry (its path) u32
//	trailer:  the offsets of files, folders and ids, u64 each
//	CRC-32 (Castagnoli) of all the bytes before it, 4 bytes little-endian
const manifestMagic = "CTXCMAN3"

// trailerSize is the bytes after the ids: three offsets and the CRC.
const trailerSize = 3*8 + 4

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// encode writes the manifest in its binary form (commit checks it against maxManifest).
func (m *Manifest) encode() []byte {
	b := m.appendHead(append([]byte(nil), manifestMagic...))
	filesAt := len(b)
	paths := make([]string, 0, len(m.Files))
	for p := range m.Files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	b = binary.AppendUvarint(b, uint64(len(paths)))
	type idAt struct{ id, at uint32 }
	ids := make([]idAt, 0, len(paths))
	for _, p := range paths {
		ids = append(ids, idAt{m.Files[p].ID, uint32(len(b))})
		b = appendFileEntry(appendString(b, p), m.Files[p])
	}
	dirsAt := len(b)
	b = m.appendDirs(b)
	idsAt := len(b)
	sort.Slice(ids, func(i, j int) bool { return ids[i].id < ids[j].id })
	for _, x := range ids {
		b = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(b, x.id), x.at)
	}
	for _, at := range []int{filesAt, dirsAt, idsAt} {
		b = binary.LittleEndian.AppendUint64(b, uint64(at))
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}

func (m *Manifest) appendHead(b []byte) []byte {
	b = binary.AppendUvarint(b, uint64(m.Schema))
	b = binary.AppendUvarint(b, uint64(m.NextFile))
	b = binary.AppendUvarint(b, uint64(m.NextSeg))
	b = binary.AppendUvarint(b, uint64(len(m.Segments)))
	for _, s := range m.Segments {
		b = appendString(b, s.Name)
		b = binary.AppendUvarint(b, uint64(s.Docs))
		b = binary.AppendUvarint(b, s.Length)
		b = binary.AppendVarint(b, s.Text)
	}
	return b
}

func (m *Manifest) appendDirs(b []byte) []byte {
	dirs := make([]string, 0, len(m.Dirs))
	for p := range m.Dirs {
		dirs = append(dirs, p)
	}
	sort.Strings(dirs)
	b = binary.AppendUvarint(b, uint64(len(dirs)))
	for _, p := range dirs {
		l := m.Dirs[p]
		b = binary.AppendVarint(appendString(b, p), l.MTime)
		b = binary.AppendUvarint(b, uint64(len(l.Names)))
		for _, n := range l.Names {
			b = appendString(b, n)
		}
	}
	return b
}

func appendFileEntry(b []byte, e *FileEntry) []byte {
	b = binary.AppendUvarint(b, uint64(e.ID))
	for _, v := range []int64{e.Size, e.MTime, e.Done, int64(e.Lines)} {
		b = binary.AppendVarint(b, v)
	}
	for _, str := range []string{e.Tail, e.Format, e.Session, e.Project} {
		b = appendString(b, str)
	}
	b = binary.AppendVarint(b, e.Start)
	var flags byte
	if e.Compressed {
		flags |= 1
	}
	if e.Scan {
		flags |= 2
	}
	return append(b, flags)
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

// manifestLayout is where a manifest's sections are.
type manifestLayout struct{ filesAt, dirsAt, idsAt, end int }

// layoutOf reads a manifest's trailer (the last trailerSize bytes of a file of size bytes).
func layoutOf(trailer []byte, size int) (manifestLayout, error) {
	l := manifestLayout{end: size - trailerSize}
	offs := []*int{&l.filesAt, &l.dirsAt, &l.idsAt}
	for i, p := range offs {
		v := binary.LittleEndian.Uint64(trailer[8*i:])
		if v > uint64(l.end) {
			return l, errors.New("damaged (a section past its end)")
		}
		*p = int(v)
	}
	if !(len(manifestMagic) <= l.filesAt && l.filesAt <= l.dirsAt && l.dirsAt <= l.idsAt && (l.end-l.idsAt)%8 == 0) {
		return l, errors.New("damaged (its sections overlap)")
	}
	return l, nil
}

// decodeManifest reads a whole manifest, checked against its CRC. Its strings share data's
// memory, which the caller must not change afterwards.
func decodeManifest(data []byte) (*Manifest, error) {
	l, err := checkManifest(data)
	if err != nil {
		return nil, err
	}
	d := &decoder{s: unsafe.String(unsafe.SliceData(data), l.idsAt), at: len(manifestMagic)}
	m := d.head()
	d.expect(l.filesAt, "the files")
	n := d.count(12)
	entries := make([]FileEntry, n)
	m.Files = make(map[string]*FileEntry, n)
	for i := range entries {
		p, e := d.str(), &entries[i]
		d.entry(e)
		m.Files[p] = e
	}
	d.expect(l.dirsAt, "the folders")
	m.Dirs = d.listings()
	d.expect(l.idsAt, "the ids")
	if d.err == nil && (l.end-l.idsAt)/8 != len(m.Files) {
		d.err = errors.New("damaged (the ids are not the files)")
	}
	return m, d.err
}

// checkManifest checks a whole manifest's magic and checksum, and reads where its sections
// are.
func checkManifest(data []byte) (manifestLayout, error) {
	if len(data) < len(manifestMagic)+trailerSize || string(data[:len(manifestMagic)]) != manifestMagic {
		return manifestLayout{}, errors.New("not a ctxc index manifest")
	}
	body := data[:len(data)-4]
	if crc32.Checksum(body, crcTable) != binary.LittleEndian.Uint32(data[len(body):]) {
		return manifestLayout{}, errors.New("damaged (its checksum differs)")
	}
	return layoutOf(data[len(data)-trailerSize:], len(data))
}

// head reads the magic's followers: schema, counters and segments.
func (d *decoder) head() *Manifest {
	m := &Manifest{Schema: int(d.uint()), NextFile: uint32(d.uint()), NextSeg: int(d.uint())}
	m.Segments = make([]SegmentInfo, d.count(4))
	for i := range m.Segments {
		m.Segments[i] = SegmentInfo{Name: d.str(), Docs: int(d.uint()), Length: d.uint(), Text: d.int()}
	}
	return m
}

// entry reads a file's entry after its path.
func (d *decoder) entry(e *FileEntry) {
	e.ID = uint32(d.uint())
	e.Size, e.MTime, e.Done, e.Lines = d.int(), d.int(), d.int(), int(d.int())
	e.Tail, e.Format, e.Session, e.Project = d.str(), d.str(), d.str(), d.str()
	e.Start = d.int()
	flags := d.byte()
	e.Compressed, e.Scan = flags&1 != 0, flags&2 != 0
}

// expect checks that a section starts where the decoder is.
func (d *decoder) expect(at int, what string) {
	if d.err == nil && d.at != at {
		d.fail(what + " are not where the trailer says")
	}
}

// listings reads the folders' listings.
func (d *decoder) listings() map[string]*Listing {
	n := d.count(3)
	out := make(map[string]*Listing, n)
	for range n {
		p, l := d.str(), &Listing{MTime: d.int()}
		l.Names = make([]string, d.count(1))
		for i := range l.Names {
			l.Names[i] = d.str()
		}
		out[p] = l
	}
	return out
}

// decoder reads the varints and strings of a manifest; the first error stops it.
type decoder struct {
	s   string
	at  int
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("damaged at byte %d: %s", d.at, what)
	}
	d.at = len(d.s)
}

func (d *decoder) uint() uint64 {
	var v uint64
	for shift := 0; d.at < len(d.s) && shift < 64; shift += 7 {
		c := d.s[d.at]
		d.at++
		v |= uint64(c&0x7f) << shift
		if c < 0x80 {
			return v
		}
	}
	d.fail("a number")
	return 0
}

func (d *decoder) int() int64 {
	u := d.uint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *decoder) byte() byte {
	if d.at >= len(d.s) {
		d.fail("a byte")
		return 0
	}
	d.at++
	return d.s[d.at-1]
}

func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.s)-d.at) {
		d.fail("a string")
		return ""
	}
	d.at += int(n)
	return d.s[d.at-int(n) : d.at]
}

// count reads a count of items of at least min bytes each, checked against the bytes left.
func (d *decoder) count(min int) int {
	n := d.uint()
	if n > uint64(len(d.s)-d.at)/uint64(min) {
		d.fail("a count")
		return 0
	}
	return int(n)
}

// write replaces dir's manifest atomically with enc, its encoding.
func (m *Manifest) write(dir string, enc []byte) error {
	return safewrite.WriteAtomic(filepath.Join(dir, manifestName), func(w io.Writer) error {
		_, err := w.Write(enc)
		return err
	})
}

// byID maps the current files' ids to their paths; documents of other ids are dead (of a file
// rewritten or removed since).
func (m *Manifest) byID() map[uint32]string {
	out := make(map[uint32]string, len(m.Files))
	for p, e := range m.Files {
		out[e.ID] = p
	}
	return out
}

// under reports whether path is root or inside it.
func under(path, root string) bool {
	return path == root || strings.HasPrefix(path, strings.TrimSuffix(root, string(filepath.Separator))+string(filepath.Separator))
}
