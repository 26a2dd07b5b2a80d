package zarrow

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"go.uber.org/goleak"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// panicStore panics reading a chunk (a key that is no metadata).
type panicStore struct{ storage.Store }

func (s panicStore) Get(ctx context.Context, key string) ([]byte, error) {
	if !strings.HasPrefix(key, ".z") && key != "zarr.json" {
		panic("reading " + key)
	}
	return s.Store.Get(ctx, key)
}

// panicAllocator panics on its allocations from the after-th on.
type panicAllocator struct {
	memory.Allocator
	n, after atomic.Int64
}

func newPanicAllocator(after int64) *panicAllocator {
	p := &panicAllocator{Allocator: memory.NewGoAllocator()}
	p.after.Store(after)
	return p
}

func (p *panicAllocator) Allocate(size int) []byte {
	if p.n.Add(1) >= p.after.Load() {
		panic("allocating")
	}
	return p.Allocator.Allocate(size)
}

// panicWriter panics writing after its first n bytes.
type panicWriter struct{ n int }

func (w *panicWriter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		panic("writing")
	}
	w.n -= len(p)
	return len(p), nil
}

// isPanic reports whether err is a recovered panic of message msg, with
// the stack of the goroutine that panicked.
func isPanic(err error, msg string) bool {
	var p interface{ PanicStack() []byte }
	return err != nil && strings.Contains(err.Error(), "panic: "+msg) && errors.As(err, &p) && strings.Contains(string(p.PanicStack()), "goroutine")
}

// A panic on a goroutine zarrow starts (converting chunks, reading a
// batch ahead, encoding a row group, writing the parts out) or on zarr's
// region readers is the read's or the export's error, with its stack,
// and every goroutine stops: it no longer ends the process, before a
// caller such as dt64 export can remove its temporary file.
func TestPanicsAreErrors(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	ctx := context.Background()
	dt := dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}
	values := make([]int64, 100)
	for _, chunk := range []int{8, 7} { // chunk by chunk (zarrow's workers); a box (zarr's)
		b, err := zarr.Create(ctx, panicStore{storage.NewMemory()}, zarr.Metadata{Format: 3, DataType: dt, Shape: []int64{100},
			ChunkShape: []int64{int64(chunk)}, FillValue: dtype.NaT, Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := b.WriteChunk(ctx, []int64{0}, make([]int64, chunk)); err != nil {
			t.Fatal(err)
		}
		for _, par := range []int{1, 3} {
			_, _, err := Read(ctx, b, []int64{0}, []int64{100}, Options{Parallel: par})
			if !isPanic(err, "reading ") {
				t.Errorf("chunks of %d, %d workers: %v, want the panic", chunk, par, err)
			}
		}
	}
	a := chunkedTimeArray(t, dt, values, binary.LittleEndian, 8)
	tab, err := ArrayTable(a, "t", TableOptions{BatchRows: 10, Prefetch: 2, Options: Options{Allocator: newPanicAllocator(5)}})
	if err != nil {
		t.Fatal(err)
	}
	r := tab.RecordReader(ctx)
	for r.Next() {
	}
	if !isPanic(r.Err(), "allocating") {
		t.Errorf("a batch read ahead: %v, want the panic", r.Err())
	}
	r.Release()
	// Batches of 10 rows are not joined here (coalesceRows): the
	// allocator's panic is to come from an encoder, not from the join's
	// array.Concatenate, which turns a panic into an error of its own.
	defer func(n int64) { coalesceRows = n }(coalesceRows)
	coalesceRows = 1
	for _, c := range []struct {
		what string
		o    ExportOptions
		w    *panicWriter
	}{
		{"encoding", ExportOptions{Format: Parquet, RowGroupRows: 20, Workers: 3, Allocator: newPanicAllocator(10)}, &panicWriter{1 << 30}},
		{"writing", ExportOptions{Format: Parquet, RowGroupRows: 20, Workers: 3}, &panicWriter{0}},
		{"writing", ExportOptions{Format: Parquet, RowGroupRows: 20, Workers: 3}, &panicWriter{4}},   // the first row group
		{"writing", ExportOptions{Format: Parquet, RowGroupRows: 20, Workers: 3}, &panicWriter{500}}, // the footer
	} {
		tab, err := ArrayTable(a, "t", TableOptions{BatchRows: 10, Prefetch: 2})
		if err != nil {
			t.Fatal(err)
		}
		r := tab.RecordReader(ctx)
		_, err = Export(r, c.w, c.o)
		r.Release()
		if msg := map[string]string{"encoding": "allocating", "writing": "writing"}[c.what]; !isPanic(err, msg) {
			t.Errorf("%s: %v, want the panic", c.what, err)
		}
	}
}
