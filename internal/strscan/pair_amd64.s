#include "textflag.h"

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
	MOVL BX, CX
	ANDL $0xff, CX
	VMOVD CX, X0
	VPBROADCASTB X0, Y0
	MOVL BX, CX
	SHRL $8, CX
	ANDL $0xff, CX
	VMOVD CX, X1
	VPBROADCASTB X1, Y1
	MOVL BX, CX
	SHRL $16, CX
	ANDL $0xff, CX
	VMOVD CX, X2
	VPBROADCASTB X2, Y2
	MOVL BX, CX
	SHRL $24, CX
	VMOVD CX, X3
	VPBROADCASTB X3, Y3
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
	VPCMPEQB Y4, Y0, Y8
	VPCMPEQB Y4, Y1, Y4
	VPOR     Y8, Y4, Y4
	VPCMPEQB Y5, Y0, Y8
	VPCMPEQB Y5, Y1, Y5
	VPOR     Y8, Y5, Y5
	VPCMPEQB Y6, Y2, Y8
	VPCMPEQB Y6, Y3, Y6
	VPOR     Y8, Y6, Y6
	VPCMPEQB Y7, Y2, Y8
	VPCMPEQB Y7, Y3, Y7
	VPOR     Y8, Y7, Y7
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
	MOVL BX, CX
	ANDL $0xff, CX
	VMOVD CX, X0
	VPBROADCASTB X0, Y0
	MOVL BX, CX
	SHRL $8, CX
	ANDL $0xff, CX
	VMOVD CX, X1
	VPBROADCASTB X1, Y1
	MOVL BX, CX
	SHRL $16, CX
	ANDL $0xff, CX
	VMOVD CX, X2
	VPBROADCASTB X2, Y2
	MOVL BX, CX
	SHRL $24, CX
	VMOVD CX, X3
	VPBROADCASTB X3, Y3
	MOVL qbytes+72(FP), BX
	MOVL BX, CX
	ANDL $0xff, CX
	VMOVD CX, X9
	VPBROADCASTB X9, Y9
	MOVL BX, CX
	SHRL $8, CX
	ANDL $0xff, CX
	VMOVD CX, X10
	VPBROADCASTB X10, Y10
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
	VPCMPEQB Y4, Y0, Y8
	VPCMPEQB Y4, Y1, Y4
	VPOR     Y8, Y4, Y4
	VPCMPEQB Y5, Y2, Y8
	VPCMPEQB Y5, Y3, Y5
	VPOR     Y8, Y5, Y5
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
