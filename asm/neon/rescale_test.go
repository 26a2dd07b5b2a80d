package main

import (
	"regexp"
	"strings"
	"testing"
)

// TestRescaleRegisters: the rescale loops must leave alone the registers
// Go reserves or the linker may use (R16/R17 linker scratch, R18 platform,
// R26 closure context, R27 assembler temporary, R28 g, R29 frame pointer,
// R30 link register), and must return through RET only.
func TestRescaleRegisters(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	reserved := regexp.MustCompile(`\bR(1[678]|2[6-9]|30)\b`)
	seen := 0
	for _, f := range files {
		if f.name != "rescale_arm64.s" {
			continue
		}
		seen++
		for i, l := range strings.Split(string(f.data), "\n") {
			code, _, _ := strings.Cut(l, "//")
			if reserved.MatchString(code) {
				t.Errorf("%s:%d uses a reserved register: %q", f.name, i+1, l)
			}
		}
		// Each kernel (one TEXT symbol each) has its four loops and exit.
		for _, text := range strings.Split(string(f.data), "\nTEXT ")[1:] {
			for _, want := range []string{"loop00:", "loop01:", "loop10:", "loop11:", "done:"} {
				if !strings.Contains(text, "\n"+want+"\n") {
					t.Errorf("%s: %s has no %s", f.name, strings.Fields(text)[0], want)
				}
			}
		}
		if got := strings.Count(string(f.data), "\nTEXT "); got != len(rescaleKernels) {
			t.Errorf("%s has %d TEXT symbols, want %d", f.name, got, len(rescaleKernels))
		}
	}
	if seen != 1 {
		t.Errorf("%d rescale_arm64.s files generated, want 1", seen)
	}
}

// TestOneFilePairPerOp: every op's kernels are declared in <op>_arm64.go
// next to <op>_arm64.s, and nowhere else.
func TestOneFilePairPerOp(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, f := range files {
		got[f.name] = string(f.data)
	}
	for _, k := range kernelList {
		decl, s := got[k.file+"_arm64.go"], got[k.file+"_arm64.s"]
		if !strings.Contains(decl, "func "+k.name+"(") {
			t.Errorf("%s_arm64.go does not declare %s", k.file, k.name)
		}
		if !strings.Contains(s, "TEXT ·"+k.name+"(SB)") {
			t.Errorf("%s_arm64.s does not define %s", k.file, k.name)
		}
	}
	if len(files) != 2*len(fileDoc) {
		t.Errorf("%d files generated, want a pair for each of the %d ops", len(files), len(fileDoc))
	}
}
