//go:build !purego

#include "textflag.h"

// huffFastBMI2: huffFast (block.go) in amd64 assembly with BMI2. Read it
// next to the Go loop: the blocks below are its blocks, in its order, with
// its names in the comments. What assembly adds: every variable lives in
// a register for the whole loop, ip and op are pointers, no bounds checks
// (the margins fastIn and fastOut and the dist > op check keep every load
// and store inside in and dst, as in Go), SHRX/SHLX shift by an entry
// without moving it to CL and mask the count to 6 bits themselves, BZHI
// masks the extra bits, and matches with dist ≥ 16 copy 16-byte words.
//
// Registers:
//	BX  bb, the bit buffer          SI  nb (only nb&63 is meaningful)
//	R9  bb4 = bb<<2, the lookups' index (an unscaled index loads faster)
//	R10 ip, a pointer into in       inEnd-8(SP) = &in[len(in)-fastIn]
//	DI  op, a pointer into dst      R11 outEnd = &dst[len(dst)-fastOut]
//	R8  t, the tables               R12 lk&63
//	AX  e, the literal/length entry (then the distance's in the slow path)
//	DX  d, the speculative distance entry
//	R13 length (then the match end), R15 dist, R14 the match source
//	CX  scratch

// Entry flags and table layout: huffman.go's constants (TestAsmConstants
// compares them).
#define fExtra 0x80
#define fLit 0x1000
#define fSub 0x2000
#define fEOB 0x4000
#define fBad 0x8000
#define fExc 0xe000
#define litMask 0x7ff
#define distMask 0xff
#define litRoot 11
#define distRoot 8
#define distOff 16384
#define fastIn 16
#define fastOut 277

// Exits (block.go).
#define fastMargin 0
#define fastEOB 1
#define fastBadLit 2
#define fastBadDist 3
#define fastFar 4

// e = t[bb&litMask], from bb4: (bb4 & litMask<<2) is the entry's byte
// offset.
#define LOOKUP_E \
	MOVL R9, CX; \
	ANDL $(litMask<<2), CX; \
	MOVL (R8)(CX*1), AX

// d = t[litSize+(bb>>lk)&distMask], from bb4.
#define LOOKUP_D \
	SHRXQ R12, R9, CX; \
	ANDL  $(distMask<<2), CX; \
	MOVL  distOff(R8)(CX*1), DX

// Consume the bits of entry ent: bb >>= ent&63 (and bb4); nb -= ent.
#define CONSUME(ent) \
	SHRXQ ent, BX, BX; \
	SHRXQ ent, R9, R9; \
	SUBQ  ent, SI

// A literal: consume e; dst[op] = byte(e>>16); op++ (e is looked up
// again after).
#define LITERAL \
	CONSUME(AX); \
	SHRL  $16, AX; \
	MOVB  AX, (DI); \
	INCQ  DI

// If e is a literal: the literal, then e = the next entry; else to
// notLit.
#define LITERAL_STEP \
	TESTL $fLit, AX; \
	JZ    notLit; \
	LITERAL; \
	LOOKUP_E

// Refill: bb |= load64(in, ip) << (nb&63); ip += 7 - (nb>>3)&7; nb |= 56
// (7 - (nb>>3)&7 is (^nb>>3)&7); then bb4 = bb << 2.
#define REFILL \
	SHLXQ SI, (R10), CX; \
	ORQ   CX, BX; \
	MOVL  SI, CX; \
	NOTL  CX; \
	SHRL  $3, CX; \
	ANDL  $7, CX; \
	ADDQ  CX, R10; \
	ORQ   $56, SI; \
	MOVQ  BX, R9; \
	SHLQ  $2, R9

// val += (bb & (1<<(ent&63) - 1)) >> ((ent>>8)&63): the extra bits above
// the codeword (SHRX takes the count's low 6 bits: bits 8-13 of ent, the
// codeword length and two flags that are clear in a length or distance).
#define ADD_EXTRA(ent, val) \
	MOVL  ent, CX; \
	ANDL  $63, CX; \
	BZHIQ CX, BX, CX; \
	MOVL  ent, R14; \
	SHRL  $8, R14; \
	SHRXQ R14, CX, CX; \
	ADDQ  CX, val

// e = t[off + (e>>16 + bb&(1<<((e>>8)&15)-1)) & mask]: the subtable entry
// of pointer e, once the root bits are consumed.
#define SUBTABLE(off, mask) \
	MOVL  AX, CX; \
	SHRL  $8, CX; \
	ANDL  $15, CX; \
	BZHIQ CX, BX, CX; \
	SHRL  $16, AX; \
	ADDL  CX, AX; \
	ANDL  $mask, AX; \
	MOVL  off(R8)(AX*4), AX

// func huffFastBMI2(dst, in []byte, t *tables, lk uint, pos, op int) (posOut, opOut, dist, exit int)
TEXT ·huffFastBMI2(SB), NOSPLIT, $8-112
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), R11
	LEAQ -fastOut(DI)(R11*1), R11 // outEnd
	ADDQ op+72(FP), DI            // op
	MOVQ in_base+24(FP), R10
	MOVQ in_len+32(FP), CX
	LEAQ -fastIn(R10)(CX*1), CX
	MOVQ CX, inEnd-8(SP)
	MOVQ t+48(FP), R8
	MOVQ lk+56(FP), R12
	ANDQ $63, R12

	// Set-up: ip = pos>>3; bb = load64(in, ip) >> (pos&7);
	// nb = 56 - pos&7; ip += 7; then a refill.
	MOVQ  pos+64(FP), CX
	MOVQ  CX, R13
	SHRQ  $3, R13
	ADDQ  R13, R10
	ANDL  $7, CX
	SHRXQ CX, (R10), BX
	MOVL  $56, SI
	SUBQ  CX, SI
	ADDQ  $7, R10
	REFILL
	LOOKUP_E
	LOOKUP_D

loop:
	// Up to four literals, each looking up the next entry (and, for
	// the first three, the speculative distance entry); they fall
	// through, anything else branches off.
	LITERAL_STEP
	LOOKUP_D
	LITERAL_STEP
	LOOKUP_D
	LITERAL_STEP
	LOOKUP_D
	LITERAL_STEP
	JMP refill

notLit:
	TESTL $fExc, AX
	JNZ   exc

length:
	// A length: base plus extra bits, which sit above the codeword.
	MOVL  AX, R13
	SHRL  $16, R13
	TESTL $fExtra, AX
	JZ    lengthDone
	ADD_EXTRA(AX, R13)

lengthDone:
	// The speculative distance entry d is the right one when the length
	// took lk bits, d is a distance, and the counted bits cover it and
	// the next lookup: lk + d&63 + litRoot <= nb&63.
	MOVL  AX, CX
	ANDL  $63, CX
	CMPQ  CX, R12
	JNE   noSpec
	TESTL $fExc, DX
	JNZ   noSpec
	MOVL  DX, CX
	ANDL  $63, CX
	ADDQ  R12, CX
	ADDQ  $litRoot+1, CX
	MOVL  SI, R14
	ANDL  $63, R14
	CMPQ  CX, R14
	JA    noSpec
	// bb >>= lk; dist = d>>16 (+ extra bits); bb >>= d&63; nb -= lk + d.
	SHRXQ R12, BX, BX
	SHRXQ R12, R9, R9
	MOVL  DX, R15
	SHRL  $16, R15
	TESTL $fExtra, DX
	JZ    specDone
	ADD_EXTRA(DX, R15)

specDone:
	SUBQ R12, SI
	CONSUME(DX)
	JMP  match

noSpec:
	// Refill before consuming the length (off the path from the length
	// entry to the distance entry), then look the distance up.
	REFILL
	CONSUME(AX)
	MOVL  R9, CX
	ANDL  $(distMask<<2), CX
	MOVL  distOff(R8)(CX*1), AX
	TESTL $fExc, AX
	JNZ   distExc

distance:
	MOVL  AX, R15
	SHRL  $16, R15
	TESTL $fExtra, AX
	JZ    distanceDone
	ADD_EXTRA(AX, R15)

distanceDone:
	CONSUME(AX)

match:
	// dist > op (op counted from dst's start) fails, before any copy.
	MOVQ DI, CX
	SUBQ dst_base+0(FP), CX
	CMPQ R15, CX
	JA   far
	LOOKUP_E

	// The match, from src = op - dist to end = op + length, in words
	// that may overrun end (fastOut leaves room). Words copy forward
	// correctly when dist is at least their size: each reads bytes
	// already final.
	MOVQ DI, R14
	SUBQ R15, R14
	ADDQ DI, R13
	CMPQ R15, $16
	JAE  copy16
	CMPQ R15, $8
	JB   copyShort

copy8:
	MOVQ (R14), CX
	MOVQ CX, (DI)
	ADDQ $8, R14
	ADDQ $8, DI
	CMPQ DI, R13
	JB   copy8
	MOVQ R13, DI

refill:
	// The loop's check, then the refill and the speculative distance
	// lookup from bits that are all true (e's needed only its own).
	CMPQ R10, inEnd-8(SP)
	JA   margin
	CMPQ DI, R11
	JA   margin
	REFILL
	LOOKUP_D
	JMP  loop

copy16:
	MOVOU (R14), X0
	MOVOU X0, (DI)
	ADDQ  $16, R14
	ADDQ  $16, DI
	CMPQ  DI, R13
	JB    copy16
	MOVQ  R13, DI
	JMP   refill

copyShort:
	CMPQ R15, $1
	JNE  copyBytes
	// A run: the byte repeated, as 8-byte words.
	MOVBQZX (R14), CX
	MOVQ    $0x0101010101010101, R15
	IMULQ   R15, CX

copyRun:
	MOVQ CX, (DI)
	ADDQ $8, DI
	CMPQ DI, R13
	JB   copyRun
	MOVQ R13, DI
	JMP  refill

copyBytes:
	// Distance 2 to 7: byte by byte, each byte maybe one this copy wrote.
	MOVB (R14), CX
	MOVB CX, (DI)
	INCQ R14
	INCQ DI
	CMPQ DI, R13
	JB   copyBytes
	JMP  refill

exc:
	// Not a literal nor a length: a subtable pointer, end of block, or
	// an invalid symbol.
	TESTL $fSub, AX
	JZ    excRoot
	// Consume the root bits; the subtable entry counts from there. d
	// was looked up from before them: make it fail the speculation.
	SHRQ $litRoot, BX
	SHRQ $litRoot, R9
	SUBQ $litRoot, SI
	SUBTABLE(0, 0xfff)
	MOVL  $fBad, DX
	TESTL $fLit, AX
	JZ    excRoot
	LITERAL
	LOOKUP_E
	JMP   refill

excRoot:
	TESTL $fExc, AX
	JZ    length
	// End of block or invalid: consume its bits and leave.
	SUBQ  AX, SI
	MOVL  $fastBadLit, CX
	TESTL $fEOB, AX
	JZ    done
	MOVL  $fastEOB, CX
	JMP   done

distExc:
	TESTL $fSub, AX
	JZ    badDist
	SHRQ  $distRoot, BX
	SHRQ  $distRoot, R9
	SUBQ  $distRoot, SI
	SUBTABLE(distOff, 0x1ff)
	TESTL $fExc, AX
	JZ    distance

badDist:
	MOVL $fastBadDist, CX
	JMP  done

far:
	MOVQ R15, dist+96(FP)
	MOVL $fastFar, CX
	JMP  exitPos

margin:
	MOVL $fastMargin, CX

done:
	MOVQ $0, dist+96(FP)

exitPos:
	// posOut = ip*8 - nb&63 (ip counted from in's start); opOut = op.
	MOVQ CX, exit+104(FP)
	SUBQ in_base+24(FP), R10
	SHLQ $3, R10
	ANDL $63, SI
	SUBQ SI, R10
	MOVQ R10, posOut+80(FP)
	SUBQ dst_base+0(FP), DI
	MOVQ DI, opOut+88(FP)
	RET
