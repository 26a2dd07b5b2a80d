package fuzz

import (
	"context"
	"errors"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// wholeArray reads every chunk of a and returns the array's elements in C
// order (edge-chunk padding dropped).
func wholeArray(t *testing.T, a *zarr.Array) []int64 {
	t.Helper()
	ctx := context.Background()
	shape, cs := a.Shape(), a.ChunkShape()
	total := int64(1)
	for _, d := range shape {
		total *= d
	}
	out := make([]int64, total)
	buf := make([]int64, a.ChunkLen())
	idx := make([]int64, len(shape))
	for _, c := range a.ChunkCoords() {
		if err := a.ReadChunk(ctx, c, buf); err != nil {
			t.Fatalf("reading chunk %v: %v", c, err)
		}
		for j, v := range buf {
			// j's multi-index within the chunk, then in the array.
			rem, flat, inside := int64(j), int64(0), true
			for d := len(cs) - 1; d >= 0; d-- {
				idx[d] = c[d]*cs[d] + rem%cs[d]
				rem /= cs[d]
				if idx[d] >= shape[d] {
					inside = false
				}
			}
			if !inside {
				continue
			}
			for d := range shape {
				flat = flat*shape[d] + idx[d]
			}
			out[flat] = v
		}
	}
	return out
}

var compressions = []string{"", "none", "zstd:3", "gzip:1", "zstd:1"}

// FuzzTranscodeEngine re-encodes a fuzzed source array (any format, codec
// chain, data type and values) to a fuzzed destination (unit, scale, byte
// order, compression, format, overflow policy, exact mode) in memory, and
// checks every element against kernels.Transcoder.Convert, the element
// reference that FuzzTranscoder checks against math/big.
func FuzzTranscodeEngine(f *testing.F) {
	f.Add(uint8(0x05), uint32(0), uint16(9|6<<8), uint32(1), uint32(1), uint8(0), uint8(0), []byte{1, 2, 3, 150, 0, 1})
	f.Add(uint8(0x45), uint32(1<<16|2), uint16(6|9<<8), uint32(1), uint32(1), uint8(0x13), uint8(0x2a), []byte{9, 10, 11})
	f.Add(uint8(0x81), uint32(4|1<<8), uint16(3|1<<8), uint32(1), uint32(1), uint8(0x21), uint8(0x11), []byte{100, 1, 0, 5})
	f.Add(uint8(0x16), uint32(1|1<<2), uint16(9|12<<8), uint32(7), uint32(3), uint8(0x02), uint8(0x07), []byte{0, 3, 4, 200, 1, 2, 3, 4, 5, 6, 7, 8})
	f.Fuzz(func(t *testing.T, shapeSel uint8, chainSel uint32, units uint16, s1, s2 uint32, flags, dest uint8, data []byte) {
		ctx := context.Background()
		dc := caseFrom(shapeSel, chainSel)
		kind := dtype.Datetime
		if flags&0x20 != 0 {
			kind = dtype.Timedelta
		}
		dc.meta.DataType = dataTypeFrom(kind, uint8(units), s1)
		if dc.meta.DataType.Unit == dtype.Generic {
			dc.meta.DataType.Unit = dtype.Second
		}
		dc.meta.FillValue = specials[int(flags>>6)%len(specials)]
		src := storage.NewMemory()
		a, err := zarr.Create(ctx, src, dc.meta)
		if err != nil {
			t.Fatalf("%s: Create: %v", dc.describe, err)
		}
		n := a.ChunkLen()
		for i, c := range a.ChunkCoords() {
			if i%3 == 2 {
				continue // leave some chunks missing: they read as the fill value
			}
			vals := valuesFrom(append([]byte{byte(i)}, data...), n)
			if err := a.WriteChunk(ctx, c, vals); err != nil {
				t.Fatalf("%s: WriteChunk: %v", dc.describe, err)
			}
		}
		if err := a.WriteMetadata(ctx); err != nil {
			t.Fatal(err)
		}

		toDT := dataTypeFrom(kind, uint8(units>>8), s2)
		if toDT.Unit == dtype.Generic {
			toDT.Unit = dtype.Nanosecond
		}
		unit := toDT.Unit
		opts := transcode.Options{
			Unit: unit, Scale: toDT.Scale,
			Overflow: dtype.OverflowPolicy(flags & 3 % 3), Exact: flags&4 != 0,
			Workers: 1 + int(flags>>3&1),
		}
		if dest&1 != 0 {
			opts.Endian = endianOf(uint32(dest >> 1))
		}
		if c := compressions[int(dest>>2)%len(compressions)]; c != "" {
			comp, err := transcode.ParseCompression(c)
			if err != nil {
				t.Fatalf("ParseCompression(%q): %v", c, err)
			}
			opts.Compression = &comp
		}
		if dest&0x40 != 0 {
			opts.Format = 2 + int(dest>>7)
		}
		conv, err := dtype.NewConversion(dc.meta.DataType, toDT)
		if err != nil {
			t.Fatalf("NewConversion(%v, %v): %v", dc.meta.DataType, toDT, err)
		}
		ref, err := kernels.NewTranscoder(conv, kernels.Options{Overflow: opts.Overflow, Exact: opts.Exact})
		if err != nil {
			t.Fatal(err)
		}
		srcVals := wholeArray(t, a)
		// Does any element (or the fill value) fail under the policy?
		_, fillErr := ref.Convert(dc.meta.FillValue)
		var elemErr error
		for _, v := range srcVals {
			if _, err := ref.Convert(v); err != nil {
				elemErr = err
				break
			}
		}

		dst := storage.NewMemory()
		tr, err := transcode.New(ctx, src, dst, opts)
		if err != nil {
			if errors.Is(err, transcode.ErrPlan) {
				t.Logf("not planned: %v", err)
				return // e.g. the fill value overflows, or v2 cannot express the chain
			}
			t.Fatalf("%s -> %+v: New: %v", dc.describe, opts, err)
		}
		if fillErr != nil {
			t.Fatalf("%s -> %v: fill value %d fails to convert (%v) but New planned it", dc.describe, toDT, dc.meta.FillValue, fillErr)
		}
		sum, err := tr.Run(ctx)
		if err != nil {
			var ee *zarr.ElementError
			if !errors.As(err, &ee) {
				t.Fatalf("%s -> %v %+v: Run: %v (not an *ElementError)", dc.describe, toDT, opts, err)
			}
			if _, cerr := ref.Convert(ee.Value); cerr == nil {
				t.Fatalf("Run failed at value %d, which converts: %v", ee.Value, err)
			}
			if elemErr == nil {
				t.Fatalf("Run failed, but no element fails: %v", err)
			}
			t.Logf("element error: %v", err)
			return
		}
		if elemErr != nil {
			t.Fatalf("%s -> %v %+v: Run succeeded, but an element fails: %v", dc.describe, toDT, opts, elemErr)
		}
		if !sum.Complete {
			t.Fatalf("Run summary not complete: %+v", sum)
		}
		b, err := zarr.Open(ctx, dst)
		if err != nil {
			t.Fatalf("opening the destination: %v", err)
		}
		if b.DataType() != toDT {
			t.Fatalf("destination data type %v, want %v", b.DataType(), toDT)
		}
		if opts.Endian != nil && b.ByteOrder() != opts.Endian {
			t.Fatalf("destination byte order %v, want %v", b.ByteOrder(), opts.Endian)
		}
		got := wholeArray(t, b)
		for i, v := range srcVals {
			want, _ := ref.Convert(v)
			if got[i] != want {
				t.Fatalf("%s -> %v %+v: element %d: %d -> %d, want %d", dc.describe, toDT, opts, i, v, got[i], want)
			}
		}
		if err := tr.Verify(ctx); err != nil {
			t.Fatalf("Verify after a successful run: %v", err)
		}
		t.Logf("%s -> %v %+v: %d elements checked", dc.describe, toDT, opts, len(srcVals))
	})
}
