package parquet

import (
	"bytes"
	"strings"
	"testing"
)

// TestCompactEncoding: the compact protocol's bytes for each kind of field, as Thrift's own
// implementations write them.
func TestCompactEncoding(t *testing.T) {
	tests := []struct {
		name  string
		write func(c *compact)
		want  []byte
	}{
		{"i32, delta 1", func(c *compact) { c.i32(1, 1) }, []byte{0x15, 0x02}},
		{"i32 negative, zigzag", func(c *compact) { c.i32(1, -2) }, []byte{0x15, 0x03}},
		{"i32 varint of two bytes", func(c *compact) { c.i32(2, 300) }, []byte{0x25, 0xd8, 0x04}},
		{"i64 -1", func(c *compact) { c.i64(3, -1) }, []byte{0x36, 0x01}},
		{"i16", func(c *compact) { c.i16(7, 0) }, []byte{0x74, 0x00}},
		{"long field header past delta 15", func(c *compact) { c.i32(20, 0) }, []byte{0x05, 0x28, 0x00}},
		{"deltas add up", func(c *compact) { c.i32(1, 0); c.i32(9, 0) }, []byte{0x15, 0x00, 0x85, 0x00}},
		{"string", func(c *compact) { c.string(4, "ab") }, []byte{0x48, 0x02, 'a', 'b'}},
		{"non-ASCII string, its bytes", func(c *compact) { c.string(1, "é") }, []byte{0x18, 0x02, 0xc3, 0xa9}},
		{"bool true", func(c *compact) { c.bool(1, true) }, []byte{0x11}},
		{"bool false", func(c *compact) { c.bool(1, false) }, []byte{0x12}},
		{"list of i32", func(c *compact) { c.listI32(2, 0, 3) }, []byte{0x29, 0x25, 0x00, 0x06}},
		{"list of strings", func(c *compact) { c.listString(3, []string{"a", "b"}) }, []byte{0x39, 0x28, 0x01, 'a', 0x01, 'b'}},
		{"list of 15, long header", func(c *compact) { c.list(2, ctStruct, 15) }, []byte{0x29, 0xfc, 0x0f}},
		{"struct field, the ids restart inside and resume after", func(c *compact) {
			c.begin(5)
			c.i32(1, 2)
			c.end()
			c.i32(6, 1)
		}, []byte{0x5c, 0x15, 0x04, 0x00, 0x15, 0x02}},
		{"empty struct (a union's marker)", func(c *compact) { c.empty(1) }, []byte{0x1c, 0x00}},
		{"list of structs", func(c *compact) {
			c.list(5, ctStruct, 1)
			c.open()
			c.string(1, "k")
			c.end()
			c.string(6, "x")
		}, []byte{0x59, 0x1c, 0x18, 0x01, 'k', 0x00, 0x18, 0x01, 'x'}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c compact
			tt.write(&c)
			if !bytes.Equal(c.buf, tt.want) {
				t.Fatalf("% x, want % x", c.buf, tt.want)
			}
		})
	}
}

// TestPageHeaderBytes: a v1 data page's header, byte by byte.
func TestPageHeaderBytes(t *testing.T) {
	got := encodePageHeader(3, 10, 7)
	want := []byte{
		0x15, 0x00, // type DATA_PAGE
		0x15, 0x14, // uncompressed_page_size 10
		0x15, 0x0e, // compressed_page_size 7
		0x2c,       // data_page_header, field 5
		0x15, 0x06, // num_values 3
		0x15, 0x00, // encoding PLAIN
		0x15, 0x06, // definition_level_encoding RLE
		0x15, 0x06, // repetition_level_encoding RLE
		0x00, 0x00,
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("% x\nwant % x", got, want)
	}
}

// TestTimestampElementBytes: a timestamp column's SchemaElement names TIMESTAMP_MILLIS and the
// logical TIMESTAMP(isAdjustedToUTC=true, MILLIS).
func TestTimestampElementBytes(t *testing.T) {
	var c compact
	encodeElement(&c, element{name: "t", typ: typeInt64, repetition: optional, converted: convertedTimestamp, logical: logicalTimestampMillis})
	want := []byte{
		0x15, 0x04, // type INT64
		0x25, 0x02, // repetition_type OPTIONAL
		0x18, 0x01, 't', // name
		0x25, 0x12, // converted_type TIMESTAMP_MILLIS (field 6)
		0x4c,       // logicalType, field 10
		0x8c,       // TIMESTAMP, field 8
		0x11,       // isAdjustedToUTC true
		0x1c,       // unit
		0x1c, 0x00, // MILLIS
		0x00, 0x00, 0x00, 0x00,
	}
	if !bytes.Equal(c.buf, want) {
		t.Fatalf("% x\nwant % x", c.buf, want)
	}
}

// TestFooterReadsBack: the footer reader decodes what the writer encodes, long lists and
// strings included.
func TestFooterReadsBack(t *testing.T) {
	type row struct {
		A int64  `parquet:"a"`
		B string `parquet:"b"`
	}
	rows := []row{{1, strings.Repeat("x", 300)}, {2, ""}}
	var buf bytes.Buffer
	if err := Write(&buf, rows, KeyValue{"k", "v"}, KeyValue{"k2", strings.Repeat("é", 100)}); err != nil {
		t.Fatal(err)
	}
	f, err := ReadFooter(bytes.NewReader(buf.Bytes()), int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	if f.Rows != 2 || f.RowGroup != 1 || f.Creator != CreatedBy || len(f.Meta) != 2 || f.Meta[1].Value != strings.Repeat("é", 100) {
		t.Fatalf("%+v", f)
	}
	if strings.Join(f.Names, " ") != "schema a b" || len(f.Columns) != 2 || f.Columns[1].Path[0] != "b" || f.Columns[1].Values != 2 {
		t.Fatalf("%+v", f)
	}
}
