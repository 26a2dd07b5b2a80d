package main

import (
	"bytes"
	"debug/elf"
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// encoderCases covers every encoder over several arrangements and the
// register numbers whose bits sit at the edges of each field (0, 1, 16, 31).
func encoderCases() []encoded {
	var cases []encoded
	regs := [][3]int{{0, 0, 0}, {1, 2, 3}, {31, 16, 8}, {8, 31, 16}, {16, 8, 31}, {30, 29, 28}}
	for _, r := range regs {
		for _, arr := range []arrangement{b8, b16, h4, h8, s2, s4, d2} {
			cases = append(cases, cmgt(arr, r[0], r[1], r[2]), cmhs(arr, r[0], r[1], r[2]), neg(arr, r[0], r[1]))
			for _, imm := range []int{1, 3, (8 << arr.size) / 2, 8 << arr.size} {
				cases = append(cases, sshr(arr, r[0], r[1], imm))
			}
		}
		for _, arr := range []arrangement{h8, s4, d2} {
			cases = append(cases, xtn(arr, r[0], r[1]))
		}
		cases = append(cases, addpScalar(r[0], r[1]))
		for _, op := range sortedKeys(fp2dOps) {
			cases = append(cases, fp2d(op, r[0], r[1], r[2]))
		}
		for _, op := range sortedKeys(fp2dUnary) {
			cases = append(cases, fp2dOne(op, r[0], r[1]))
		}
	}
	return cases
}

// sortedKeys keeps the cases in a fixed order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestEncodersAgainstGNUAs assembles each encoder's GNU spelling with
// aarch64-linux-gnu-as and requires the same instruction word.
func TestEncodersAgainstGNUAs(t *testing.T) {
	as, err := exec.LookPath("aarch64-linux-gnu-as")
	if err != nil {
		if testing.Short() {
			t.Skip("aarch64-linux-gnu-as not installed")
		}
		t.Fatal("aarch64-linux-gnu-as is needed to check the WORD encodings: apt-get install binutils-aarch64-linux-gnu (or run with -short to skip)")
	}
	cases := encoderCases()
	var src strings.Builder
	for _, c := range cases {
		src.WriteString(c.gnu + "\n")
	}
	dir := t.TempDir()
	in, obj := filepath.Join(dir, "enc.s"), filepath.Join(dir, "enc.o")
	if err := os.WriteFile(in, []byte(src.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(as, "-o", obj, in).CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", as, err, out)
	}
	f, err := elf.Open(obj)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	text, err := f.Section(".text").Data()
	if err != nil {
		t.Fatal(err)
	}
	if len(text) != 4*len(cases) {
		t.Fatalf(".text has %d bytes, want %d (one word per instruction)", len(text), 4*len(cases))
	}
	for i, c := range cases {
		want := binary.LittleEndian.Uint32(text[4*i:])
		if c.bits != want {
			t.Errorf("%s: encoder gives %#08x, as gives %#08x", c.gnu, c.bits, want)
		}
	}
}

// TestGenerateDeterministic: make check-generate diffs the committed files
// against a fresh run, so two runs must agree byte for byte.
func TestGenerateDeterministic(t *testing.T) {
	a, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	b, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("%d files, then %d", len(a), len(b))
	}
	for i := range a {
		if a[i].name != b[i].name || !bytes.Equal(a[i].data, b[i].data) {
			t.Errorf("%s differs between runs", a[i].name)
		}
	}
}

// TestWordsCarryTheirSpelling: every WORD line must say what it is.
func TestWordsCarryTheirSpelling(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		for _, l := range strings.Split(string(f.data), "\n") {
			if strings.Contains(l, "WORD $") && !strings.Contains(l, "// ") {
				t.Errorf("%s: WORD without its GNU spelling: %q", f.name, l)
			}
		}
	}
}
