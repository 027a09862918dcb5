//go:build amd64 && !purego

#include "textflag.h"

// The constants of escapeBlocks, 16 bytes each: 0x1f, 0x7f, '"' and '\\'
// in every byte.
DATA escc<>+0x00(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA escc<>+0x08(SB)/8, $0x1f1f1f1f1f1f1f1f
DATA escc<>+0x10(SB)/8, $0x7f7f7f7f7f7f7f7f
DATA escc<>+0x18(SB)/8, $0x7f7f7f7f7f7f7f7f
DATA escc<>+0x20(SB)/8, $0x2222222222222222
DATA escc<>+0x28(SB)/8, $0x2222222222222222
DATA escc<>+0x30(SB)/8, $0x5c5c5c5c5c5c5c5c
DATA escc<>+0x38(SB)/8, $0x5c5c5c5c5c5c5c5c
GLOBL escc<>(SB), RODATA|NOPTR, $0x40

// PLACE stores the half in X5's low 8 bytes with the bytes set in mask
// (its 8 bits) escaped, shuffled from beside 8 backslashes, and moves DI
// past them.
#define PLACE(mask) \
	PUNPCKLQDQ X11, X5; \
	MOVQ       mask, R10; \
	SHLQ       $4, R10; \
	MOVOU      (R8)(R10*1), X6; \
	PSHUFB     X6, X5; \
	MOVOU      X5, (DI); \
	MOVBQZX    (R9)(mask*1), R10; \
	LEAQ       8(DI)(R10*1), DI

// func escapeBlocks(dst, src []byte) (read, written int)
//
// SSSE3 (the caller checks). A step reads 16 bytes; when none needs
// escaping it stores them, else each half is shuffled (escapeShuffles)
// out of the half beside 8 backslashes and stored as 16 bytes, of which
// 8+escapeCounts[m] count: at most 32 bytes from the step's start.
TEXT ·escapeBlocks(SB), NOSPLIT, $0-64
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), DX
	MOVQ DI, R12
	MOVQ SI, R13
	CMPQ CX, $32
	JLT  done
	CMPQ DX, $16
	JLT  done
	LEAQ -32(DI)(CX*1), CX // the last place a step may start writing
	LEAQ -16(SI)(DX*1), DX // the last place a step may start reading
	MOVOU escc<>+0x00(SB), X8  // 0x1f
	MOVOU escc<>+0x10(SB), X9  // 0x7f
	MOVOU escc<>+0x20(SB), X10 // '"'
	MOVOU escc<>+0x30(SB), X11 // '\\'
	LEAQ  ·escapeShuffles(SB), R8
	LEAQ  ·escapeCounts(SB), R9

loop:
	CMPQ SI, DX
	JHI  done
	CMPQ DI, CX
	JHI  done
	MOVOU (SI), X0

	// Printable ASCII: above 0x1f as a signed byte (so below 0x80), and
	// not DEL.
	MOVOU    X0, X1
	PCMPGTB  X8, X1
	MOVOU    X0, X2
	PCMPEQB  X9, X2
	PANDN    X1, X2
	PMOVMSKB X2, AX
	CMPL     AX, $0xffff
	JNE      done

	// Quotes and backslashes.
	MOVOU    X0, X3
	PCMPEQB  X10, X3
	MOVOU    X0, X4
	PCMPEQB  X11, X4
	POR      X4, X3
	PMOVMSKB X3, AX
	TESTL    AX, AX
	JNZ      spread
	MOVOU    X0, (DI)
	ADDQ     $16, SI
	ADDQ     $16, DI
	JMP      loop

spread:
	MOVL  AX, BX
	ANDL  $0xff, BX
	SHRL  $8, AX
	MOVOU X0, X5
	PLACE(BX)
	MOVOU X0, X5
	PSRLDQ $8, X5
	PLACE(AX)
	ADDQ  $16, SI
	JMP   loop

done:
	SUBQ R13, SI
	SUBQ R12, DI
	MOVQ SI, read+48(FP)
	MOVQ DI, written+56(FP)
	RET
