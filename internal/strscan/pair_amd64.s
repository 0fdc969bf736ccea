#include "textflag.h"

// BYTE_AT broadcasts byte shift/8 of BX to every byte of y (x: its low half); CX is used.
#define BYTE_AT(shift, x, y) \
	MOVL BX, CX \
	SHRL $shift, CX \
	ANDL $0xff, CX \
	VMOVD CX, x \
	VPBROADCASTB x, y

// EITHER sets the bytes of v that equal the byte of a or of b to all ones, the others to zero;
// Y8 is used.
#define EITHER(v, a, b) \
	VPCMPEQB v, a, Y8 \
	VPCMPEQB v, b, v \
	VPOR     Y8, v, v

// func pairScanAVX2(b []byte, i, o1, o2 int, bytes uint32) int
//
// The first p >= i at which b[p+o1] is one of bytes' first two bytes and b[p+o2] one of its
// last two, looking 64 positions per step (four AVX2 loads: two at p+o1, two at p+o2): ripgrep's
// "packed pair" prefilter, which stays fast when each byte alone is common. It returns p, or
// -1-q when it stopped at q without finding one (q: the first position whose 64-position step
// would read past the end of b).
TEXT ·pairScanAVX2(SB), NOSPLIT, $0-64
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), DX
	MOVQ i+24(FP), AX
	MOVQ o1+32(FP), R8
	MOVQ o2+40(FP), R9
	MOVL bytes+48(FP), BX
	BYTE_AT(0, X0, Y0)
	BYTE_AT(8, X1, Y1)
	BYTE_AT(16, X2, Y2)
	BYTE_AT(24, X3, Y3)
	// R11: the last p whose step reads within b (its last byte: p+max(o1,o2)+63).
	MOVQ R8, R10
	CMPQ R9, R10
	CMOVQGT R9, R10
	MOVQ DX, R11
	SUBQ R10, R11
	SUBQ $64, R11
	LEAQ (SI)(R8*1), R8
	LEAQ (SI)(R9*1), R9

pairLoop:
	CMPQ AX, R11
	JGT  pairStop
	VMOVDQU (R8)(AX*1), Y4
	VMOVDQU 32(R8)(AX*1), Y5
	VMOVDQU (R9)(AX*1), Y6
	VMOVDQU 32(R9)(AX*1), Y7
	EITHER(Y4, Y0, Y1)
	EITHER(Y5, Y0, Y1)
	EITHER(Y6, Y2, Y3)
	EITHER(Y7, Y2, Y3)
	VPAND    Y4, Y6, Y4
	VPAND    Y5, Y7, Y5
	VPOR     Y4, Y5, Y8
	VPTEST   Y8, Y8
	JNZ      pairFound
	ADDQ     $64, AX
	JMP      pairLoop

pairFound:
	VPMOVMSKB Y4, CX
	VPMOVMSKB Y5, DX
	SHLQ      $32, DX
	ORQ       DX, CX
	BSFQ      CX, CX
	ADDQ      CX, AX
	VZEROUPPER
	MOVQ      AX, ret+56(FP)
	RET

pairStop:
	NOTQ AX
	VZEROUPPER
	MOVQ AX, ret+56(FP)
	RET

// func pairEitherAVX2(b []byte, i, o1, o2 int, bytes uint32, q1, q2 int, qbytes uint32) int
//
// Like pairScanAVX2, for either of two pairs: the first (o1, o2, bytes) as there, or the
// second (q1, q2, qbytes: b[p+q1] the low byte and b[p+q2] the next), 32 positions per step.
TEXT ·pairEitherAVX2(SB), NOSPLIT, $0-88
	MOVQ b_base+0(FP), SI
	MOVQ b_len+8(FP), DX
	MOVQ i+24(FP), AX
	MOVQ o1+32(FP), R8
	MOVQ o2+40(FP), R9
	MOVL bytes+48(FP), BX
	MOVQ q1+56(FP), R12
	MOVQ q2+64(FP), R13
	BYTE_AT(0, X0, Y0)
	BYTE_AT(8, X1, Y1)
	BYTE_AT(16, X2, Y2)
	BYTE_AT(24, X3, Y3)
	MOVL qbytes+72(FP), BX
	BYTE_AT(0, X9, Y9)
	BYTE_AT(8, X10, Y10)
	// R11: the last p whose step reads within b (its last byte: p+max(o1,o2,q1,q2)+31).
	MOVQ R8, R10
	CMPQ R9, R10
	CMOVQGT R9, R10
	CMPQ R12, R10
	CMOVQGT R12, R10
	CMPQ R13, R10
	CMOVQGT R13, R10
	MOVQ DX, R11
	SUBQ R10, R11
	SUBQ $32, R11
	LEAQ (SI)(R8*1), R8
	LEAQ (SI)(R9*1), R9
	LEAQ (SI)(R12*1), R12
	LEAQ (SI)(R13*1), R13

eitherLoop:
	CMPQ AX, R11
	JGT  eitherStop
	VMOVDQU (R8)(AX*1), Y4
	VMOVDQU (R9)(AX*1), Y5
	VMOVDQU (R12)(AX*1), Y6
	VMOVDQU (R13)(AX*1), Y7
	EITHER(Y4, Y0, Y1)
	EITHER(Y5, Y2, Y3)
	VPAND    Y4, Y5, Y4
	VPCMPEQB Y6, Y9, Y6
	VPCMPEQB Y7, Y10, Y7
	VPAND    Y6, Y7, Y6
	VPOR     Y4, Y6, Y4
	VPMOVMSKB Y4, CX
	TESTL    CX, CX
	JNZ      eitherFound
	ADDQ     $32, AX
	JMP      eitherLoop

eitherFound:
	BSFL CX, CX
	ADDQ CX, AX
	VZEROUPPER
	MOVQ AX, ret+80(FP)
	RET

eitherStop:
	NOTQ AX
	VZEROUPPER
	MOVQ AX, ret+80(FP)
	RET
