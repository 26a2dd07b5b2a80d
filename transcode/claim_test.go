package transcode

import (
	"context"
	"encoding/binary"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// condStore is a MemoryStore with conditional writes, as an object store
// has them (ConditionalSetter).
type condStore struct {
	*storage.Memory
	mu sync.Mutex
}

func (s *condStore) SetIfAbsent(ctx context.Context, key string, v []byte) (bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.Get(ctx, key); err == nil {
		return false, nil
	}
	return true, s.Set(ctx, key, v)
}

func (s *condStore) Unwrap() storage.Store { return s.Memory }

// On a store with conditional writes a part that finds every part done
// but another's finalize claim leaves the metadata to it; the same part
// run again takes its own claim back; Finalize takes any claim over.
func TestFinalizeClaim(t *testing.T) {
	ctx := context.Background()
	src := storage.NewMemory()
	a, err := zarr.Create(ctx, src, zarr.Metadata{
		Format: 2, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1},
		Shape: []int64{63}, ChunkShape: []int64{8}, FillValue: dtype.NaT,
		Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}},
	})
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range a.ChunkCoords() {
		vals := make([]int64, 8)
		for k := range vals {
			vals[k] = 1_700_000_000_000_000_000 + int64(i)*8 + int64(k)
		}
		if err := a.WriteChunk(ctx, c, vals); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		t.Fatal(err)
	}
	dst := &condStore{Memory: storage.NewMemory()}
	job := func(i int) *Job {
		j, err := New(ctx, src, dst, Options{Part: Part{Index: i, Count: 2}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		return j
	}
	if _, err := job(0).Run(ctx); err != nil {
		t.Fatal(err)
	}
	// Part 0 claimed a finalize and died before the metadata.
	claim := `{"tool": "dt64 transcode", "summary": {}, "claim": "0-of-2"}`
	if err := dst.Set(ctx, finalKey, []byte(claim)); err != nil {
		t.Fatal(err)
	}
	sum, err := job(1).Run(ctx)
	if err != nil || sum.Complete || sum.PartsDone != 2 || sum.Finalizer != "0-of-2" {
		t.Fatalf("part 1 with part 0's claim: complete %v, %d parts done, finalizer %q, %v; want it to leave the finalize to part 0, and say so", sum.Complete, sum.PartsDone, sum.Finalizer, err)
	}
	if _, err := dst.Get(ctx, ".zarray"); err == nil {
		t.Fatal("part 1 wrote the metadata under part 0's claim")
	}
	_, err = job(1).finalize(ctx, false)
	if !errors.Is(err, ErrIncomplete) || !strings.Contains(err.Error(), "part 0-of-2") || !strings.Contains(err.Error(), "--finalize") {
		t.Errorf("the claim error: %v", err)
	}
	// Part 0 run again (a retried pod) takes its claim back and finishes.
	sum, err = job(0).Run(ctx)
	if err != nil || !sum.Complete {
		t.Fatalf("part 0 again: complete %v, %v", sum.Complete, err)
	}
	if keys, _ := dst.List(ctx, statePrefix); len(keys) != 0 {
		t.Errorf("state left: %q", keys)
	}

	// A claim by a part that never comes back: Finalize takes it over.
	dst2 := &condStore{Memory: storage.NewMemory()}
	for i := range 2 {
		j, err := New(ctx, src, dst2, Options{Part: Part{Index: i, Count: 2}, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if i == 1 {
			dst2.Set(ctx, finalKey, []byte(claim))
		}
		if _, err := j.Run(ctx); err != nil {
			t.Fatal(err)
		}
	}
	j, _ := New(ctx, src, dst2, Options{Workers: 1})
	if sum, err := j.Finalize(ctx); err != nil || !sum.Complete {
		t.Fatalf("Finalize over a dead part's claim: complete %v, %v", sum.Complete, err)
	}
	if _, err := zarr.Open(ctx, dst2); err != nil {
		t.Fatalf("the finalized array does not open: %v", err)
	}
}
