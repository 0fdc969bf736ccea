package openclawstore

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// FuzzDecodeEvent feeds decodeEvent what a transcript_events row can hold: event_json as text,
// or the same bytes compressed (with their size, or a wrong one), or arbitrary bytes as
// event_zstd. It must never panic; what it accepts is one valid JSON value on one line, equal to
// the event as stored up to white space between tokens.
func FuzzDecodeEvent(f *testing.F) {
	f.Add([]byte(`{"type":"session","version":3,"id":"s"}`), int64(0), false)
	f.Add([]byte("{\"type\":\"message\",\n \"message\":{\"role\":\"user\",\"content\":\"hi\\nthere\"}}"), int64(0), true)
	f.Add([]byte(`{"type":"message",`), int64(0), true)
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0, 0}, int64(3), false)
	enc, _ := zstd.NewWriter(nil)
	f.Fuzz(func(t *testing.T, data []byte, sizeDelta int64, compress bool) {
		for _, r := range []row{
			{json: sql.NullString{String: string(data), Valid: true}},
			{zstd: data, rawBytes: sql.NullInt64{Int64: int64(len(data)) + sizeDelta, Valid: true}},
			{zstd: enc.EncodeAll(data, nil), rawBytes: sql.NullInt64{Int64: int64(len(data)) + sizeDelta, Valid: compress}},
		} {
			line, err := decodeEvent(r)
			if err != nil {
				continue
			}
			if !json.Valid(line) || bytes.ContainsAny(line, "\r\n") {
				t.Fatalf("accepted %q: not one JSON line", line)
			}
			var a, b bytes.Buffer
			if r.json.Valid || r.rawBytes.Int64 == int64(len(data)) && r.zstd != nil && !bytes.Equal(r.zstd, data) {
				json.Compact(&a, data)
				json.Compact(&b, line)
				if a.String() != b.String() {
					t.Fatalf("decoded %q from %q", line, data)
				}
			}
		}
	})
}
