package parquet

import "encoding/binary"

// The types of Thrift's compact protocol, as a field header or a list header names them.
const (
	ctTrue   = 1
	ctFalse  = 2
	ctByte   = 3
	ctI16    = 4
	ctI32    = 5
	ctI64    = 6
	ctDouble = 7
	ctBinary = 8
	ctList   = 9
	ctSet    = 10
	ctMap    = 11
	ctStruct = 12
)

// compact writes Thrift structs in the compact protocol, the encoding of a Parquet file's
// footer and page headers. Fields are written in increasing id order, as Thrift's own
// generated code writes them; a field's header holds the delta from the previous id.
type compact struct {
	buf  []byte
	id   int16   // the last field id written in the open struct
	outs []int16 // the last field id of each enclosing struct
}

// field writes a field's header: the id's delta and the type in one byte when the delta is
// 1..15, else the type and the id as a zigzag varint.
func (c *compact) field(id int16, typ byte) {
	if d := id - c.id; d > 0 && d <= 15 {
		c.buf = append(c.buf, byte(d)<<4|typ)
	} else {
		c.buf = append(c.buf, typ)
		c.buf = binary.AppendUvarint(c.buf, zigzag(int64(id)))
	}
	c.id = id
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func (c *compact) i32(id int16, v int32) {
	c.field(id, ctI32)
	c.buf = binary.AppendUvarint(c.buf, zigzag(int64(v)))
}

func (c *compact) i64(id int16, v int64) {
	c.field(id, ctI64)
	c.buf = binary.AppendUvarint(c.buf, zigzag(v))
}

func (c *compact) i16(id int16, v int16) {
	c.field(id, ctI16)
	c.buf = binary.AppendUvarint(c.buf, zigzag(int64(v)))
}

// bool writes a boolean field: in the compact protocol its value is its header's type.
func (c *compact) bool(id int16, v bool) {
	if v {
		c.field(id, ctTrue)
	} else {
		c.field(id, ctFalse)
	}
}

func (c *compact) string(id int16, s string) {
	c.field(id, ctBinary)
	c.str(s)
}

// str writes a string's length and bytes: a string field's value, or a list's element.
func (c *compact) str(s string) {
	c.buf = binary.AppendUvarint(c.buf, uint64(len(s)))
	c.buf = append(c.buf, s...)
}

// begin opens a struct field; end closes it.
func (c *compact) begin(id int16) {
	c.field(id, ctStruct)
	c.open()
}

// open starts a struct's fields: a struct field's value, or a list's element.
func (c *compact) open() {
	c.outs = append(c.outs, c.id)
	c.id = 0
}

// end writes the stop byte of the open struct and returns to the enclosing one.
func (c *compact) end() {
	c.buf = append(c.buf, 0)
	c.id = c.outs[len(c.outs)-1]
	c.outs = c.outs[:len(c.outs)-1]
}

// empty writes a struct field with no fields, such as a member of a union of markers.
func (c *compact) empty(id int16) {
	c.begin(id)
	c.end()
}

// list writes a list field's header: n elements of type elem follow.
func (c *compact) list(id int16, elem byte, n int) {
	c.field(id, ctList)
	if n < 15 {
		c.buf = append(c.buf, byte(n)<<4|elem)
	} else {
		c.buf = append(c.buf, 0xf0|elem)
		c.buf = binary.AppendUvarint(c.buf, uint64(n))
	}
}

// listI32 writes a list of i32 (the encodings of a column chunk).
func (c *compact) listI32(id int16, vs ...int32) {
	c.list(id, ctI32, len(vs))
	for _, v := range vs {
		c.buf = binary.AppendUvarint(c.buf, zigzag(int64(v)))
	}
}

// listString writes a list of strings (a column's path in the schema).
func (c *compact) listString(id int16, vs []string) {
	c.list(id, ctBinary, len(vs))
	for _, v := range vs {
		c.str(v)
	}
}
