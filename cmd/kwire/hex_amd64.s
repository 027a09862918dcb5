//go:build amd64 && !purego

#include "textflag.h"

// The constants of hexBlocks, 16 bytes each: '0', 9, 0x20, 'a', 5, 10 in
// every byte, then 0x00ff in every 16-bit word.
DATA hexc<>+0x00(SB)/8, $0x3030303030303030
DATA hexc<>+0x08(SB)/8, $0x3030303030303030
DATA hexc<>+0x10(SB)/8, $0x0909090909090909
DATA hexc<>+0x18(SB)/8, $0x0909090909090909
DATA hexc<>+0x20(SB)/8, $0x2020202020202020
DATA hexc<>+0x28(SB)/8, $0x2020202020202020
DATA hexc<>+0x30(SB)/8, $0x6161616161616161
DATA hexc<>+0x38(SB)/8, $0x6161616161616161
DATA hexc<>+0x40(SB)/8, $0x0505050505050505
DATA hexc<>+0x48(SB)/8, $0x0505050505050505
DATA hexc<>+0x50(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA hexc<>+0x58(SB)/8, $0x0a0a0a0a0a0a0a0a
DATA hexc<>+0x60(SB)/8, $0x00ff00ff00ff00ff
DATA hexc<>+0x68(SB)/8, $0x00ff00ff00ff00ff
GLOBL hexc<>(SB), RODATA|NOPTR, $0x70

// func hexBlocks(dst, src []byte) int
//
// SSE2 only (every amd64 has it). Each step reads 32 digits and writes 16
// bytes; it stops before the first step with a byte that is no hex digit.
TEXT ·hexBlocks(SB), NOSPLIT, $0-56
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ src_base+24(FP), SI
	MOVQ src_len+32(FP), DX
	SHRQ $4, CX // steps dst has room for
	SHRQ $5, DX // steps src holds
	CMPQ CX, DX
	CMOVQLT CX, DX
	XORQ AX, AX
	MOVOU hexc<>+0x00(SB), X8  // '0'
	MOVOU hexc<>+0x10(SB), X9  // 9
	MOVOU hexc<>+0x20(SB), X10 // 0x20
	MOVOU hexc<>+0x30(SB), X11 // 'a'
	MOVOU hexc<>+0x40(SB), X12 // 5
	MOVOU hexc<>+0x50(SB), X13 // 10
	MOVOU hexc<>+0x60(SB), X14 // 0x00ff words

loop:
	CMPQ AX, DX
	JGE  done
	MOVOU (SI), X0
	MOVOU 16(SI), X1

	// The first 16 digits: a digit's value is d = c-'0' when d <= 9, or
	// l+10 with l = (c|0x20)-'a' when l <= 5 (unsigned: min(x, n) == x).
	MOVOU   X0, X2
	PSUBB   X8, X2   // d
	POR     X10, X0
	PSUBB   X11, X0  // l
	MOVOU   X2, X3
	PMINUB  X9, X3
	PCMPEQB X2, X3   // d <= 9
	MOVOU   X0, X4
	PMINUB  X12, X4
	PCMPEQB X0, X4   // l <= 5
	PADDB   X13, X0
	PAND    X3, X2
	PAND    X4, X0
	POR     X2, X0   // the values
	POR     X4, X3   // where a digit is

	// The next 16, the same way.
	MOVOU   X1, X2
	PSUBB   X8, X2
	POR     X10, X1
	PSUBB   X11, X1
	MOVOU   X2, X5
	PMINUB  X9, X5
	PCMPEQB X2, X5
	MOVOU   X1, X4
	PMINUB  X12, X4
	PCMPEQB X1, X4
	PADDB   X13, X1
	PAND    X5, X2
	PAND    X4, X1
	POR     X2, X1
	POR     X4, X5

	PAND     X5, X3
	PMOVMSKB X3, BX
	CMPL     BX, $0xffff
	JNE      done

	// Each 16-bit word holds a pair, high digit first (in its low byte):
	// (w<<4 | w>>8) & 0xff is the pair's byte; PACKUSWB packs the words.
	MOVOU    X0, X2
	PSLLW    $4, X0
	PSRLW    $8, X2
	POR      X2, X0
	PAND     X14, X0
	MOVOU    X1, X2
	PSLLW    $4, X1
	PSRLW    $8, X2
	POR      X2, X1
	PAND     X14, X1
	PACKUSWB X1, X0
	MOVOU    X0, (DI)

	ADDQ $32, SI
	ADDQ $16, DI
	INCQ AX
	JMP  loop

done:
	MOVQ AX, ret+48(FP)
	RET
