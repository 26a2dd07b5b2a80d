package zarrow

import (
	"context"
	"errors"
	"slices"
	"sync"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/zarr"
)

// A CF time array whose v2 fill value is null has no fill value: the
// chunks it does not store have no values, and their elements are null
// in the column (never the reference instant that the zero bits the zarr
// package reads them as would decode to), counted with the NaT.

// unfilled reports whether a is a CF time array with no fill value.
func unfilled(a *zarr.Array) bool { return !a.IsTime() && a.Metadata().FillNull }

// nullRange makes elements [lo, lo+n) of a column null: NaT values and
// cleared validity bits (bitmap's bit 0 is element 0).
func nullRange(values, bitmap []byte, lo, n int) {
	for i := lo; i < lo+n; i++ {
		hostOrder.PutUint64(values[8*i:], 1<<63) // NaT
		bitmap[i/8] &^= 1 << (i % 8)
	}
}

// readUnfilledRegion is readConverted's box read for an array with no
// fill value: the box is read whole, noting the chunks that are not
// stored, and converted; their elements are then made null. Before
// converting, each of them is given the stored bytes of the box's first
// stored element, so that they convert as it does (a copy that cannot
// fail unless it does) and its statistics can be taken back out.
func readUnfilledRegion(ctx context.Context, a *zarr.Array, k converter, size int, start, shape []int64, raw, bitmap []byte, parallel int) (kernels.Stats, error) {
	stored := raw[:len(raw)/8*size]
	var (
		mu      sync.Mutex
		missing [][]int64
	)
	o := zarr.RegionOptions{Parallel: parallel, Missing: func(c []int64) {
		mu.Lock()
		missing = append(missing, slices.Clone(c))
		mu.Unlock()
	}}
	if _, err := a.ReadRegionRaw(ctx, start, shape, stored, o); err != nil {
		return kernels.Stats{}, err
	}
	var runs []elementRun // the box's elements in missing chunks
	for _, c := range missing {
		runs = boxRuns(runs, start, shape, a.ChunkShape(), c)
	}
	n := len(raw) / 8
	if len(runs) == 0 {
		return k.Run(raw, stored, bitmap)
	}
	slices.SortFunc(runs, func(x, y elementRun) int { return x.lo - y.lo })
	first := 0 // the first stored element
	for _, r := range runs {
		if r.lo <= first {
			first = max(first, r.lo+r.n)
		}
	}
	blank := kernels.Stats{Elements: 1, NaT: 1}
	if first >= n {
		for _, r := range runs {
			nullRange(raw, bitmap, r.lo, r.n)
		}
		return scaleStats(blank, n), nil
	}
	src := slices.Clone(stored[first*size : (first+1)*size])
	var m int
	for _, r := range runs {
		for i := r.lo; i < r.lo+r.n; i++ {
			copy(stored[i*size:], src)
		}
		m += r.n
	}
	st, err := k.Run(raw, stored, bitmap)
	var ee *dtype.ElementError
	if errors.As(err, &ee) && inRuns(runs, ee.Index) {
		// A copy failed as its original does, and before it.
		e := *ee
		e.Index = first
		return st, &e
	}
	if err != nil {
		return st, err
	}
	one, err := k.Run(make([]byte, 8), src, make([]byte, 1))
	if err != nil {
		return st, err
	}
	for _, r := range runs {
		nullRange(raw, bitmap, r.lo, r.n)
	}
	subtract := scaleStats(one, m)
	st.Elements -= subtract.Elements
	st.NaT -= subtract.NaT
	st.Valid -= subtract.Valid
	st.Lossy -= subtract.Lossy
	st.Overflowed -= subtract.Overflowed
	st.Add(scaleStats(blank, m))
	return st, nil
}

// scaleStats is the statistics of n elements that convert as the one of s.
func scaleStats(s kernels.Stats, n int) kernels.Stats {
	return kernels.Stats{Elements: n * s.Elements, NaT: n * s.NaT, Valid: n * s.Valid, Lossy: n * s.Lossy, Overflowed: n * s.Overflowed, Min: s.Min, Max: s.Max}
}

// elementRun is n consecutive elements of a box from element lo (C order).
type elementRun struct{ lo, n int }

func inRuns(runs []elementRun, i int) bool {
	for _, r := range runs {
		if i >= r.lo && i < r.lo+r.n {
			return true
		}
	}
	return false
}

// boxRuns appends to runs the elements of the box [start, start+shape)
// that lie in the chunk at coords (chunks of shape cs), one run per row
// of the last dimension (a 0-d box is one run of its one element).
func boxRuns(runs []elementRun, start, shape, cs, coords []int64) []elementRun {
	nd := len(shape)
	if nd == 0 { // a 0-d array: its one chunk holds its one element
		return append(runs, elementRun{0, 1})
	}
	lo, hi := make([]int64, nd), make([]int64, nd)
	for d := range nd {
		lo[d] = max(start[d], coords[d]*cs[d]) - start[d]
		hi[d] = min(start[d]+shape[d], (coords[d]+1)*cs[d]) - start[d]
		if lo[d] >= hi[d] {
			return runs
		}
	}
	idx := slices.Clone(lo)
	for {
		flat := int64(0)
		for d := range nd {
			flat = flat*shape[d] + idx[d]
		}
		runs = append(runs, elementRun{int(flat), int(hi[nd-1] - lo[nd-1])})
		d := nd - 2
		for ; d >= 0; d-- {
			if idx[d]++; idx[d] < hi[d] {
				break
			}
			idx[d] = lo[d]
		}
		if d < 0 {
			return runs
		}
	}
}
