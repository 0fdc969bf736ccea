package parquet

import "encoding/binary"

// appendLevels appends levels in Parquet's RLE/bit-packed hybrid encoding at bitWidth bits a
// value: a run of 8 or more equal levels as one RLE run (its length, then the value in
// ceil(bitWidth/8) bytes), the levels between such runs bit-packed in groups of 8 (the last
// group padded with zeros, which a reader ignores: the page header says how many values).
func appendLevels(dst []byte, levels []uint8, bitWidth int) []byte {
	for i := 0; i < len(levels); {
		if n := runAt(levels, i); n >= 8 {
			dst = appendRLERun(dst, levels[i], n, bitWidth)
			i += n
			continue
		}
		start := i
		for i < len(levels) && runAt(levels, i) < 8 {
			i = min(i+8, len(levels))
		}
		dst = appendBitPacked(dst, levels[start:i], bitWidth)
	}
	return dst
}

// runAt is the length of the run of equal levels starting at i.
func runAt(levels []uint8, i int) int {
	n := 1
	for i+n < len(levels) && levels[i+n] == levels[i] {
		n++
	}
	return n
}

func appendRLERun(dst []byte, v uint8, n, bitWidth int) []byte {
	dst = binary.AppendUvarint(dst, uint64(n)<<1)
	for b := 0; b < (bitWidth+7)/8; b++ {
		dst = append(dst, v>>(8*b))
	}
	return dst
}

// appendBitPacked packs levels, least significant bit first, in groups of 8 values.
func appendBitPacked(dst []byte, levels []uint8, bitWidth int) []byte {
	groups := (len(levels) + 7) / 8
	dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
	packed := make([]byte, groups*bitWidth) // 8 values of bitWidth bits: bitWidth bytes a group
	for i, v := range levels {
		for b := 0; b < bitWidth; b++ {
			if v>>b&1 == 1 {
				bit := i*bitWidth + b
				packed[bit/8] |= 1 << (bit % 8)
			}
		}
	}
	return append(dst, packed...)
}
