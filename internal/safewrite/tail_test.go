package safewrite

import (
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

func TestCheckTail(t *testing.T) {
	long := strings.Repeat("x", 3*tailReadChunk) // a cut line longer than one read
	for _, tc := range []struct {
		name, data string
		cut        int // the line of the PartialLineError; 0 for none
	}{
		{name: "ends with a line end", data: "{\"a\":1}\n"},
		{name: "empty", data: ""},
		{name: "a complete record without its line end", data: "{\"a\":1}\n{\"b\":2}"},
		{name: "a cut record", data: "{\"a\":1}\n{\"b\":", cut: 2},
		{name: "a cut record after blank lines", data: "{\"a\":1}\n\n\n{\"b\":\"é", cut: 4},
		{name: "a long cut record", data: "{\"a\":1}\n{\"b\":\"" + long, cut: 2},
		{name: "a cut first line", data: "{\"b\":\"" + long, cut: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, tc.data)
			err := CheckTail(p)
			var pe *PartialLineError
			switch {
			case tc.cut == 0 && err != nil:
				t.Fatalf("CheckTail = %v", err)
			case tc.cut > 0 && (!errors.As(err, &pe) || pe.Line != tc.cut || !strings.Contains(err.Error(), p)):
				t.Fatalf("CheckTail = %v, want a PartialLineError naming the file at line %d", err, tc.cut)
			case tc.cut > 0 && pe.Offset+pe.Bytes != int64(len(tc.data)):
				t.Fatalf("cut line at %d, %d bytes; the file has %d", pe.Offset, pe.Bytes, len(tc.data))
			}
			if got := read(t, p); got != tc.data {
				t.Error("CheckTail changed the file")
			}
		})
	}
}

func TestSetAsideTailAndRestore(t *testing.T) {
	const whole, cut = "{\"a\":1}\n", "{\"b\":\"half"
	p := writeFile(t, whole+cut)
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	os.Chtimes(p, old, old)
	os.WriteFile(TailAsidePath(p), []byte("an earlier one"), 0o600)
	a, err := SetAsideTail(p)
	if err != nil || a == nil {
		t.Fatalf("SetAsideTail = %v, %v", a, err)
	}
	if got := read(t, p); got != whole {
		t.Errorf("session after = %q, want %q", got, whole)
	}
	if a.Aside != TailAsidePath(p)+".2" || read(t, a.Aside) != cut {
		t.Errorf("aside %s = %q, want the cut bytes beside the earlier one", a.Aside, read(t, a.Aside))
	}
	if err := a.Restore(); err != nil {
		t.Fatal(err)
	}
	if got := read(t, p); got != whole+cut {
		t.Errorf("session restored = %q, want it byte for byte", got)
	}
	if info, _ := os.Stat(p); !info.ModTime().Equal(old) {
		t.Errorf("session restored with time %v, want its own %v (else it is taken for live)", info.ModTime(), old)
	}
	if _, err := os.Stat(a.Aside); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the aside file is left after the restore: %v", err)
	}
	// Nothing to set aside: nil, the file untouched.
	q := writeFile(t, whole)
	if a, err := SetAsideTail(q); a != nil || err != nil || read(t, q) != whole {
		t.Errorf("SetAsideTail of a whole file = %v, %v", a, err)
	}
}
