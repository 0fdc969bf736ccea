package conv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// decodeObject is how parseObject read a record with encoding/json's decoder, token by token:
// the reference parseObject keeps to (keys in first-seen order, a repeated key's last value,
// each value's bytes as written).
func decodeObject(b []byte) (*Object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	t, err := dec.Token()
	if err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("not a JSON object")
	}
	o := NewObject()
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := o.vals[k]; !dup {
			o.keys = append(o.keys, k)
		}
		o.vals[k] = v
	}
	return o, nil
}

func sameObject(t *testing.T, in []byte) {
	t.Helper()
	got, gerr := ParseObject(in)
	want, werr := decodeObject(in)
	if gerr != nil && werr == nil && !json.Valid(in) {
		return // the decoder reads a record cut short as what it has; parseObject refuses it
	}
	if (gerr != nil) != (werr != nil) {
		t.Fatalf("parseObject(%q): error %v, the decoder's %v", in, gerr, werr)
	}
	if gerr != nil {
		return
	}
	if !reflect.DeepEqual(got.keys, want.keys) || len(got.vals) != len(want.vals) {
		t.Fatalf("parseObject(%q) keys %q, the decoder's %q", in, got.keys, want.keys)
	}
	for k, v := range want.vals {
		if !bytes.Equal(got.vals[k], v) {
			t.Fatalf("parseObject(%q)[%q] = %s, the decoder's %s", in, k, got.vals[k], v)
		}
	}
}

// TestParseObjectAsDecoder: a record read for rewriting gives the keys and values encoding/json's
// decoder gives, and refuses what it refuses.
func TestParseObjectAsDecoder(t *testing.T) {
	for _, in := range []string{
		`{}`, ` {"a":1} `, `{"a":1,"b":[1,{"c":"d"}],"e":null}`, `{"a":1,"a":2,"b":3}`,
		`{"k\"q":"v","\u00e9":"x","é":"y"}`, "{\"k\xff\":\"v\xfe\"}", `{"a":"x"} trailing`,
		`{"a":1.50e+3,"b":-0}`, `[1]`, `"s"`, ``, `{`, `{"a":}`, `{"a":1,}`, `{"a" 1}`, "{\"a\":\"\x01\"}",
		`{"a":[1,2}`, `{"a":tru}`,
	} {
		sameObject(t, []byte(in))
	}
}

// TestParseObjectAllocates: a record holding a 20 MB tool result is read with one copy of it,
// not the decoder's growing buffer and a copy of each value (five times the record).
func TestParseObjectAllocates(t *testing.T) {
	rec := []byte(`{"type":"user","message":{"role":"user","content":[{"type":"tool_result","content":"` +
		strings.Repeat(`line \"q\" \\ é\n`, 20<<20/16) + `"}]},"uuid":"u"}`)
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	o, err := ParseObject(rec)
	runtime.ReadMemStats(&after)
	if err != nil || o.Get("message") == nil {
		t.Fatalf("not parsed: %v", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > uint64(len(rec))*3/2 {
		t.Errorf("parseObject of a %d-byte record allocated %d bytes (%.2f× the record), want under 1.5×", len(rec), alloc, float64(alloc)/float64(len(rec)))
	}
}

// FuzzParseObject: parseObject reads any bytes as encoding/json's decoder does.
func FuzzParseObject(f *testing.F) {
	for _, s := range []string{`{"a":1,"a":[2]}`, `{"\u0041":"\ud800"}`, "{\"\xff\":1}", `{"a":{"b":"c"}}x`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) { sameObject(t, b) })
}
