package parquet

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestWriteRefusesWhatItCannotWrite: a row type the writer has no column for is an error
// naming the field, and nothing is written.
func TestWriteRefusesWhatItCannotWrite(t *testing.T) {
	type untagged struct{ A int64 }
	type options struct {
		A int64 `parquet:"a,dict"`
	}
	type unsigned struct {
		A uint64 `parquet:"a"`
	}
	type nested struct {
		L []struct {
			M []item `parquet:"m"`
		} `parquet:"l"`
	}
	check := func(name string, err error, want string) {
		t.Helper()
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an error naming %q", name, err, want)
		}
	}
	var buf bytes.Buffer
	check("untagged", Write(&buf, []untagged{{}}), "field A")
	check("options", Write(&buf, []options{{}}), "field A")
	check("unsigned", Write(&buf, []unsigned{{}}), "column a: type uint64")
	check("nested", Write(&buf, []nested{{}}), "a list in a list")
	check("not a struct", Write(&buf, []int{1}), "not of a struct")
	if buf.Len() != 0 {
		t.Fatalf("%d bytes written", buf.Len())
	}
}

// TestWriteRefusesAPageTooLarge: a value past what a page header can say is an error naming
// its column, not a header that lies.
func TestWriteRefusesAPageTooLarge(t *testing.T) {
	defer func(was int) { maxPageSize = was }(maxPageSize)
	maxPageSize = 1000
	type row struct {
		A int64  `parquet:"a"`
		S string `parquet:"s"`
	}
	err := Write(io.Discard, []row{{1, "short"}, {2, strings.Repeat("x", 2000)}})
	if err == nil || !strings.Contains(err.Error(), "column s: a page of 2013 bytes") {
		t.Fatalf("%v", err)
	}
}
