package openclawstore

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/ctxc/ctxc/internal/jsonl"
	"github.com/klauspost/compress/zstd"
)

// maxEvent is the largest event OpenClaw stores compressed (its event_utf8_bytes bound).
const maxEvent = 4 << 20

// zstdDecoder decodes OpenClaw's compressed events (plain zstd frames, no dictionary); it is
// made on the first compressed event.
var zstdDecoder = sync.OnceValue(func() *zstd.Decoder {
	d, _ := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(maxEvent))
	return d
})

// decodeEvent returns one event's JSON text: event_json as stored, or event_zstd decompressed
// to exactly event_utf8_bytes bytes. Either way it must be one valid JSON value on one line.
func decodeEvent(r row) ([]byte, error) {
	var b []byte
	switch {
	case r.json.Valid:
		b = []byte(r.json.String)
	case r.zstd != nil:
		var err error
		if b, err = decompress(r.zstd, r.rawBytes.Int64, r.rawBytes.Valid); err != nil {
			return nil, err
		}
	default:
		return nil, errors.New("neither event_json nor event_zstd is set")
	}
	return checkEvent(b)
}

// decompress decodes a compressed event and checks its recorded size.
func decompress(z []byte, size int64, sized bool) ([]byte, error) {
	if !sized || size < 1 || size > maxEvent {
		return nil, fmt.Errorf("compressed event without a valid event_utf8_bytes (%d)", size)
	}
	b, err := zstdDecoder().DecodeAll(z, make([]byte, 0, size))
	if err != nil {
		return nil, fmt.Errorf("event_zstd: %w", err)
	}
	if int64(len(b)) != size {
		return nil, fmt.Errorf("event_zstd decodes to %d bytes, event_utf8_bytes says %d", len(b), size)
	}
	return b, nil
}

// checkEvent checks that an event is one JSON value and puts it on one JSONL line (a line break
// can only be white space between tokens: JSON strings escape theirs).
func checkEvent(b []byte) ([]byte, error) {
	if !jsonl.Valid(b) {
		return nil, errors.New("event_json is not valid JSON")
	}
	if bytes.ContainsAny(b, "\r\n") {
		var c bytes.Buffer
		if err := json.Compact(&c, b); err != nil {
			return nil, err
		}
		return c.Bytes(), nil
	}
	return b, nil
}
