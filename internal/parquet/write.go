// Package parquet writes Parquet files, the few kinds of columns ctxc's export needs and
// nothing else: rows of a Go struct as one row group of PLAIN-encoded columns (INT32, INT64,
// DOUBLE, STRING, TIMESTAMP in milliseconds, optional ones, one level of LIST of structs) in
// zstd-compressed v1 data pages, the footer in Thrift's compact protocol written by hand.
// It replaces a general Parquet library whose packages every ctxc command paid for at start.
package parquet

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"math/bits"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// KeyValue is one entry of a file's key-value metadata.
type KeyValue struct {
	Key, Value string
}

// pageSize is the size of a page's values past which the page ends, at the next row (a
// variable so that tests can make pages of a few rows).
var pageSize = 1 << 20

// maxPageSize is the largest page a page header can say (an i32; a variable for the tests).
var maxPageSize = math.MaxInt32

// CreatedBy is what a file's footer says wrote it.
const CreatedBy = "ctxc"

// The zstd encoder of every page, made when the first file is written (nothing at start).
var (
	encoderOnce sync.Once
	zstdEncoder *zstd.Encoder
	encoderErr  error
)

func encoder() (*zstd.Encoder, error) {
	encoderOnce.Do(func() {
		zstdEncoder, encoderErr = zstd.NewWriter(nil, zstd.WithZeroFrames(true), zstd.WithEncoderConcurrency(1))
	})
	return zstdEncoder, encoderErr
}

// Write writes rows as one Parquet file to w: the columns of T (see schemaOf) in one row
// group, and meta as the file's key-value metadata.
func Write[T any](w io.Writer, rows []T, meta ...KeyValue) error {
	s, err := schemaOf(reflect.TypeFor[T]())
	if err != nil {
		return err
	}
	enc, err := encoder()
	if err != nil {
		return err
	}
	f := &file{w: bufio.NewWriterSize(w, 64<<10), enc: enc}
	f.write([]byte("PAR1"))
	rv := reflect.ValueOf(rows)
	chunks := make([]chunkMeta, len(s.columns))
	for i, c := range s.columns {
		chunks[i] = f.writeColumn(rv, c)
	}
	footer := encodeFooter(s, int64(len(rows)), chunks, meta)
	f.write(footer)
	f.write(binary.LittleEndian.AppendUint32(nil, uint32(len(footer))))
	f.write([]byte("PAR1"))
	if f.err != nil {
		return f.err
	}
	return f.w.Flush()
}

// file is a Parquet file being written: the offset reached and the first write error.
type file struct {
	w   *bufio.Writer
	enc *zstd.Encoder
	off int64
	err error
	buf []byte // compressed pages, reused
}

func (f *file) write(p []byte) {
	if f.err != nil {
		return
	}
	n, err := f.w.Write(p)
	f.off += int64(n)
	f.err = err
}

// fail keeps the first error; nothing is written after it.
func (f *file) fail(err error) {
	if f.err == nil {
		f.err = err
	}
}

// chunkMeta is what the footer says of one column chunk.
type chunkMeta struct {
	column       column
	offset       int64 // of its first page header
	values       int64 // levels written: values and nulls
	uncompressed int64 // page headers and pages before compression
	compressed   int64 // page headers and pages as written
}

// page is the levels and values of the rows of one page being gathered.
type page struct {
	reps, defs []uint8
	values     []byte
	n          int // levels (values, nulls and empty lists)
}

// writeColumn writes one column of every row, in pages of about pageSize bytes of values,
// at least one (a file of no rows has one empty page a column).
func (f *file) writeColumn(rows reflect.Value, c column) chunkMeta {
	m := chunkMeta{column: c, offset: f.off}
	var p page
	for r := range rows.Len() {
		p.addRow(rows.Index(r), c)
		if len(p.values) >= pageSize {
			f.writePage(&m, &p)
		}
	}
	if p.n > 0 || m.values == 0 {
		f.writePage(&m, &p)
	}
	return m
}

// addRow adds a row's levels and values of column c.
func (p *page) addRow(row reflect.Value, c column) {
	if c.list < 0 {
		p.add(row.Field(c.field), c, 0, 0)
		return
	}
	l := row.Field(c.list)
	if l.Len() == 0 {
		p.reps = append(p.reps, 0)
		p.defs = append(p.defs, 0)
		p.n++
		return
	}
	for j := range l.Len() {
		p.add(l.Index(j).Field(c.field), c, uint8(min(j, 1)), 1)
	}
}

// add adds one value at repetition level rep, def the definition level of what holds it.
func (p *page) add(v reflect.Value, c column, rep, def uint8) {
	p.n++
	if c.maxRep > 0 {
		p.reps = append(p.reps, rep)
	}
	if v.Kind() == reflect.Pointer {
		if v.IsNil() {
			p.defs = append(p.defs, def)
			return
		}
		def++
		v = v.Elem()
	}
	if c.maxDef > 0 {
		p.defs = append(p.defs, def)
	}
	p.values = appendPlain(p.values, v, c)
}

// appendPlain appends a value in PLAIN encoding: little-endian numbers, a string's length
// (4 bytes) and bytes, a time as its milliseconds since the epoch.
func appendPlain(dst []byte, v reflect.Value, c column) []byte {
	switch {
	case c.isTime:
		return binary.LittleEndian.AppendUint64(dst, uint64(v.Interface().(time.Time).UnixMilli()))
	case c.typ == typeInt32:
		return binary.LittleEndian.AppendUint32(dst, uint32(v.Int()))
	case c.typ == typeInt64:
		return binary.LittleEndian.AppendUint64(dst, uint64(v.Int()))
	case c.typ == typeDouble:
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v.Float()))
	default:
		s := v.String()
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(s)))
		return append(dst, s...)
	}
}

// writePage writes the page gathered as one zstd-compressed v1 data page and empties it:
// repetition levels, then definition levels (each RLE/bit-packed hybrid behind its 4-byte
// length, present when the column has such levels), then the values.
func (f *file) writePage(m *chunkMeta, p *page) {
	var body []byte
	if m.column.maxRep > 0 {
		body = appendLevelsBlock(body, p.reps, m.column.maxRep)
	}
	if m.column.maxDef > 0 {
		body = appendLevelsBlock(body, p.defs, m.column.maxDef)
	}
	body = append(body, p.values...)
	if len(body) > maxPageSize {
		f.fail(fmt.Errorf("parquet: column %s: a page of %d bytes, over the %d a page header can say",
			strings.Join(m.column.path, "."), len(body), maxPageSize))
		return
	}
	f.buf = f.enc.EncodeAll(body, f.buf[:0])
	header := encodePageHeader(p.n, len(body), len(f.buf))
	f.write(header)
	f.write(f.buf)
	m.values += int64(p.n)
	m.uncompressed += int64(len(header) + len(body))
	m.compressed += int64(len(header) + len(f.buf))
	*p = page{reps: p.reps[:0], defs: p.defs[:0], values: p.values[:0]}
}

func appendLevelsBlock(dst []byte, levels []uint8, max uint8) []byte {
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = appendLevels(dst, levels, bits.Len8(max))
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}

// Encodings, page type and codec, as parquet.thrift numbers them.
const (
	encodingPlain = 0
	encodingRLE   = 3
	pageData      = 0
	codecZstd     = 6
)

// encodePageHeader is a PageHeader of a v1 data page of n levels.
func encodePageHeader(n, uncompressed, compressed int) []byte {
	var c compact
	c.i32(1, pageData)
	c.i32(2, int32(uncompressed))
	c.i32(3, int32(compressed))
	c.begin(5) // DataPageHeader
	c.i32(1, int32(n))
	c.i32(2, encodingPlain)
	c.i32(3, encodingRLE)
	c.i32(4, encodingRLE)
	c.end()
	c.buf = append(c.buf, 0)
	return c.buf
}

// encodeFooter is the FileMetaData of a file of one row group.
func encodeFooter(s schema, rows int64, chunks []chunkMeta, meta []KeyValue) []byte {
	var c compact
	c.i32(1, 1) // version
	c.list(2, ctStruct, len(s.elements))
	for _, e := range s.elements {
		encodeElement(&c, e)
	}
	c.i64(3, rows)
	c.list(4, ctStruct, 1)
	encodeRowGroup(&c, rows, chunks)
	if len(meta) > 0 {
		c.list(5, ctStruct, len(meta))
		for _, kv := range meta {
			c.open()
			c.string(1, kv.Key)
			c.string(2, kv.Value)
			c.end()
		}
	}
	c.string(6, CreatedBy)
	c.buf = append(c.buf, 0)
	return c.buf
}

// encodeElement writes one SchemaElement, its logical type beside the converted type older
// readers know.
func encodeElement(c *compact, e element) {
	c.open()
	if e.typ != 0 {
		c.i32(1, e.typ)
	}
	if e.repetition >= 0 {
		c.i32(3, e.repetition)
	}
	c.string(4, e.name)
	if e.typ == 0 {
		c.i32(5, e.children)
	}
	if e.converted >= 0 {
		c.i32(6, e.converted)
	}
	if e.logical != logicalNone {
		c.begin(10) // LogicalType, a union
		switch e.logical {
		case logicalString:
			c.empty(1)
		case logicalList:
			c.empty(3)
		case logicalTimestampMillis:
			c.begin(8) // TimestampType
			c.bool(1, true)
			c.begin(2) // TimeUnit, a union
			c.empty(1) // MILLIS
			c.end()
			c.end()
		}
		c.end()
	}
	c.end()
}

// encodeRowGroup writes the RowGroup of the file's column chunks.
func encodeRowGroup(c *compact, rows int64, chunks []chunkMeta) {
	var uncompressed, compressed int64
	for _, m := range chunks {
		uncompressed += m.uncompressed
		compressed += m.compressed
	}
	c.open()
	c.list(1, ctStruct, len(chunks))
	for _, m := range chunks {
		encodeChunk(c, m)
	}
	c.i64(2, uncompressed)
	c.i64(3, rows)
	c.i64(5, chunks[0].offset)
	c.i64(6, compressed)
	c.i16(7, 0)
	c.end()
}

// encodeChunk writes a ColumnChunk and its ColumnMetaData.
func encodeChunk(c *compact, m chunkMeta) {
	c.open()
	c.i64(2, m.offset)
	c.begin(3)
	c.i32(1, m.column.typ)
	c.listI32(2, encodingPlain, encodingRLE)
	c.listString(3, m.column.path)
	c.i32(4, codecZstd)
	c.i64(5, m.values)
	c.i64(6, m.uncompressed)
	c.i64(7, m.compressed)
	c.i64(9, m.offset)
	c.end()
	c.end()
}
