package zarr

import (
	"fmt"
	"math"
)

// Grid is a regular chunk grid: an array of a shape cut into chunks of one
// shape, everything in C order (the last dimension varies fastest). The
// chunks at the far edge of a dimension extend past the array; the part
// outside is padding, stored as the fill value. Every function in dt64
// that needs edge extents, rows of a chunk or chunk indexes asks a Grid:
// the engine for its work units, inspect for the values inside the array.
//
// A Grid is a value (made by NewGrid) and its methods do not change it.
type Grid struct {
	shape, chunk, counts []int64
	numChunks            int64
	chunkLen             int64
	numElements          int64
}

// NewGrid returns the grid of chunks of shape chunk over an array of shape
// shape. Dimensions of the array may be 0, those of the chunk must be
// positive, and neither the array nor one chunk may hold 2^63 elements or
// more.
func NewGrid(shape, chunk []int64) (Grid, error) {
	if len(chunk) != len(shape) {
		return Grid{}, fmt.Errorf("chunk shape %v has %d dimensions, shape %v has %d", chunk, len(chunk), shape, len(shape))
	}
	n, err := numElements(shape, math.MaxInt64)
	if err != nil {
		return Grid{}, err
	}
	g := Grid{
		numElements: n,
		shape:       append([]int64{}, shape...),
		chunk:       append([]int64{}, chunk...),
		counts:      make([]int64, len(shape)),
	}
	for d, c := range chunk {
		if c <= 0 {
			return Grid{}, fmt.Errorf("chunk dimension %d is %d; chunk dimensions must be positive", d, c)
		}
		g.counts[d] = shape[d]/c + min(1, shape[d]%c)
	}
	if g.chunkLen, err = numElements(chunk, math.MaxInt64); err != nil {
		return Grid{}, fmt.Errorf("chunk %w", err)
	}
	if g.numChunks, err = numElements(g.counts, math.MaxInt64); err != nil {
		return Grid{}, fmt.Errorf("the chunk grid: %w", err)
	}
	return g, nil
}

// Shape is the array's shape.
func (g Grid) Shape() []int64 { return append([]int64(nil), g.shape...) }

// ChunkShape is the shape of every chunk, edge chunks included.
func (g Grid) ChunkShape() []int64 { return append([]int64(nil), g.chunk...) }

// Counts is the number of chunks along each dimension.
func (g Grid) Counts() []int64 { return append([]int64(nil), g.counts...) }

// NumElements is the number of elements in the array, padding excluded.
func (g Grid) NumElements() int64 { return g.numElements }

// NumChunks is the number of chunks in the grid.
func (g Grid) NumChunks() int64 { return g.numChunks }

// ChunkLen is the number of elements in a chunk, padding included.
func (g Grid) ChunkLen() int64 { return g.chunkLen }

// CoordsAt returns the coordinates of the i-th chunk in C order,
// 0 <= i < NumChunks(); it panics, naming i and the grid, for any other
// i (whose coordinates would wrap to another chunk's).
func (g Grid) CoordsAt(i int64) []int64 {
	if i < 0 || i >= g.numChunks {
		panic(fmt.Sprintf("zarr: chunk index %d outside the chunk grid %v (0 <= i < %d)", i, g.counts, g.numChunks))
	}
	c := make([]int64, len(g.counts))
	for d := len(c) - 1; d >= 0; d-- {
		c[d] = i % g.counts[d]
		i /= g.counts[d]
	}
	return c
}

// Index returns the C-order index of the chunk at coords, and whether
// coords are inside the grid at all.
func (g Grid) Index(coords []int64) (int64, bool) {
	if len(coords) != len(g.counts) {
		return 0, false
	}
	var i int64
	for d, c := range coords {
		if c < 0 || c >= g.counts[d] {
			return 0, false
		}
		i = i*g.counts[d] + c
	}
	return i, true
}

// Check returns an error naming coords and the grid when they are not the
// coordinates of one of its chunks.
func (g Grid) Check(coords []int64) error {
	if len(coords) != len(g.counts) {
		return fmt.Errorf("chunk coordinates %v have %d dimensions, the array has %d", coords, len(coords), len(g.counts))
	}
	if _, ok := g.Index(coords); !ok {
		return fmt.Errorf("chunk coordinates %v outside the chunk grid %v", coords, g.counts)
	}
	return nil
}

// Origin returns the array coordinates of the first element of the chunk
// at coords, which must have the grid's dimensions (Check); it panics,
// naming both, when they do not.
func (g Grid) Origin(coords []int64) []int64 {
	if len(coords) != len(g.chunk) {
		panic(fmt.Sprintf("zarr: chunk coordinates %v have %d dimensions, the grid %d", coords, len(coords), len(g.chunk)))
	}
	o := make([]int64, len(coords))
	for d, c := range coords {
		o[d] = c * g.chunk[d]
	}
	return o
}

// Extent returns how many elements of the chunk at coords lie inside the
// array along each dimension (the chunk's shape but at the far edges),
// and their product: the chunk's elements that are not padding.
func (g Grid) Extent(coords []int64) (ext []int64, inside int64) {
	ext = make([]int64, len(g.chunk))
	inside = 1
	for d, c := range g.chunk {
		ext[d] = max(0, min(c, g.shape[d]-coords[d]*c))
		inside *= ext[d]
	}
	return ext, inside
}

// ForEachInside calls fn for each run of consecutive elements of the chunk
// at coords (C order, n elements from element off of the chunk) that lie
// inside the array, in increasing order, and stops at fn's first error.
// Trailing dimensions the chunk covers in full merge into one run, so a
// chunk without padding is a single call, and one wholly outside none.
func (g Grid) ForEachInside(coords []int64, fn func(off, n int) error) error {
	nd := len(g.chunk)
	if nd == 0 {
		return fn(0, 1)
	}
	ext, inside := g.Extent(coords)
	if inside == 0 {
		return nil
	}
	// j: the outermost dimension from which all inner ones are full.
	j := nd - 1
	run := ext[nd-1]
	inner := int64(1) // elements per step of dimension j
	for j > 0 && ext[j] == g.chunk[j] {
		inner *= g.chunk[j]
		j--
		run = ext[j] * inner
	}
	if j == 0 {
		return fn(0, int(run))
	}
	stride := make([]int64, nd) // in elements, over the full chunk shape
	stride[nd-1] = 1
	for d := nd - 2; d >= 0; d-- {
		stride[d] = stride[d+1] * g.chunk[d+1]
	}
	idx := make([]int64, j) // odometer over dimensions 0..j-1
	for {
		var off int64
		for d, x := range idx {
			off += x * stride[d]
		}
		if err := fn(int(off), int(run)); err != nil {
			return err
		}
		d := j - 1
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < ext[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return nil
		}
	}
}

// Pad sets every element of raw, the chunk at coords (ChunkLen elements of
// len(fill) bytes), that lies outside the array to fill, and reports whether
// there was any: as the Zarr specification stores edge chunks, and so that
// padding a writer left uninitialized converts like the fill value.
func (g Grid) Pad(raw []byte, coords []int64, fill []byte) bool {
	if _, inside := g.Extent(coords); inside == g.ChunkLen() {
		return false
	}
	z := len(fill)
	next := 0 // elements [next, off) of a gap are padding
	_ = g.ForEachInside(coords, func(off, n int) error {
		setFill(raw[z*next:z*off], fill)
		next = off + n
		return nil
	})
	setFill(raw[z*next:], fill)
	return true
}

// ForEachRow calls fn for each C-order row (a run along the last
// dimension) of a block of shape block placed at element coordinates at
// inside a C-order buffer of shape outer, with the row's first element in
// the outer buffer and in the block and its length, all in elements. It is
// how a chunk is copied into or out of a larger buffer (a shard, or a
// transcode's work unit). A 0-d block is one row of one element.
func ForEachRow(outer, block, at []int64, fn func(outerOff, blockOff, n int)) {
	nd := len(outer)
	if nd == 0 {
		fn(0, 0, 1)
		return
	}
	for _, b := range block {
		if b == 0 {
			return
		}
	}
	stride := make([]int64, nd)
	s := int64(1)
	for d := nd - 1; d >= 0; d-- {
		stride[d] = s
		s *= outer[d]
	}
	idx := make([]int64, nd)
	row := int(block[nd-1])
	blockOff := 0
	for {
		off := int64(0)
		for d := range nd {
			off += (at[d] + idx[d]) * stride[d]
		}
		fn(int(off), blockOff, row)
		blockOff += row
		d := nd - 2
		for ; d >= 0; d-- {
			idx[d]++
			if idx[d] < block[d] {
				break
			}
			idx[d] = 0
		}
		if d < 0 {
			return
		}
	}
}
