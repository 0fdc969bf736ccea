package parquet

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestLevelsEncoding: the RLE/bit-packed hybrid's bytes: long runs as RLE runs, the rest
// bit-packed in groups of 8, least significant bit first.
func TestLevelsEncoding(t *testing.T) {
	tests := []struct {
		name     string
		levels   []uint8
		bitWidth int
		want     []byte
	}{
		{"none", nil, 1, nil},
		{"a run of 8", []uint8{0, 0, 0, 0, 0, 0, 0, 0}, 1, []byte{0x10, 0x00}},
		{"a run of 200, a two-byte header", slices.Repeat([]uint8{1}, 200), 1, []byte{0x90, 0x03, 0x01}},
		{"mixed, one group", []uint8{1, 0, 1, 1, 0, 0, 0, 1}, 1, []byte{0x03, 0x8d}},
		{"short, padded", []uint8{1, 1, 1}, 1, []byte{0x03, 0x07}},
		{"run then the rest", []uint8{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1}, 1, []byte{0x14, 0x01, 0x03, 0x02}},
		{"packed then run", []uint8{0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1}, 1, []byte{0x03, 0xaa, 0x10, 0x01}},
		{"two bits a value", []uint8{2, 1, 0, 3}, 2, []byte{0x03, 0xc6, 0x00}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := appendLevels(nil, tt.levels, tt.bitWidth)
			if !bytes.Equal(got, tt.want) {
				t.Fatalf("% x, want % x", got, tt.want)
			}
		})
	}
}

// TestLevelsRoundTrip: random levels, with runs of every length, decode back to themselves.
func TestLevelsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 500 {
		bw := 1 + r.IntN(2)
		var levels []uint8
		for len(levels) < r.IntN(300) {
			v := uint8(r.IntN(1 << bw))
			levels = append(levels, slices.Repeat([]uint8{v}, 1+r.IntN(20))...)
		}
		got, err := decodeLevels(appendLevels(nil, levels, bw), bw, len(levels))
		if err != nil || !slices.Equal(got, levels) {
			t.Fatalf("width %d: %v %v, want %v", bw, got, err, levels)
		}
	}
}

// decodeLevels reads n levels of the hybrid encoding, as a reader does.
func decodeLevels(b []byte, bitWidth, n int) ([]uint8, error) {
	r := bytes.NewReader(b)
	var out []uint8
	for len(out) < n {
		h, err := binary.ReadUvarint(r)
		if err != nil {
			return out, err
		}
		if h&1 == 0 {
			var v uint8
			for i := 0; i < (bitWidth+7)/8; i++ {
				c, _ := r.ReadByte()
				v |= c << (8 * i)
			}
			out = append(out, slices.Repeat([]uint8{v}, int(h>>1))...)
			continue
		}
		packed := make([]byte, int(h>>1)*bitWidth)
		if _, err := r.Read(packed); err != nil {
			return out, err
		}
		for i := 0; i < int(h>>1)*8; i++ {
			var v uint8
			for bit := 0; bit < bitWidth; bit++ {
				p := i*bitWidth + bit
				v |= (packed[p/8] >> (p % 8) & 1) << bit
			}
			out = append(out, v)
		}
	}
	if r.Len() != 0 {
		return out, bytes.ErrTooLarge
	}
	return out[:n], nil
}
