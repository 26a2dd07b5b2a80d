package zarrow

import (
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// broadcast builds a coordinate's column of a long table's batch: the
// coordinate's values [from, from+n), each repeated inner times (the
// dimensions after it), the whole run repeated outer times (those
// before it), as the rows of a box in C order take them. Repeats are
// copied by doubling, so a batch costs a few large copies, not a loop
// over its rows. Nulls (NaT) are repeated with their values.
func broadcast(mem memory.Allocator, col arrow.Array, from, n, outer, inner int64) arrow.Array {
	rows := outer * n * inner
	data := col.Data()
	fw := col.DataType().(arrow.FixedWidthDataType)
	var values *memory.Buffer
	if fw.BitWidth() == 1 {
		values = broadcastBits(mem, data.Buffers()[1].Bytes(), int64(data.Offset())+from, n, outer, inner)
	} else {
		w := int64(fw.BitWidth() / 8)
		src := data.Buffers()[1].Bytes()[(int64(data.Offset())+from)*w:]
		values = memory.NewResizableBuffer(mem)
		values.Resize(int(rows * w))
		dst := values.Bytes()
		run := n * inner * w
		for i := range n {
			repeat(dst[i*inner*w:(i+1)*inner*w], src[i*w:(i+1)*w])
		}
		repeat(dst, dst[:run])
	}
	var valid *memory.Buffer
	nulls := 0
	if col.NullN() > 0 {
		valid = broadcastBits(mem, data.Buffers()[0].Bytes(), int64(data.Offset())+from, n, outer, inner)
		nulls = int(rows) - bitutil.CountSetBits(valid.Bytes(), 0, int(rows))
	}
	out := array.NewData(col.DataType(), int(rows), []*memory.Buffer{valid, values}, nil, nulls, 0)
	defer out.Release()
	if valid != nil {
		valid.Release()
	}
	values.Release()
	return array.MakeFromData(out)
}

// repeat fills dst with copies of the start of dst, which holds pattern
// (len(dst) a multiple of len(pattern)): one copy, then doubling.
func repeat(dst, pattern []byte) {
	if len(dst) == 0 {
		return
	}
	k := copy(dst, pattern)
	for k < len(dst) {
		k += copy(dst[k:], dst[:k])
	}
}

// broadcastBits is broadcast for a bitmap (a boolean column's values, or
// a validity bitmap). Bits do not double by byte copies, so this goes
// bit by bit; coordinates with nulls or of booleans are rare.
func broadcastBits(mem memory.Allocator, src []byte, from, n, outer, inner int64) *memory.Buffer {
	rows := outer * n * inner
	buf := memory.NewResizableBuffer(mem)
	buf.Resize(int(bitutil.BytesForBits(rows)))
	dst := buf.Bytes()
	clear(dst)
	row := int64(0)
	for range outer {
		for i := range n {
			bit := bitutil.BitIsSet(src, int(from+i))
			for range inner {
				bitutil.SetBitTo(dst, int(row), bit)
				row++
			}
		}
	}
	return buf
}

// broadcasts keeps the last two broadcast columns of each coordinate of
// a long table's reader: consecutive batches that are whole steps of the
// outer dimensions have the same box for every coordinate but the
// outermost (a batch of 2 time steps of a 361 × 720 grid: lat and lon
// the same 519840 rows each time), so they share one column instead of
// building and allocating it again (about a tenth of the export's CPU
// time on tools/bench/grid.py's grid). Two, so that the last, shorter
// batch, read ahead while the others are still being read, does not
// take the regular batches' column away. Arrow arrays are immutable: a
// shared column is retained by every batch that holds it.
type broadcasts struct {
	mu   sync.Mutex
	last [][2]broadcastCol // by coordinate, the most recent first
}

type broadcastCol struct {
	box coordBox
	col arrow.Array
}

// coordBox is the part of a coordinate a batch takes: broadcast's arguments.
type coordBox struct{ from, n, outer, inner int64 }

// get returns coordinate k's column for the box (from, n, outer, inner),
// retained for the caller: one kept if it is the same box, else a new
// one, which is kept instead of the older of the two.
func (b *broadcasts) get(mem memory.Allocator, k int, col arrow.Array, from, n, outer, inner int64) arrow.Array {
	b.mu.Lock()
	defer b.mu.Unlock()
	if k >= len(b.last) {
		b.last = append(b.last, make([][2]broadcastCol, k+1-len(b.last))...)
	}
	cs := &b.last[k]
	want := coordBox{from, n, outer, inner}
	for i, c := range cs {
		if c.col != nil && c.box == want {
			cs[0], cs[i] = cs[i], cs[0]
			c.col.Retain()
			return c.col
		}
	}
	if cs[1].col != nil {
		cs[1].col.Release()
	}
	cs[0], cs[1] = broadcastCol{want, broadcast(mem, col, from, n, outer, inner)}, cs[0]
	cs[0].col.Retain()
	return cs[0].col
}

// release drops the columns kept, when the reader is released.
func (b *broadcasts) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, cs := range b.last {
		for _, c := range cs {
			if c.col != nil {
				c.col.Release()
			}
		}
	}
	b.last = nil
}
