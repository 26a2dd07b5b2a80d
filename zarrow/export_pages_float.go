package zarrow

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
)

// Float columns of the page encoder. A column chunk whose distinct values
// fit in a dictionary page of the writer's dictionary page size limit
// (arrow-go's default, 1 MiB) is written as that dictionary page (PLAIN
// values) and data pages of indices (RLE_DICTIONARY: the RLE/bit-packed
// hybrid); any other chunk as PLAIN pages. A long table's coordinate
// columns repeat a few values and most gridded variables have a few
// thousand distinct ones, so nearly every chunk takes the dictionary, as
// it does in arrow-go's writer, whose dictionary hashing and page buffers
// were most of the long export's time (docs/parquet-writer.md). Values
// are keyed by their bits, so -0.0, +0.0 and each NaN payload keep their
// own entries and read back bit for bit.

// floatBits are the bits of a float32 or a float64.
type floatBits interface{ uint32 | uint64 }

// floatOf is the value of the bits u, as a float64 (exact for float32).
func floatOf[U floatBits](u U) float64 {
	if unsafe.Sizeof(u) == 4 {
		return float64(math.Float32frombits(uint32(u)))
	}
	return math.Float64frombits(uint64(u))
}

// floatDict is a column chunk's dictionary: the distinct values' bits in
// the order first seen, found through an open-addressing hash table.
type floatDict struct {
	vals  []uint64
	slots []uint32 // 1 + an index into vals, 0 for an empty slot; a power of two long
	shift uint     // 64 − log2(len(slots))
	idx   []uint32 // the chunk's non-null values as indices into vals
	pages []pageMinMax
	buf   []byte // a page's non-null values, when it has nulls
}

// pageMinMax is a data page of a dictionary chunk: its nulls and the
// minimum and maximum of its values, NaN left out.
type pageMinMax struct {
	nulls  int
	lo, hi float64
}

// reset empties the dictionary for a chunk.
func (d *floatDict) reset() {
	if len(d.slots) == 0 {
		d.slots, d.shift = make([]uint32, 1<<10), 64-10
	}
	clear(d.slots)
	d.vals, d.idx, d.pages = d.vals[:0], d.idx[:0], d.pages[:0]
}

// index returns the index of the value of bits b, adding it as the next
// one if new; false if that would make more than limit values.
func (d *floatDict) index(b uint64, limit int) (uint32, bool) {
	mask := uint64(len(d.slots) - 1)
	h := (b * 0x9E3779B97F4A7C15) >> d.shift
	for {
		s := d.slots[h]
		if s == 0 {
			break
		}
		if d.vals[s-1] == b {
			return s - 1, true
		}
		h = (h + 1) & mask
	}
	if len(d.vals) >= limit {
		return 0, false
	}
	d.vals = append(d.vals, b)
	d.slots[h] = uint32(len(d.vals))
	if 2*len(d.vals) > len(d.slots) { // half full at most: short probes
		d.grow()
	}
	return uint32(len(d.vals) - 1), true
}

// grow doubles the hash table and places every value again.
func (d *floatDict) grow() {
	d.slots = make([]uint32, 2*len(d.slots))
	d.shift--
	mask := uint64(len(d.slots) - 1)
	for i, b := range d.vals {
		h := (b * 0x9E3779B97F4A7C15) >> d.shift
		for d.slots[h] != 0 {
			h = (h + 1) & mask
		}
		d.slots[h] = uint32(i + 1)
	}
}

// addValues appends the indices of vals (non-null values) to d.idx and
// returns their minimum and maximum (NaN left out: +Inf and −Inf when
// there is none); false once the dictionary would hold more than limit
// values. A run of equal bits is looked up once.
func addValues[U floatBits](d *floatDict, vals []U, limit int) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	var (
		prev U
		at   uint32
	)
	for i, v := range vals {
		if i == 0 || v != prev {
			lo, hi = minMax(lo, hi, floatOf(v))
			if at, ok = d.index(uint64(v), limit); !ok {
				return lo, hi, false
			}
			prev = v
		}
		d.idx = append(d.idx, at)
	}
	return lo, hi, true
}

// floatMinMax returns the minimum and maximum of vals, as addValues.
func floatMinMax[U floatBits](vals []U) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		lo, hi = minMax(lo, hi, floatOf(v))
	}
	return lo, hi
}

// minMax widens [lo, hi] to f, unless f is NaN, which compares neither
// less nor greater (Go's min and max would return the NaN).
func minMax(lo, hi, f float64) (float64, float64) {
	if f < lo {
		lo = f
	}
	if f > hi {
		hi = f
	}
	return lo, hi
}

// floatStats are the encoded statistics of a float column chunk or page
// of width bytes: lo and hi as parquet-mr and arrow-go write them (none
// when there is no non-NaN value; a zero minimum is −0.0, a zero maximum
// +0.0, PARQUET-1222), and the nulls.
func floatStats(lo, hi float64, nulls int64, width int) metadata.EncodedStatistics {
	st := metadata.EncodedStatistics{Signed: true, HasNullCount: true, NullCount: nulls}
	if lo > hi { // no value, or only NaN
		return st
	}
	if lo == 0 {
		lo = math.Copysign(0, -1)
	}
	if hi == 0 {
		hi = 0
	}
	enc := func(f float64) []byte {
		if width == 4 {
			return binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(f)))
		}
		return binary.LittleEndian.AppendUint64(nil, math.Float64bits(f))
	}
	st.HasMin, st.Min = true, enc(lo)
	st.HasMax, st.Max = true, enc(hi)
	return st
}

// floatChunk writes the pages of a float column chunk (width 4 or 8
// bytes: float32 or float64) and returns its statistics and whether it
// has a dictionary page.
func (e *pageEncoder) floatChunk(pager file.PageWriter, arrs []arrow.Array, nullable bool, width int, path string, props *parquet.WriterProperties) (metadata.EncodedStatistics, bool, error) {
	if width == 4 {
		return floatChunk[uint32](e, pager, arrs, nullable, path, props)
	}
	return floatChunk[uint64](e, pager, arrs, nullable, path, props)
}

func floatChunk[U floatBits](e *pageEncoder, pager file.PageWriter, arrs []arrow.Array, nullable bool, path string, props *parquet.WriterProperties) (metadata.EncodedStatistics, bool, error) {
	width := int(unsafe.Sizeof(U(0)))
	d := &e.dict
	d.reset()
	limit := 0
	if props.DictionaryEnabledFor(path) {
		limit = int(props.DictionaryPageSizeLimit()) / width
	}
	// First the dictionary, page by page, until it would outgrow its page.
	useDict := limit > 0
	err := floatPages(arrs, nullable, func(vals []U, bitmap []byte, off int) error {
		if !useDict {
			return nil
		}
		valid := validValues(d, vals, bitmap, off)
		lo, hi, ok := addValues(d, valid, limit)
		useDict = ok
		d.pages = append(d.pages, pageMinMax{nulls: len(vals) - len(valid), lo: lo, hi: hi})
		return nil
	})
	if err != nil {
		return metadata.EncodedStatistics{}, false, err
	}
	useDict = useDict && len(d.vals) > 0 // nothing to look up: PLAIN pages of levels only

	if useDict {
		e.page = e.page[:0]
		for _, b := range d.vals {
			e.page = appendLE(e.page, U(b))
		}
		dp := file.NewDictionaryPage(memory.NewBufferBytes(e.page), int32(len(d.vals)), props.DictionaryPageEncoding())
		_, err := pager.WriteDictionaryPage(dp)
		dp.Release()
		if err != nil {
			return metadata.EncodedStatistics{}, false, err
		}
	}
	var (
		lo, hi      = math.Inf(1), math.Inf(-1)
		nulls, rows int64
		page, at    int // the page, and its first index in d.idx
		bw          = max(1, bits.Len(uint(len(d.vals)-1)))
	)
	err = floatPages(arrs, nullable, func(vals []U, bitmap []byte, off int) error {
		n := len(vals)
		var pm pageMinMax
		e.page = e.page[:0]
		if useDict {
			pm = d.pages[page]
			page++
			if nullable {
				e.page = appendDefLevels(e.page, bitmap, off, n, pm.nulls)
			}
			e.page = append(e.page, byte(bw))
			e.page = appendHybrid(e.page, d.idx[at:at+n-pm.nulls], bw)
			at += n - pm.nulls
		} else {
			valid := validValues(d, vals, bitmap, off)
			pm.nulls = n - len(valid)
			pm.lo, pm.hi = floatMinMax(valid)
			if nullable {
				e.page = appendDefLevels(e.page, bitmap, off, n, pm.nulls)
			}
			e.page = appendLE(e.page, valid...)
		}
		enc := parquet.Encodings.Plain
		if useDict {
			enc = props.DictionaryIndexEncoding()
		}
		st := floatStats(pm.lo, pm.hi, int64(pm.nulls), width)
		if err := e.writePage(pager, n, enc, st, rows); err != nil {
			return err
		}
		rows += int64(n)
		nulls += int64(pm.nulls)
		if pm.lo <= pm.hi { // the page has a value that is not NaN
			lo, hi = min(lo, pm.lo), max(hi, pm.hi)
		}
		return nil
	})
	return floatStats(lo, hi, nulls, width), useDict, err
}

// floatPages calls page with the values of each data page of arrs (at
// most pageRows; a page never spans two arrays: pageArrays cuts them
// into pages), their validity bits from off on in bitmap (nil when all
// are valid).
func floatPages[U floatBits](arrs []arrow.Array, nullable bool, page func(vals []U, bitmap []byte, off int) error) error {
	width := int(unsafe.Sizeof(U(0)))
	for _, a := range arrs {
		d := a.Data()
		if id := d.DataType().ID(); (id != arrow.FLOAT32 || width != 4) && (id != arrow.FLOAT64 || width != 8) {
			return fmt.Errorf("parquet pages: a %s column for %d-byte floats", d.DataType(), width)
		}
		var values []U
		if b := d.Buffers()[1]; b != nil && d.Len() > 0 {
			values = unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(b.Bytes()))), b.Len()/width)[d.Offset() : d.Offset()+d.Len()]
		}
		var bitmap []byte
		if a.NullN() > 0 {
			if !nullable {
				return fmt.Errorf("parquet pages: %d nulls in a required column", a.NullN())
			}
			bitmap = d.Buffers()[0].Bytes()
		}
		for p := 0; p < len(values); p += pageRows {
			if err := page(values[p:min(p+pageRows, len(values))], bitmap, d.Offset()+p); err != nil {
				return err
			}
		}
	}
	return nil
}

// validValues returns the values of vals whose bits from off on in bitmap
// are set (all when bitmap is nil), copied into d.buf if some are not.
func validValues[U floatBits](d *floatDict, vals []U, bitmap []byte, off int) []U {
	if bitmap == nil {
		return vals
	}
	width := int(unsafe.Sizeof(U(0)))
	if cap(d.buf) < len(vals)*width {
		d.buf = make([]byte, len(vals)*width)
	}
	out := unsafe.Slice((*U)(unsafe.Pointer(unsafe.SliceData(d.buf))), len(vals))
	k := 0
	for i, v := range vals { // every value stored, the next one over it unless valid: no branch
		out[k] = v
		k += int(bitmap[(off+i)>>3] >> ((off + i) & 7) & 1)
	}
	return out[:k]
}

// littleEndian is whether the host stores values as Parquet does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// appendLE appends vals as PLAIN encodes them: little-endian bytes.
func appendLE[U floatBits](dst []byte, vals ...U) []byte {
	width := int(unsafe.Sizeof(U(0)))
	if littleEndian && len(vals) > 0 {
		return append(dst, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(vals))), len(vals)*width)...)
	}
	for _, v := range vals {
		if width == 4 {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(v))
		} else {
			dst = binary.LittleEndian.AppendUint64(dst, uint64(v))
		}
	}
	return dst
}

// appendHybrid appends idx in the RLE/bit-packed hybrid at bit width bw
// (1…32), without a length, as a dictionary data page holds its indices:
// RLE runs where 8 or more equal indices start (a lat column's values
// repeat for a whole row of lon), bit-packed groups of 8 elsewhere, the
// last group padded with zeros.
func appendHybrid(dst []byte, idx []uint32, bw int) []byte {
	n := len(idx)
	for i := 0; i < n; {
		j := i + 1
		for j < n && idx[j] == idx[i] {
			j++
		}
		if j-i >= 8 {
			dst = binary.AppendUvarint(dst, uint64(j-i)<<1)
			for k := range (bw + 7) / 8 {
				dst = append(dst, byte(idx[i]>>(8*k)))
			}
			i = j
			continue
		}
		// Groups of 8 until one starts a run of 8 or the indices end.
		start := i
		for i += 8; i < n && !run8(idx[i:]); i += 8 {
		}
		i = min(i, n)
		groups := (i - start + 7) / 8
		dst = binary.AppendUvarint(dst, uint64(groups)<<1|1)
		dst = appendBitPacked(dst, idx[start:i], groups*8, bw)
	}
	return dst
}

// run8 is whether idx starts with 8 equal indices.
func run8(idx []uint32) bool {
	if len(idx) < 8 {
		return false
	}
	for _, x := range idx[1:8] {
		if x != idx[0] {
			return false
		}
	}
	return true
}

// appendBitPacked appends m values at bw bits each (1…32), least
// significant bit first: vals, then zeros. m·bw is a multiple of 8.
func appendBitPacked(dst []byte, vals []uint32, m, bw int) []byte {
	var (
		acc uint64
		n   int // bits in acc, under 32 between values
	)
	for i := range m {
		if i < len(vals) {
			acc |= uint64(vals[i]) << n
		}
		n += bw
		if n >= 32 {
			dst = binary.LittleEndian.AppendUint32(dst, uint32(acc))
			acc >>= 32
			n -= 32
		}
	}
	for ; n > 0; n -= 8 {
		dst = append(dst, byte(acc))
		acc >>= 8
	}
	return dst
}
