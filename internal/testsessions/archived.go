package testsessions

import "github.com/klauspost/compress/zstd"

// Archived is data as `ctxc archive` stores a session: zstd frames whose concatenated
// decompression is data. frame > 0 cuts a new frame every frame bytes (anywhere, even inside a
// line or a UTF-8 sequence: frames are cut where the archive's runs ended); frame <= 0 writes one
// frame.
func Archived(data []byte, frame int) []byte {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic(err) // only a bad option fails
	}
	defer enc.Close()
	if frame <= 0 {
		frame = max(len(data), 1)
	}
	var out []byte
	for off := 0; off < len(data) || off == 0; off += frame {
		out = enc.EncodeAll(data[off:min(off+frame, len(data))], out)
	}
	return out
}
