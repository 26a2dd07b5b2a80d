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
		if !strings.HasPrefix(f.name, "rescale_") || !strings.HasSuffix(f.name, ".s") {
			continue
		}
		seen++
		for i, l := range strings.Split(string(f.data), "\n") {
			code, _, _ := strings.Cut(l, "//")
			if reserved.MatchString(code) {
				t.Errorf("%s:%d uses a reserved register: %q", f.name, i+1, l)
			}
		}
		for _, want := range []string{"loop00:", "loop01:", "loop10:", "loop11:", "done:"} {
			if !strings.Contains(string(f.data), "\n"+want+"\n") {
				t.Errorf("%s has no %s", f.name, want)
			}
		}
	}
	if seen != len(rescaleKernels) {
		t.Errorf("%d rescale .s files generated, want %d", seen, len(rescaleKernels))
	}
}

// TestExistingKernelsKeepTheirFiles: the rescale kernels went into their
// own declaration file, so neon_arm64.go declares the NEON primitives only.
func TestExistingKernelsKeepTheirFiles(t *testing.T) {
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		switch f.name {
		case "neon_arm64.go":
			if strings.Contains(string(f.data), "ARM64(") {
				t.Error("neon_arm64.go declares a rescale kernel")
			}
		case "rescale_asm_arm64.go":
			for _, k := range rescaleKernels {
				if !strings.Contains(string(f.data), "func "+k.name+"(") {
					t.Errorf("rescale_asm_arm64.go does not declare %s", k.name)
				}
			}
		}
	}
}
