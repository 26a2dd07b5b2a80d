package zarr

import (
	"slices"
	"testing"
)

// insideByElement is the oracle: for each element of the chunk at coords
// (C order), whether its array coordinates are inside shape.
func insideByElement(shape, chunk, coords []int64) []bool {
	n := int64(1)
	for _, c := range chunk {
		n *= c
	}
	out := make([]bool, n)
	for i := range out {
		r, in := int64(i), true
		for d := len(chunk) - 1; d >= 0; d-- {
			if coords[d]*chunk[d]+r%chunk[d] >= shape[d] {
				in = false
			}
			r /= chunk[d]
		}
		out[i] = in
	}
	return out
}

func TestGridEdges(t *testing.T) {
	cases := []struct{ shape, chunk []int64 }{
		{[]int64{}, []int64{}},
		{[]int64{10}, []int64{4}},
		{[]int64{0}, []int64{4}},
		{[]int64{5, 7}, []int64{2, 3}},
		{[]int64{4, 7}, []int64{2, 7}},
		{[]int64{3, 4, 5}, []int64{2, 4, 2}},
		{[]int64{3, 8, 6}, []int64{2, 3, 6}},
	}
	fill := [8]byte{1, 2, 3, 4, 5, 6, 7, 8}
	for _, c := range cases {
		g, err := NewGrid(c.shape, c.chunk)
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		for i := range g.NumChunks() {
			coords := g.CoordsAt(i)
			if j, ok := g.Index(coords); !ok || j != i {
				t.Errorf("%v/%v: Index(CoordsAt(%d)) = %d, %v", c.shape, c.chunk, i, j, ok)
			}
			want := insideByElement(c.shape, c.chunk, coords)
			got := make([]bool, len(want))
			last := -1
			_ = g.ForEachInside(coords, func(off, n int) error {
				if off <= last || n <= 0 {
					t.Errorf("%v/%v chunk %v: run (%d, %d) after %d", c.shape, c.chunk, coords, off, n, last)
				}
				for k := off; k < off+n; k++ {
					got[k] = true
				}
				last = off + n - 1
				return nil
			})
			if !slices.Equal(got, want) {
				t.Errorf("%v/%v chunk %v: runs cover %v, want %v", c.shape, c.chunk, coords, got, want)
			}
			_, inside := g.Extent(coords)
			n := int64(0)
			for _, in := range want {
				if in {
					n++
				}
			}
			if inside != n {
				t.Errorf("%v/%v chunk %v: Extent inside %d, want %d", c.shape, c.chunk, coords, inside, n)
			}
			total += inside
			raw := make([]byte, 8*len(want))
			padded := g.Pad(raw, coords, fill[:])
			if padded != (n != int64(len(want))) {
				t.Errorf("%v/%v chunk %v: Pad reported %v", c.shape, c.chunk, coords, padded)
			}
			for k, in := range want {
				if isFill := [8]byte(raw[8*k:]) == fill; isFill == in {
					t.Errorf("%v/%v chunk %v: element %d inside %v, padded %v", c.shape, c.chunk, coords, k, in, isFill)
				}
			}
		}
		if total != g.NumElements() {
			t.Errorf("%v/%v: chunks hold %d elements inside, NumElements %d", c.shape, c.chunk, total, g.NumElements())
		}
	}
	if _, ok := (Grid{}).Index([]int64{0}); ok {
		t.Error("coordinates of the wrong rank accepted")
	}
	for _, bad := range [][2][]int64{{{4}, {0}}, {{4}, {4, 1}}, {{-1}, {2}}} {
		if _, err := NewGrid(bad[0], bad[1]); err == nil {
			t.Errorf("NewGrid(%v, %v) accepted", bad[0], bad[1])
		}
	}
}

func TestForEachRow(t *testing.T) {
	outer, block, at := []int64{4, 5, 6}, []int64{2, 2, 3}, []int64{1, 3, 2}
	var got [][3]int
	ForEachRow(outer, block, at, func(o, b, n int) { got = append(got, [3]int{o, b, n}) })
	var want [][3]int
	for i := range int64(2) {
		for j := range int64(2) {
			o := ((at[0]+i)*5+at[1]+j)*6 + at[2]
			want = append(want, [3]int{int(o), int((i*2 + j) * 3), 3})
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("rows %v, want %v", got, want)
	}
	got = nil
	ForEachRow(nil, nil, nil, func(o, b, n int) { got = append(got, [3]int{o, b, n}) })
	if !slices.Equal(got, [][3]int{{0, 0, 1}}) {
		t.Errorf("0-d rows %v", got)
	}
}
