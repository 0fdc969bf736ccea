#include "textflag.h"

// Both kernels read 64 bytes per step (two AVX2 loads), make 64-bit masks of them, and find
// which bytes are escaped, branch-free, as simdjson does (its json_escape_scanner): a byte is
// escaped when an odd run of backslashes ends just before it. The run may begin in an earlier
// block: R12 carries "the next block's first byte is escaped" from block to block.
//
// Registers: SI the string's bytes, DX its length, AX the index reached, BX backslashes,
// R11 escaped bytes, R12 the carry, R13 the odd bits.

// ESCAPED computes R11 from BX and R12 and updates R12; it uses R14 and R15. R14: the
// backslashes not escaped by the carry, which may start escapes; R15: the escapes and the
// bytes that end their runs; R11: the escaped bytes.
#define ESCAPED \
	MOVQ R12, R14 \
	NOTQ R14 \
	ANDQ BX, R14 \
	MOVQ R14, R15 \
	SHLQ $1, R15 \
	ORQ  R13, R15 \
	SUBQ R14, R15 \
	XORQ R13, R15 \
	MOVQ BX, R11 \
	ORQ  R12, R11 \
	XORQ R15, R11 \
	ANDQ BX, R15 \
	SHRQ $63, R15 \
	MOVQ R15, R12

// MASK64 sets dst to the 64-bit mask of the bytes of Y0:Y1 for which op(cmp) gives all ones.
#define MASK64(op, cmp, dst) \
	op cmp, Y0, Y5 \
	VPMOVMSKB Y5, dst \
	op cmp, Y1, Y5 \
	VPMOVMSKB Y5, R8 \
	SHLQ $32, R8 \
	ORQ  R8, dst

// func plainEndAVX2(s string, i int) int
TEXT ·plainEndAVX2(SB), NOSPLIT, $0-32
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), DX
	MOVQ i+16(FP), AX
	XORQ R12, R12
	MOVQ $0xaaaaaaaaaaaaaaaa, R13
	MOVQ $0x2222222222222222, BX // '"'
	VMOVQ BX, X2
	VPBROADCASTQ X2, Y2
	MOVQ $0x5c5c5c5c5c5c5c5c, BX // '\\'
	VMOVQ BX, X3
	VPBROADCASTQ X3, Y3
	MOVQ $0x1f1f1f1f1f1f1f1f, BX // the last control character
	VMOVQ BX, X4
	VPBROADCASTQ X4, Y4
	MOVQ $0x0f0f0f0f0f0f0f0f, BX
	VMOVQ BX, X9
	VPBROADCASTQ X9, Y9
	VMOVDQU escLow<>(SB), Y7
	VMOVDQU escHigh<>(SB), Y8
	VPXOR Y15, Y15, Y15

plainLoop:
	LEAQ 64(AX), CX
	CMPQ CX, DX
	JA   plainEnd
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	MASK64(VPCMPEQB, Y3, BX)
	// Quotes and control characters, in one mask (R10).
	VPCMPEQB Y2, Y0, Y5
	VPMINUB Y4, Y0, Y6
	VPCMPEQB Y0, Y6, Y6
	VPOR Y5, Y6, Y5
	VPMOVMSKB Y5, R10
	VPCMPEQB Y2, Y1, Y5
	VPMINUB Y4, Y1, Y6
	VPCMPEQB Y1, Y6, Y6
	VPOR Y5, Y6, Y5
	VPMOVMSKB Y5, R8
	SHLQ $32, R8
	ORQ  R8, R10
	MOVQ BX, R8
	ORQ  R12, R8
	JNZ  plainEscapes // a backslash, or the first byte escaped from the block before
	TESTQ R10, R10
	JNZ  plainFound
	MOVQ CX, AX
	JMP  plainLoop

plainEscapes:
	ESCAPED
	// The bytes that may follow a backslash: a class bit from the low nibble and one from the
	// high nibble (escLow, escHigh) must meet. Not such a byte, escaped: the escape is invalid
	// or \u, and it ends the run at its backslash.
	VPSRLW $4, Y0, Y10
	VPAND Y9, Y10, Y10
	VPAND Y9, Y0, Y11
	VPSHUFB Y11, Y7, Y11
	VPSHUFB Y10, Y8, Y10
	VPAND Y10, Y11, Y11
	VPCMPEQB Y15, Y11, Y11
	VPMOVMSKB Y11, R9
	VPSRLW $4, Y1, Y10
	VPAND Y9, Y10, Y10
	VPAND Y9, Y1, Y11
	VPSHUFB Y11, Y7, Y11
	VPSHUFB Y10, Y8, Y10
	VPAND Y10, Y11, Y11
	VPCMPEQB Y15, Y11, Y11
	VPMOVMSKB Y11, R8
	SHLQ $32, R8
	ORQ  R8, R9
	ANDQ R11, R9 // escaped bytes that no two-byte escape allows
	BTQ  $0, R9
	JCS  plainBackOne // its backslash ended the block before
	SHRQ $1, R9
	ORQ  R9, R10

plainStops:
	MOVQ R11, R8
	NOTQ R8
	ANDQ R8, R10 // escaped quotes and control characters are the escapes' business
	TESTQ R10, R10
	JNZ  plainFound
	MOVQ CX, AX
	JMP  plainLoop

plainFound:
	BSFQ R10, R10
	ADDQ R10, AX
	JMP  plainRet

plainEnd:
	TESTQ R12, R12
	JZ   plainRet

plainBackOne:
	DECQ AX // at the backslash whose escape the caller checks

plainRet:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

// func countCharsAVX2(s string) (chars, n int)
TEXT ·countCharsAVX2(SB), NOSPLIT, $0-32
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), DX
	XORQ AX, AX
	XORQ R9, R9 // characters
	XORQ R12, R12
	MOVQ $0xaaaaaaaaaaaaaaaa, R13
	MOVQ $0x5c5c5c5c5c5c5c5c, BX
	VMOVQ BX, X3
	VPBROADCASTQ X3, Y3
	MOVQ $0xbfbfbfbfbfbfbfbf, BX // continuation bytes are the signed bytes <= -65
	VMOVQ BX, X4
	VPBROADCASTQ X4, Y4
	MOVQ $0x7575757575757575, BX // 'u'
	VMOVQ BX, X6
	VPBROADCASTQ X6, Y6

countLoop:
	LEAQ 64(AX), CX
	CMPQ CX, DX
	JA   countEnd
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	MASK64(VPCMPEQB, Y3, BX)
	MASK64(VPCMPGTB, Y4, R10) // bytes that start a character
	TESTQ BX, BX
	JNZ  countEscapes
	MOVQ R12, R11
	XORQ R12, R12
	JMP  countU

countEscapes:
	ESCAPED

countU:
	MASK64(VPCMPEQB, Y6, R14)
	ANDQ R11, R14 // \u escapes: the caller decodes them (one may be half a surrogate pair)
	JNZ  countAtU
	MOVQ R11, R8
	NOTQ R8
	ANDQ R10, R8 // an escape counts as its backslash
	POPCNTQ R8, R8
	ADDQ R8, R9
	MOVQ CX, AX
	JMP  countLoop

countAtU:
	BSFQ R14, R14
	TESTQ R14, R14
	JZ   countBackOne // its backslash ended the block before
	LEAQ -1(R14), CX
	MOVQ $1, R8
	SHLQ CX, R8
	DECQ R8
	MOVQ R11, R15
	NOTQ R15
	ANDQ R10, R15
	ANDQ R8, R15 // the characters before the backslash
	POPCNTQ R15, R15
	ADDQ R15, R9
	ADDQ CX, AX
	JMP  countRet

countEnd:
	TESTQ R12, R12
	JZ   countRet

countBackOne:
	DECQ AX // give the counted backslash back: the caller reads the whole escape
	DECQ R9

countRet:
	VZEROUPPER
	MOVQ R9, chars+16(FP)
	MOVQ AX, n+24(FP)
	RET

// func quoteEndAVX2(s string, i int) int
TEXT ·quoteEndAVX2(SB), NOSPLIT, $0-32
	MOVQ s_base+0(FP), SI
	MOVQ s_len+8(FP), DX
	MOVQ i+16(FP), AX
	XORQ R12, R12
	MOVQ $0xaaaaaaaaaaaaaaaa, R13
	MOVQ $0x2222222222222222, BX // '"'
	VMOVQ BX, X2
	VPBROADCASTQ X2, Y2
	MOVQ $0x5c5c5c5c5c5c5c5c, BX // '\\'
	VMOVQ BX, X3
	VPBROADCASTQ X3, Y3

quoteLoop:
	LEAQ 64(AX), CX
	CMPQ CX, DX
	JA   quoteEnd
	VMOVDQU (SI)(AX*1), Y0
	VMOVDQU 32(SI)(AX*1), Y1
	MASK64(VPCMPEQB, Y3, BX)
	MASK64(VPCMPEQB, Y2, R10) // quotes
	MOVQ BX, R8
	ORQ  R12, R8
	JZ   quoteStops
	ESCAPED
	MOVQ R11, R8
	NOTQ R8
	ANDQ R8, R10 // quotes no backslash escapes

quoteStops:
	TESTQ R10, R10
	JNZ  quoteFound
	MOVQ CX, AX
	JMP  quoteLoop

quoteFound:
	BSFQ R10, R10
	ADDQ R10, AX
	JMP  quoteRet

quoteEnd:
	TESTQ R12, R12
	JZ   quoteRet
	DECQ AX // at the backslash whose escape crosses the end

quoteRet:
	VZEROUPPER
	MOVQ AX, ret+24(FP)
	RET

// escLow and escHigh: the class bits of the bytes that may follow a backslash, by low and by
// high nibble, once per 128-bit lane (VPSHUFB looks up within lanes).
//   '"' 0x22 '/' 0x2f: class 1; '\\' 0x5c: 2; 'b' 0x62 'f' 0x66 'n' 0x6e: 4; 'r' 0x72 't' 0x74: 8.
DATA escLow<>+0(SB)/8, $0x00040008000d0000
DATA escLow<>+8(SB)/8, $0x0104000200000000
DATA escLow<>+16(SB)/8, $0x00040008000d0000
DATA escLow<>+24(SB)/8, $0x0104000200000000
GLOBL escLow<>(SB), RODATA|NOPTR, $32
DATA escHigh<>+0(SB)/8, $0x0804020000010000
DATA escHigh<>+8(SB)/8, $0
DATA escHigh<>+16(SB)/8, $0x0804020000010000
DATA escHigh<>+24(SB)/8, $0
GLOBL escHigh<>(SB), RODATA|NOPTR, $32
