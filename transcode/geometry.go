package transcode

import (
	"fmt"
	"math"

	"github.com/zarr-dt64/dt64/zarr"
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
	region             []int64   // region shape
	regions            zarr.Grid // the array cut into regions: the work units
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
		region: make([]int64, nd),
	}
	n := int64(1)
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
	}
	var err error
	if g.regions, err = zarr.NewGrid(shape, g.region); err != nil {
		return nil, planErr("work units of %v elements: %v", g.region, err)
	}
	g.units, g.regionLen = g.regions.NumChunks(), int(n)
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
func (g *geometry) origin(u int64) []int64 { return g.regions.Origin(g.regions.CoordsAt(u)) }

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

// regionAt returns the coordinates, in the grid of regions, of the region
// at origin.
func (g *geometry) regionAt(origin []int64) []int64 {
	c := make([]int64, len(origin))
	for d, o := range origin {
		c[d] = o / g.region[d]
	}
	return c
}

// extent returns how many elements of the region at origin lie inside
// the array along each dimension, and whether that is all of them.
func (g *geometry) extent(origin []int64) (ext []int64, inside int64, whole bool) {
	ext, inside = g.regions.Extent(g.regionAt(origin))
	return ext, inside, inside == int64(g.regionLen)
}

// pad stores fill in every element of the region buffer buf that lies
// outside the array, so that padding (which a writer may have left
// uninitialized) converts like the fill value and never overflows.
func (g *geometry) pad(buf []byte, origin []int64, fill [8]byte) {
	g.regions.Pad(buf, g.regionAt(origin), fill[:])
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
