package parquet

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// Footer is what a file's footer says, in the parts ctxc checks: the rows, the key-value
// metadata, the schema's names and each column chunk's path and number of levels.
type Footer struct {
	Rows     int64
	Meta     []KeyValue
	Names    []string // the schema's elements, depth-first, the root first
	Columns  []Chunk
	Creator  string
	RowGroup int // row groups
}

// Chunk is one column chunk of the first row group.
type Chunk struct {
	Path   []string
	Values int64
}

// ReadFooter reads the footer of the Parquet file r of size bytes: the magic numbers, the
// footer's length, and the FileMetaData decoded from Thrift's compact protocol.
func ReadFooter(r io.ReaderAt, size int64) (Footer, error) {
	if size < 12 {
		return Footer{}, errors.New("parquet: too short for a Parquet file")
	}
	tail := make([]byte, 8)
	if _, err := r.ReadAt(tail, size-8); err != nil {
		return Footer{}, err
	}
	head := make([]byte, 4)
	if _, err := r.ReadAt(head, 0); err != nil {
		return Footer{}, err
	}
	if string(tail[4:]) != "PAR1" || string(head) != "PAR1" {
		return Footer{}, errors.New("parquet: no PAR1 magic number")
	}
	n := int64(binary.LittleEndian.Uint32(tail))
	if n > size-12 {
		return Footer{}, fmt.Errorf("parquet: a footer of %d bytes in a file of %d", n, size)
	}
	buf := make([]byte, n)
	if _, err := r.ReadAt(buf, size-8-n); err != nil {
		return Footer{}, err
	}
	d := decoder{r: bytes.NewReader(buf)}
	md := d.structure()
	if d.err != nil {
		return Footer{}, fmt.Errorf("parquet: footer: %w", d.err)
	}
	if d.r.Len() != 0 {
		return Footer{}, fmt.Errorf("parquet: footer: %d bytes after FileMetaData", d.r.Len())
	}
	return footerOf(md)
}

// footerOf picks the Footer's fields out of a decoded FileMetaData.
func footerOf(md fields) (Footer, error) {
	var f Footer
	var ok bool
	if f.Rows, ok = md[3].(int64); !ok {
		return f, errors.New("parquet: footer: no num_rows")
	}
	for _, e := range listOf(md[2]) {
		name, _ := e[4].([]byte)
		f.Names = append(f.Names, string(name))
	}
	for _, kv := range listOf(md[5]) {
		k, _ := kv[1].([]byte)
		v, _ := kv[2].([]byte)
		f.Meta = append(f.Meta, KeyValue{string(k), string(v)})
	}
	creator, _ := md[6].([]byte)
	f.Creator = string(creator)
	groups := listOf(md[4])
	f.RowGroup = len(groups)
	if len(groups) == 0 {
		return f, nil
	}
	for _, cc := range listOf(groups[0][1]) {
		cm, _ := cc[3].(fields)
		var ch Chunk
		path, _ := cm[3].([]any)
		for _, p := range path {
			b, _ := p.([]byte)
			ch.Path = append(ch.Path, string(b))
		}
		ch.Values, _ = cm[5].(int64)
		f.Columns = append(f.Columns, ch)
	}
	return f, nil
}

// listOf is a decoded list of structs (none when v is not one).
func listOf(v any) []fields {
	var out []fields
	l, _ := v.([]any)
	for _, e := range l {
		if s, ok := e.(fields); ok {
			out = append(out, s)
		}
	}
	return out
}

// fields is a decoded struct: each field's value by its id (int64 for integers, float64,
// bool, []byte, []any for a list, fields for a struct).
type fields map[int16]any

// decoder reads Thrift's compact protocol into fields, any struct of any schema.
type decoder struct {
	r     *bytes.Reader
	err   error
	depth int
}

func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
}

func (d *decoder) byte() byte {
	b, err := d.r.ReadByte()
	if err != nil {
		d.fail(io.ErrUnexpectedEOF)
	}
	return b
}

func (d *decoder) uvarint() uint64 {
	v, err := binary.ReadUvarint(d.r)
	if err != nil {
		d.fail(io.ErrUnexpectedEOF)
	}
	return v
}

func (d *decoder) varint() int64 {
	u := d.uvarint()
	return int64(u>>1) ^ -int64(u&1)
}

func (d *decoder) structure() fields {
	if d.depth++; d.depth > 64 {
		d.fail(errors.New("structs nested too deep"))
		return nil
	}
	defer func() { d.depth-- }()
	out := fields{}
	var id int16
	for d.err == nil {
		h := d.byte()
		if h == 0 {
			break
		}
		if delta := int16(h >> 4); delta != 0 {
			id += delta
		} else {
			id = int16(d.varint())
		}
		out[id] = d.value(h & 0x0f)
	}
	return out
}

func (d *decoder) value(typ byte) any {
	switch typ {
	case ctTrue:
		return true
	case ctFalse:
		return false
	case ctByte:
		return int64(int8(d.byte()))
	case ctI16, ctI32, ctI64:
		return d.varint()
	case ctDouble:
		var b [8]byte
		if _, err := io.ReadFull(d.r, b[:]); err != nil {
			d.fail(io.ErrUnexpectedEOF)
		}
		return math.Float64frombits(binary.LittleEndian.Uint64(b[:]))
	case ctBinary:
		n := d.uvarint()
		if n > uint64(d.r.Len()) {
			d.fail(io.ErrUnexpectedEOF)
			return nil
		}
		b := make([]byte, n)
		io.ReadFull(d.r, b)
		return b
	case ctList, ctSet:
		return d.list()
	case ctStruct:
		return d.structure()
	}
	d.fail(fmt.Errorf("type %d not read", typ))
	return nil
}

func (d *decoder) list() []any {
	h := d.byte()
	n := uint64(h >> 4)
	if n == 15 {
		n = d.uvarint()
	}
	if n > uint64(d.r.Len())+1 {
		d.fail(io.ErrUnexpectedEOF)
		return nil
	}
	out := make([]any, 0, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		elem := h & 0x0f
		if elem == ctTrue || elem == ctFalse { // a list's booleans are one byte each
			out = append(out, d.byte() == ctTrue)
			continue
		}
		out = append(out, d.value(elem))
	}
	return out
}
