package index

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"unsafe"
)

// manifestFile is a manifest read in pieces, for a search: at open its head (the segments)
// and its table of ids, about 8 bytes a session; then the entry of each file a result names.
// The file stays open, so a manifest replaced meanwhile (an update's rename) does not change
// what this one reads: bytes reads the same file whole, for grep.
type manifestFile struct {
	f      *os.File
	info   os.FileInfo
	head   *Manifest // Schema, NextFile, NextSeg and Segments; no Files or Dirs
	layout manifestLayout
	ids    []byte // (id u32, offset u32) sorted by id
	byID   map[uint32]idEntry
}

// idEntry is one file of the manifest, read by its id.
type idEntry struct {
	path  string
	entry *FileEntry
}

// openManifestFile opens the manifest at path and reads its head and ids.
func openManifestFile(path string) (*manifestFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	mf, err := readManifestFile(f)
	if err != nil {
		f.Close()
		return nil, err
	}
	return mf, nil
}

func readManifestFile(f *os.File) (*manifestFile, error) {
	info, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := int(info.Size())
	if int64(size) != info.Size() || size < len(manifestMagic)+trailerSize {
		return nil, errors.New("not a ctxc index manifest")
	}
	trailer := make([]byte, trailerSize)
	if _, err := f.ReadAt(trailer, int64(size-trailerSize)); err != nil {
		return nil, err
	}
	layout, err := layoutOf(trailer, size)
	if err != nil {
		return nil, err
	}
	mf := &manifestFile{f: f, info: info, layout: layout, byID: map[uint32]idEntry{}}
	head := make([]byte, layout.filesAt)
	if _, err := f.ReadAt(head, 0); err != nil {
		return nil, err
	}
	if err := peekSchema(filepath.Dir(f.Name()), head); err != nil {
		return nil, err // (another layout's sections need not be read)
	}
	mf.ids = make([]byte, layout.end-layout.idsAt)
	if _, err := f.ReadAt(mf.ids, int64(layout.idsAt)); err != nil {
		return nil, err
	}
	if string(head[:len(manifestMagic)]) != manifestMagic {
		return nil, errors.New("not a ctxc index manifest")
	}
	d := &decoder{s: unsafe.String(unsafe.SliceData(head), len(head)), at: len(manifestMagic)}
	mf.head = d.head()
	d.expect(len(head), "the files")
	return mf, d.err
}

func (mf *manifestFile) Close() { mf.f.Close() }

// entry finds the file of an id: its path and entry; false when no file has it (its documents
// are dead: the file was rewritten or removed).
func (mf *manifestFile) entry(id uint32) (string, *FileEntry, bool, error) {
	if e, ok := mf.byID[id]; ok {
		return e.path, e.entry, e.entry != nil, nil
	}
	n := len(mf.ids) / 8
	i := sort.Search(n, func(i int) bool { return binary.LittleEndian.Uint32(mf.ids[8*i:]) >= id })
	if i == n || binary.LittleEndian.Uint32(mf.ids[8*i:]) != id {
		mf.byID[id] = idEntry{}
		return "", nil, false, nil
	}
	at := int(binary.LittleEndian.Uint32(mf.ids[8*i+4:]))
	path, e, err := mf.readEntry(at)
	if err != nil {
		return "", nil, false, err
	}
	if e.ID != id {
		return "", nil, false, fmt.Errorf("damaged (the entry of id %d has id %d)", id, e.ID)
	}
	mf.byID[id] = idEntry{path, e}
	return path, e, true, nil
}

// readEntry reads the entry at offset at of the files section: a first read of 1 KB holds
// most entries; a longer one is read again whole.
func (mf *manifestFile) readEntry(at int) (string, *FileEntry, error) {
	l := mf.layout
	if at < l.filesAt || at >= l.dirsAt {
		return "", nil, errors.New("damaged (an id's entry outside the files)")
	}
	for size := min(1024, l.dirsAt-at); ; size = l.dirsAt - at {
		buf := make([]byte, size)
		if _, err := mf.f.ReadAt(buf, int64(at)); err != nil {
			return "", nil, err
		}
		d := &decoder{s: unsafe.String(unsafe.SliceData(buf), len(buf))}
		e := &FileEntry{}
		path := d.str()
		d.entry(e)
		if d.err == nil {
			return path, e, nil
		}
		if size == l.dirsAt-at {
			return "", nil, d.err
		}
	}
}

// bytes reads the whole file.
func (mf *manifestFile) bytes() ([]byte, error) {
	data := make([]byte, mf.info.Size())
	if _, err := mf.f.ReadAt(data, 0); err != nil {
		return nil, &IndexError{filepath.Dir(mf.f.Name()), fmt.Errorf("%s: %w", manifestName, err)}
	}
	return data, nil
}
