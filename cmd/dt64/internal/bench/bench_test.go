package bench

import "testing"

// The harness itself, on a small size: every standard case runs, without
// error, and yields a ratio. (Speed is measured by `dt64 bench`, never in
// tests.)
func TestMeasureSmoke(t *testing.T) {
	cases := Standard()
	rs, err := Measure(64<<10, 1, cases)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(cases) {
		t.Fatalf("%d results for %d cases", len(rs), len(cases))
	}
	for _, r := range rs {
		if !(r.Ratio > 0) || !(r.GBps > 0) || !(r.CopyGBps > 0) {
			t.Errorf("%s/%s: ratio %v, %v GB/s, copy %v GB/s", r.Name, r.Impl, r.Ratio, r.GBps, r.CopyGBps)
		}
	}
}
