package bench

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// TestRatios prints the ratio table. It is a measurement, not a check, so
// it only runs when asked: DT64_BENCH=1 (DT64_BENCH_ROUNDS, default 7).
//
//	DT64_BENCH=1 go test -run TestRatios -v ./bench/
func TestRatios(t *testing.T) {
	if os.Getenv("DT64_BENCH") == "" {
		t.Skip("set DT64_BENCH=1 to measure")
	}
	rounds := 7
	if r, err := strconv.Atoi(os.Getenv("DT64_BENCH_ROUNDS")); err == nil && r > 0 {
		rounds = r
	}
	sizes := []int{64 << 10, 8 << 20, 256 << 20}
	if s := os.Getenv("DT64_BENCH_SIZES"); s == "large" {
		sizes = []int{8 << 20, 256 << 20}
	}
	for _, size := range sizes {
		for _, r := range Measure(size, rounds, Standard()) {
			fmt.Printf("%-40s %-8s %6dKiB  ratio %5.2f  %6.2f GB/s (copy %6.2f GB/s)\n",
				r.Name, r.Impl, r.Size>>10, r.Ratio, r.GBps, r.CopyGBps)
		}
	}
}

func TestMeasureSmoke(t *testing.T) {
	rs := Measure(64<<10, 1, Standard())
	if len(rs) != len(Standard()) {
		t.Fatal("missing results")
	}
	for _, r := range rs {
		if !(r.Ratio > 0) {
			t.Fatalf("%s/%s: ratio %v", r.Name, r.Impl, r.Ratio)
		}
	}
}
