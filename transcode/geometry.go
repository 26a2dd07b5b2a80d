package transcode

import (
	"fmt"
	"math"
)

// maxRegionElements bounds a work unit (16 GiB would be absurd; 128 Mi
// elements = 1 GiB per buffer is already a lot per worker).
const maxRegionElements = 1 << 27

// geometry is how the source and destination chunk grids meet. A work unit
// is a region of the array that both grids tile exactly: per dimension the
// least common multiple of the two chunk lengths. With the grids dt64
// produces one always nests in the other, so a region is simply the larger
// chunk: a destination shard made of source chunks, a source shard split
// into destination chunks, or one chunk when the grids are equal.
type geometry struct {
	shape              []int64
	srcChunk, dstChunk []int64
	srcGrid, dstGrid   []int64
	region             []int64 // region shape
	regionGrid         []int64 // regions per dimension
	units              int64
	regionLen          int // elements in a region
	srcLen, dstLen     int // elements in a source / destination chunk
	// srcSame: a region is exactly one source chunk (read straight into
	// the region buffer). srcContig: each source chunk is one contiguous
	// run of the region buffer. Same for the destination.
	srcSame, srcContig bool
	dstSame, dstContig bool
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func newGeometry(shape, srcChunk, srcGrid, dstChunk, dstGrid []int64) (*geometry, error) {
	nd := len(shape)
	g := &geometry{
		shape: shape, srcChunk: srcChunk, dstChunk: dstChunk, srcGrid: srcGrid, dstGrid: dstGrid,
		region: make([]int64, nd), regionGrid: make([]int64, nd),
	}
	n, units := int64(1), int64(1)
	for d := range nd {
		a, b := srcChunk[d], dstChunk[d]
		l := a / gcd(a, b)
		if l > math.MaxInt64/b {
			return nil, planErr("source chunks %v and destination chunks %v share no region of a sensible size", srcChunk, dstChunk)
		}
		l *= b
		g.region[d] = l
		if l > maxRegionElements || n > maxRegionElements/l {
			return nil, planErr("a work unit of %v elements (source chunks %v, destination chunks %v) exceeds %d elements", g.region, srcChunk, dstChunk, maxRegionElements)
		}
		n *= l
		g.regionGrid[d] = (shape[d] + l - 1) / l
		if g.regionGrid[d] != 0 && units > math.MaxInt64/g.regionGrid[d] {
			return nil, planErr("too many work units")
		}
		units *= g.regionGrid[d]
	}
	g.units, g.regionLen = units, int(n)
	g.srcLen, g.dstLen = int(prod(srcChunk)), int(prod(dstChunk))
	g.srcSame, g.srcContig = blockLayout(g.region, srcChunk)
	g.dstSame, g.dstContig = blockLayout(g.region, dstChunk)
	return g, nil
}

func prod(s []int64) int64 {
	n := int64(1)
	for _, v := range s {
		n *= v
	}
	return n
}

// blockLayout reports whether a block of shape chunk is the whole region,
// and whether every such block is one contiguous run of the C-order region
// buffer, which holds when it spans the region in every dimension but the
// first (always in 1-D). Other layouts are assembled row by row.
func blockLayout(region, chunk []int64) (same, contig bool) {
	same, contig = true, true
	for d := range region {
		if region[d] != chunk[d] {
			same = false
			if d > 0 {
				contig = false
			}
		}
	}
	return same, contig
}

// origin returns the array coordinates of the first element of unit u.
func (g *geometry) origin(u int64) []int64 {
	nd := len(g.shape)
	o := make([]int64, nd)
	for d := nd - 1; d >= 0; d-- {
		o[d] = (u % g.regionGrid[d]) * g.region[d]
		u /= g.regionGrid[d]
	}
	return o
}

// chunksIn calls fn for every chunk of a grid (chunk shape cs, grid size
// grid) inside the region at origin, in C order, with the chunk's
// coordinates (reused between calls) and its offset in elements in the
// region buffer, for contiguous layouts.
func (g *geometry) chunksIn(origin, cs, grid []int64, fn func(coords []int64) error) error {
	nd := len(origin)
	first := make([]int64, nd)
	end := make([]int64, nd)
	for d := range nd {
		first[d] = origin[d] / cs[d]
		end[d] = min(first[d]+g.region[d]/cs[d], grid[d])
		if first[d] >= end[d] {
			return nil
		}
	}
	c := append([]int64(nil), first...)
	for {
		if err := fn(c); err != nil {
			return err
		}
		d := nd - 1
		for ; d >= 0; d-- {
			c[d]++
			if c[d] < end[d] {
				break
			}
			c[d] = first[d]
		}
		if d < 0 {
			return nil
		}
	}
}

// blockOffset returns the offset (elements) of the chunk at coords within
// the region at origin, and its per-dimension offsets in off.
func (g *geometry) blockOffset(origin, cs, coords, off []int64) int {
	flat := int64(0)
	for d := range origin {
		off[d] = coords[d]*cs[d] - origin[d]
		flat = flat*g.region[d] + off[d]
	}
	return int(flat)
}

// forRows calls fn for every row (run along the last dimension) of a block
// of shape inner placed at offset off inside a C-order buffer of shape
// outer, with the row's start in the outer and inner buffers and its
// length, in elements.
func forRows(outer, inner, off []int64, fn func(o, i, n int)) {
	nd := len(outer)
	if nd == 0 {
		fn(0, 0, 1)
		return
	}
	rowLen := int(inner[nd-1])
	if rowLen == 0 {
		return
	}
	idx := make([]int64, nd-1)
	for d := range nd - 1 {
		if inner[d] == 0 {
			return
		}
	}
	ii := 0
	for {
		o := int64(0)
		for d := range nd - 1 {
			o = o*outer[d] + off[d] + idx[d]
		}
		o = o*outer[nd-1] + off[nd-1]
		fn(int(o), ii, rowLen)
		ii += rowLen
		d := nd - 2
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < inner[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}

// extent returns how many elements of the region at origin lie inside
// the array along each dimension, and whether that is all of them.
func (g *geometry) extent(origin []int64) (ext []int64, inside int64, whole bool) {
	ext = make([]int64, len(origin))
	inside, whole = 1, true
	for d := range origin {
		ext[d] = max(0, min(g.region[d], g.shape[d]-origin[d]))
		if ext[d] < g.region[d] {
			whole = false
		}
		inside *= ext[d]
	}
	return ext, inside, whole
}

// setOutside stores fill (8 bytes) in every element of the region buffer
// buf that lies outside the array, so that padding (which a writer may
// have left uninitialized) converts like the fill value and never
// overflows.
func (g *geometry) setOutside(buf []byte, ext []int64, fill []byte) {
	nd := len(ext)
	if nd == 0 {
		return
	}
	zero := make([]int64, nd)
	rowLen := g.region[nd-1]
	forRows(g.region, g.region, zero, func(o, _, n int) {
		// Recover the row's coordinates from its offset.
		row := int64(o) / rowLen
		out := false
		for d := nd - 2; d >= 0; d-- {
			if row%g.region[d] >= ext[d] {
				out = true
			}
			row /= g.region[d]
		}
		from := o + int(ext[nd-1])
		if out {
			from = o
		}
		for i := from; i < o+n; i++ {
			copy(buf[8*i:8*i+8], fill)
		}
	})
}

// locate maps element i of the region at origin to its array index, and
// to its chunk coordinates and index within a chunk of shape cs.
func (g *geometry) locate(origin []int64, i int, cs []int64) (arrayIndex, chunk []int64, inChunk int) {
	nd := len(origin)
	arrayIndex = make([]int64, nd)
	chunk = make([]int64, nd)
	r := int64(i)
	for d := nd - 1; d >= 0; d-- {
		arrayIndex[d] = origin[d] + r%g.region[d]
		r /= g.region[d]
	}
	flat := int64(0)
	for d := range nd {
		chunk[d] = arrayIndex[d] / cs[d]
		flat = flat*cs[d] + arrayIndex[d]%cs[d]
	}
	return arrayIndex, chunk, int(flat)
}

func (g *geometry) String() string {
	return fmt.Sprintf("%d work units of %v elements", g.units, g.region)
}
