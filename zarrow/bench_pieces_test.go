package zarrow

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/internal/zstddec"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// BenchmarkColumnPieces asks whether converting a compressed chunk in
// cache-sized pieces, each while it is hot, beats Read's way: decode the
// chunk whole into the column (8 MiB, out of L2), then convert it in
// place. The chunk is the hourly one of BenchmarkColumn (zstd level 1, as
// zarr writes it); each round decodes 8 chunks into a 64 MiB column (ns and
// µs, with the bitmap) in every way, in an order that turns, and reports
// the median of each way's time over the floor's (decode only):
//
//   - whole: DecodeAll into the column, then the kernel in place (Read);
//   - stream: klauspost's synchronous stream decoder, each block (128 KiB)
//     converted out of the decoder's history into the column as soon as it
//     is decoded (WriteTo);
//   - frames=128KiB, frames=1MiB: the chunk written instead as frames of
//     that size one after another (a zstd frame cannot be cut at its
//     blocks: a compressed block's matches, repeat offsets and tables reach
//     back into the blocks before it), each decoded into the column and
//     converted in place at once; floor-frames=128KiB decodes them only.
//
// Every way's column and bitmap are first checked against whole's.
//
//	cd zarrow && go test -run '^$' -bench 'ColumnPieces$' -benchtime 25x
func BenchmarkColumnPieces(b *testing.B) {
	const nchunks = 8
	a, frame, raw := hourlyChunk(b)
	frames := func(size int) [][]byte {
		e, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1), zstd.WithSingleSegment(false))
		if err != nil {
			b.Fatal(err)
		}
		var f [][]byte
		for off := 0; off < len(raw); off += size {
			f = append(f, e.EncodeAll(raw[off:off+size], nil))
		}
		return f
	}
	frames128k, frames1m := frames(128<<10), frames(1<<20)
	dec := zstddec.Decoder()
	stream, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		b.Fatal(err)
	}
	defer stream.Close()
	decodeFrames := func(fs [][]byte, k converter, col, bitmap []byte) {
		off := 0
		for _, f := range fs {
			p, err := dec.DecodeAll(f, col[off:off:off+len(raw)/len(fs)])
			if err != nil {
				b.Fatal(err)
			}
			if k != nil {
				if _, err := k.Run(p, p, bitmap[off/64:]); err != nil {
					b.Fatal(err)
				}
			}
			off += len(p)
		}
	}
	for _, u := range []dtype.Unit{dtype.Nanosecond, dtype.Microsecond} {
		k, _, _, err := timeColumn(a, Options{Unit: u})
		if err != nil {
			b.Fatal(err)
		}
		ways := []struct {
			name string
			run  func(col, bitmap []byte)
		}{
			{"floor", func(col, _ []byte) {
				if _, err := dec.DecodeAll(frame, col[:0]); err != nil {
					b.Fatal(err)
				}
			}},
			{"whole", func(col, bitmap []byte) {
				if _, err := dec.DecodeAll(frame, col[:0]); err != nil {
					b.Fatal(err)
				}
				if _, err := k.Run(col, col, bitmap); err != nil {
					b.Fatal(err)
				}
			}},
			{"stream", func(col, bitmap []byte) {
				if err := stream.Reset(bytes.NewReader(frame)); err != nil {
					b.Fatal(err)
				}
				w := &convertWriter{k: k, col: col, bitmap: bitmap}
				if _, err := stream.WriteTo(w); err != nil || w.off != len(col) {
					b.Fatalf("stream: %v after %d bytes", err, w.off)
				}
			}},
			{"frames=128KiB", func(col, bitmap []byte) { decodeFrames(frames128k, k, col, bitmap) }},
			{"frames=1MiB", func(col, bitmap []byte) { decodeFrames(frames1m, k, col, bitmap) }},
			{"floor-frames=128KiB", func(col, bitmap []byte) { decodeFrames(frames128k, nil, col, bitmap) }},
		}
		col := make([]byte, nchunks*len(raw))
		bitmap := make([]byte, len(col)/64)
		b.Run(fmt.Sprint(u), func(b *testing.B) {
			want, wantBits := make([]byte, len(raw)), make([]byte, len(raw)/64)
			ways[1].run(want, wantBits)
			for _, w := range ways[2:5] {
				got, gotBits := make([]byte, len(raw)), make([]byte, len(raw)/64)
				w.run(got, gotBits)
				if !bytes.Equal(got, want) || !bytes.Equal(gotBits, wantBits) {
					b.Fatalf("%s: column differs from whole's", w.name)
				}
			}
			took := make([]float64, len(ways))
			ratios := make([][]float64, len(ways))
			round := 0
			for b.Loop() {
				for j := range ways {
					i := (j + round) % len(ways)
					t0 := time.Now()
					for c := range nchunks {
						ways[i].run(col[c*len(raw):(c+1)*len(raw)], bitmap[c*len(raw)/64:(c+1)*len(raw)/64])
					}
					took[i] = time.Since(t0).Seconds()
				}
				round++
				for i := range ways[1:] {
					ratios[i+1] = append(ratios[i+1], took[i+1]/took[0])
				}
			}
			for i, w := range ways[1:] {
				b.ReportMetric(median(ratios[i+1]), w.name+"-x")
			}
			b.SetBytes(int64(len(col)))
		})
	}
}

// convertWriter converts what a stream decoder writes into col, as it
// comes: whole blocks of 128 KiB, so every write but the last starts on a
// byte of the bitmap.
type convertWriter struct {
	k           converter
	col, bitmap []byte
	off         int
}

func (w *convertWriter) Write(p []byte) (int, error) {
	if w.off%64 != 0 || len(p)%8 != 0 {
		return 0, fmt.Errorf("a block of %d bytes at %d: not on a byte of the bitmap", len(p), w.off)
	}
	if _, err := w.k.Run(w.col[w.off:w.off+len(p)], p, w.bitmap[w.off/64:]); err != nil {
		return 0, err
	}
	w.off += len(p)
	return len(p), nil
}

// hourlyChunk is BenchmarkColumn's hourly array (benchArray) of one chunk
// (8 MiB), the chunk's stored value as zarr writes it, and the chunk's
// bytes.
func hourlyChunk(b *testing.B) (a *zarr.Array, frame, raw []byte) {
	ctx := context.Background()
	store := storage.NewMemory()
	a = benchArray(b, store, 1<<20, 16)
	key, _ := a.ChunkKey([]int64{0})
	frame, err := store.Get(ctx, key)
	if err != nil {
		b.Fatal(err)
	}
	raw = make([]byte, a.ChunkBytes())
	if _, _, err := a.ReadChunkRaw(ctx, []int64{0}, raw); err != nil {
		b.Fatal(err)
	}
	return a, frame, raw
}
