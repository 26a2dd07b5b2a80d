package inflate

import (
	"bufio"
	"bytes"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/zarr-dt64/dt64/internal/impl"
)

// eachImpl calls f with each implementation of the fast loop selected in
// turn: "generic" (huffFast, the Go loop) and, where the CPU and build
// have it, "bmi2" (huffFastBMI2, assembly). The start-up choice is
// restored after.
func eachImpl(t testing.TB, f func(name string)) {
	t.Helper()
	defer impl.Reset("inflate")
	for _, name := range impl.Names("inflate") {
		if !impl.Select("inflate", name) {
			t.Fatalf("impl.Select(inflate, %s) failed", name)
		}
		f(name)
	}
}

// runImpls runs f as a subtest per implementation (see eachImpl).
func runImpls(t *testing.T, f func(t *testing.T)) {
	eachImpl(t, func(name string) { t.Run(name, f) })
}

// TestImplsAvailable fails when the CPU has BMI2 but the assembly loop is
// not registered: the tests would then compare the Go loop with itself.
func TestImplsAvailable(t *testing.T) {
	names := impl.Names("inflate")
	if availableBMI2 && (len(names) != 2 || names[1] != "bmi2") {
		t.Fatalf("BMI2 available but the implementations are %v", names)
	}
	t.Logf("implementations: %v", names)
}

// fastResult is what a fast loop returns, and the output it wrote up to
// its output position.
type fastResult struct {
	pos, op, dist, exit int
	out                 []byte
}

// runFast runs loop on a fresh copy of init in dst.
func runFast(loop func(dst, in []byte, t *tables, lk uint, pos, op int) (int, int, int, int), dst, init, in []byte, tab *tables, lk uint, pos, op int) fastResult {
	copy(dst, init)
	var r fastResult
	r.pos, r.op, r.dist, r.exit = loop(dst, in, tab, lk, pos, op)
	r.out = bytes.Clone(dst[:r.op])
	return r
}

// randomLengths returns the code lengths of a random complete code (at
// most maxLen bits) over some of n symbols: a binary tree grown by
// splitting random leaves, its leaves given to random symbols.
func randomLengths(r *rand.Rand, n, maxLen int) []uint8 {
	return growLengths(r, n, maxLen, false)
}

// growLengths is randomLengths, with deep: the newest leaf split half the
// time, which gives long codewords (subtables).
func growLengths(r *rand.Rand, n, maxLen int, deep bool) []uint8 {
	leaves := []uint8{1, 1}
	want := 2 + r.IntN(n-1)
	for tries := 0; len(leaves) < want && tries < 20*n; tries++ {
		i := r.IntN(len(leaves))
		if deep && r.IntN(2) == 0 {
			i = len(leaves) - 1
		}
		if int(leaves[i]) < maxLen {
			leaves[i]++
			leaves = append(leaves, leaves[i])
		}
	}
	lens := make([]uint8, n)
	for i, s := range r.Perm(n)[:len(leaves)] {
		lens[s] = leaves[i]
	}
	return lens
}

// fastTable is a table set for TestFastLoops: the fixed code, or random
// complete codes (subtables included), or a random literal/length code
// with an empty distance code (every distance invalid).
func fastTable(r *rand.Rand) (*tables, uint) {
	if r.IntN(4) == 0 {
		return fixedTable, fixedLengthBits
	}
	var s buildScratch
	tab := new(tables)
	lit := randomLengths(r, maxLit, 15)
	dist := randomLengths(r, maxDist, 15)
	if r.IntN(8) == 0 {
		dist = make([]uint8, maxDist)
	}
	if !build(tab[:litEnough], lit, litRoot, kindLit, &s) || !build(tab[litSize:litSize+distEnough], dist, distRoot, kindDist, &s) {
		panic("random complete code rejected")
	}
	return tab, lengthBits(lit)
}

// streamStart reads the first block header of the raw stream src: its
// tables and the bit position of its first symbol.
func streamStart(src []byte) (*tables, uint, int, bool) {
	br := bitReader{in: src}
	br.refill()
	br.bits(1)
	switch br.bits(2) {
	case 1:
		return fixedTable, fixedLengthBits, br.consumed(), true
	case 2:
		d := new(decoder)
		if d.readDynamic(&br) == nil {
			return &d.tab, d.lk, br.consumed(), true
		}
	}
	return nil, 0, 0, false
}

// runs258 is a fixed block of a literal and then 258-byte matches at
// distance dsym's base, forever (no end of block): a loop starting near
// the output's end meets a long match at its margin.
func runs258(dsym uint32) []byte {
	var w bitWriter
	w.bits(1, 1)
	w.bits(1, 2)
	w.code(0x30+'x', 8)
	for range 200 {
		w.code(0xc5, 8) // length symbol 285: 258
		w.code(dsym, 5)
		w.bits(0, uint(distExtra[dsym]))
	}
	w.align()
	return w.b
}

// TestFastLoops runs huffFast and huffFastBMI2 on the same hostile inputs
// near the fast loop's margins and requires the same result: the exit,
// the input and output positions, the distance of a fastFar exit, and
// the bytes written up to the output position. in ends at an
// inaccessible page and dst starts or ends at one (Linux), so a read or
// write outside them kills the test. Inputs: random bits under the fixed
// code and random codes (subtables, invalid symbols, empty distance
// codes), real streams cut short, and runs of 258-byte matches; output
// positions from 0 (distances before the start) to the last the loop
// accepts (long matches at the margin).
func TestFastLoops(t *testing.T) {
	if !availableBMI2 {
		t.Skip("no assembly fast loop on this CPU or build")
	}
	r := rand.New(rand.NewPCG(28, 4))
	inPage := guarded(t, 1)
	dstPages := guarded(t, 2)
	init := make([]byte, len(dstPages))
	for i := range init {
		init[i] = byte(r.Uint32())
	}
	var streams [][]byte
	for _, p := range [][]byte{textLike(20000, 1), e2eNS(2000, 1), runs(20000, 2), randomBytes(3000, 3)} {
		for _, l := range []int{1, 5, 9, -2} {
			streams = append(streams, kDeflate(p, l))
		}
	}
	for _, d := range []uint32{0, 4, 10, 16, 29} { // distances 1, 5, 33, 257, 24577
		streams = append(streams, runs258(d))
	}
	spec, _ := specStream(1)
	deep, _ := deepStream(1)
	streams = append(streams, spec[:100000], deep[:100000])

	cases := 200000
	if testing.Short() {
		cases = 20000
	}
	var exits [5]int
	for c := range cases {
		var in []byte
		var tab *tables
		var lk uint
		var pos int
		if c%2 == 0 {
			// Random bits: every symbol, valid or not.
			n := fastIn + 14 + r.IntN(400)
			in = inPage[len(inPage)-n:]
			for i := range in {
				in[i] = byte(r.Uint32())
			}
			tab, lk = fastTable(r)
			pos = r.IntN(8 * (n - fastIn - 13))
		} else {
			// A real stream from its first symbol, cut anywhere.
			src := streams[r.IntN(len(streams))]
			var ok bool
			tab, lk, pos, ok = streamStart(src)
			if !ok || pos/8 > len(src)-fastIn-14 || pos/8 > len(inPage)-fastIn-14 {
				continue
			}
			n := pos/8 + fastIn + 14 + r.IntN(min(len(src), len(inPage))-pos/8-fastIn-13)
			in = inPage[len(inPage)-n:]
			copy(in, src)
		}
		size := fastOut + r.IntN(len(dstPages)-fastOut+1)
		dst := dstPages[:size]
		if r.IntN(2) == 0 {
			dst = dstPages[len(dstPages)-size:]
		}
		var op int
		switch r.IntN(3) {
		case 0:
			op = r.IntN(min(64, size-fastOut+1))
		case 1:
			op = max(0, size-fastOut-r.IntN(300))
		default:
			op = r.IntN(size - fastOut + 1)
		}
		g := runFast(huffFast, dst, init, in, tab, lk, pos, op)
		a := runFast(huffFastBMI2, dst, init, in, tab, lk, pos, op)
		if g.pos != a.pos || g.op != a.op || g.dist != a.dist || g.exit != a.exit || !bytes.Equal(g.out, a.out) {
			t.Fatalf("case %d (in %d bytes from bit %d, dst %d bytes from %d): Go loop pos %d op %d dist %d exit %d, assembly pos %d op %d dist %d exit %d, output equal %v",
				c, len(in), pos, size, op, g.pos, g.op, g.dist, g.exit, a.pos, a.op, a.dist, a.exit, bytes.Equal(g.out, a.out))
		}
		if g.pos > 8*len(in) || g.op > size {
			t.Fatalf("case %d: stopped at bit %d of %d, output %d of %d", c, g.pos, 8*len(in), g.op, size)
		}
		exits[g.exit]++
	}
	t.Logf("exits (margin, EOB, bad literal/length, bad distance, far): %v", exits)
	for i, n := range exits {
		if n == 0 {
			t.Errorf("no case left the loop by exit %d: the inputs do not cover it", i)
		}
	}
}

// TestAsmConstants compares the constants that block_amd64.s defines for
// itself with the Go ones.
func TestAsmConstants(t *testing.T) {
	want := map[string]int{
		"fExtra": fExtra, "fLit": fLit, "fSub": fSub, "fEOB": fEOB, "fBad": fBad, "fExc": fExc,
		"litMask": litMask, "distMask": distMask, "litRoot": litRoot, "distRoot": distRoot, "distOff": 4 * litSize,
		"fastIn": fastIn, "fastOut": fastOut,
		"fastMargin": fastMargin, "fastEOB": fastEOB, "fastBadLit": fastBadLit, "fastBadDist": fastBadDist, "fastFar": fastFar,
	}
	f, err := os.Open("block_amd64.s")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.Fields(sc.Text())
		if len(w) != 3 || w[0] != "#define" {
			continue
		}
		v, err := strconv.ParseInt(w[2], 0, 64)
		if err != nil {
			continue
		}
		if g, ok := want[w[1]]; !ok || int(v) != g {
			t.Errorf("block_amd64.s: %s = %s, Go has %d (known: %v)", w[1], w[2], g, ok)
		}
		seen++
	}
	if seen != len(want) {
		t.Errorf("block_amd64.s defines %d constants, want %d", seen, len(want))
	}
}
