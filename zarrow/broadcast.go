package zarrow

import (
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
