package storage

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// holdFlushes makes every background flush wait until the returned
// function is called, and records the largest batch.
func holdFlushes(t *testing.T) (release func(), most *atomic.Int32) {
	t.Helper()
	gate := make(chan struct{})
	most = new(atomic.Int32)
	flushHook = func(keys []string) {
		n := int32(len(keys))
		for {
			m := most.Load()
			if n <= m || most.CompareAndSwap(m, n) {
				break
			}
		}
		<-gate
	}
	var once sync.Once
	release = func() { once.Do(func() { close(gate) }) }
	t.Cleanup(func() { release(); flushHook = nil })
	return release, most
}

// With FlushAhead, Set returns before the rename, yet every read of the
// store sees the value: Get and Version wait for the key, List, Entries
// and Temps for every key, so a caller cannot tell, except by speed.
func TestDirFlushAheadVisible(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := NewDir(dir)
	s.FlushAhead = 4
	release, most := holdFlushes(t)
	for i := range 4 {
		if err := s.Set(ctx, fmt.Sprintf("c/%d", i), []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	// All four are in flight: nothing has been renamed yet.
	if _, err := os.Stat(filepath.Join(dir, "c", "0")); err == nil {
		t.Fatal("c/0 renamed into place while its flush was held")
	}
	// Sync makes every Set that returned before it durable, so it waits
	// for the flushes in flight.
	synced := make(chan error)
	go func() { synced <- s.Sync(ctx) }()
	done := make(chan []byte)
	go func() {
		v, _ := s.Get(ctx, "c/2")
		done <- v
	}()
	select {
	case v := <-done:
		t.Fatalf("Get returned %v before the held value landed", v)
	case err := <-synced:
		t.Fatalf("Sync returned (%v) with four flushes held", err)
	case <-time.After(50 * time.Millisecond):
	}
	release()
	if err := <-synced; err != nil {
		t.Fatal(err)
	}
	if v := <-done; !bytes.Equal(v, []byte{2}) {
		t.Fatalf("Get after release: %v", v)
	}
	if keys, err := s.List(ctx, ""); err != nil || strings.Join(keys, " ") != "c/0 c/1 c/2 c/3" {
		t.Fatalf("List: %v, %v", keys, err)
	}
	if temps, err := s.Temps(ctx); err != nil || len(temps) != 0 {
		t.Fatalf("Temps after the flushes: %v, %v", temps, err)
	}
	if m := most.Load(); m != 4 {
		t.Errorf("the largest batch held %d values, want all 4", m)
	}
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
}

// No more than FlushAhead values are in flight: the next Set waits for a
// slot. A second Set of a key in flight waits for the first, so the later
// value wins, and Delete of a key in flight removes what landed.
func TestDirFlushAheadOrder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := NewDir(dir)
	s.FlushAhead = 2
	release, most := holdFlushes(t)
	for i := range 2 {
		if err := s.Set(ctx, fmt.Sprintf("k%d", i), []byte("first")); err != nil {
			t.Fatal(err)
		}
	}
	third := make(chan error)
	go func() { third <- s.Set(ctx, "k0", []byte("second")) }()
	select {
	case err := <-third:
		t.Fatalf("a third Set returned (%v) with two values held and FlushAhead 2", err)
	case <-time.After(50 * time.Millisecond):
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if err := s.Set(short, "k9", []byte("x")); err == nil {
		t.Fatal("a Set waiting for a slot ignored its context")
	}
	release()
	if err := <-third; err != nil {
		t.Fatal(err)
	}
	if v, err := s.Get(ctx, "k0"); err != nil || string(v) != "second" {
		t.Fatalf("k0 = %q, %v: the later Set must win", v, err)
	}
	if err := s.Delete(ctx, "k1"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "k1"); err == nil {
		t.Fatal("k1 survived its Delete")
	}
	if _, err := s.Get(ctx, "k9"); err == nil {
		t.Fatal("the cancelled Set stored k9")
	}
	if m := most.Load(); m > 2 {
		t.Errorf("a batch of %d values, FlushAhead is 2", m)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
}

// A background rename that fails is not lost: the next Sync and Close
// return it naming the key, later Sets refuse, and no temporary file
// stays behind.
func TestDirFlushAheadError(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	// A non-empty directory where the value should go: the rename fails.
	if err := os.MkdirAll(filepath.Join(dir, "c", "0", "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	s := NewDir(dir)
	s.FlushAhead = 4
	if err := s.Set(ctx, "c/0", []byte("v")); err != nil {
		t.Fatalf("Set failed before its rename was tried: %v", err)
	}
	err := s.Sync(ctx)
	if err == nil || !strings.Contains(err.Error(), "c/0") {
		t.Fatalf("Sync after a failed rename: %v", err)
	}
	if err := s.Set(ctx, "c/1", []byte("v")); err == nil {
		t.Fatal("Set accepted after a background failure")
	}
	if err := s.Close(); err == nil {
		t.Fatal("Close hid the background failure")
	}
	if temps, _ := NewDir(dir).Temps(ctx); len(temps) != 0 {
		t.Fatalf("temporary files left: %v", temps)
	}
}

// Values written faster than the disk flushes are made durable in
// batches of FlushAhead, one flush each, not one flush per value.
func TestDirFlushAheadBatches(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var batches []int
	flushHook = func(keys []string) {
		mu.Lock()
		batches = append(batches, len(keys))
		mu.Unlock()
	}
	// No partial batch on a timer (qemu is slow enough to let one fire
	// between two Sets): batches close when full, when a Set waits for a
	// slot, or for Sync.
	delay := flushDelay
	flushDelay = time.Hour
	t.Cleanup(func() { flushHook, flushDelay = nil, delay })
	s := NewDir(t.TempDir())
	s.FlushAhead = 8
	for i := range 20 {
		if err := s.Set(ctx, fmt.Sprintf("c/%d", i), []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	// Mostly full batches: a Set that finds every slot taken asks for a
	// flush of what is pending, so a batch can close a little early.
	total := 0
	for _, n := range batches {
		total += n
	}
	if total != 20 || len(batches) > 5 || slices.Max(batches) != 8 {
		t.Fatalf("batches %v: want 20 values in at most 5 batches of up to 8", batches)
	}
	for i := range 20 {
		if v, err := s.Get(ctx, fmt.Sprintf("c/%d", i)); err != nil || v[0] != byte(i) {
			t.Fatalf("c/%d = %v, %v", i, v, err)
		}
	}
}

// TestDirFlushAheadVanished: another process's cleanup (a concurrent
// part finalizing the same directory) removes a temporary file before the
// group commit renames it. A small value (a metadata document) is written
// again and lands; a large one cannot be, and the error says which key.
func TestDirFlushAheadVanished(t *testing.T) {
	withPaths(t, func(t *testing.T) {
		ctx := context.Background()
		dir := t.TempDir()
		s := NewDir(dir)
		s.FlushAhead = 4
		removeTemps := func([]string) {
			temps, _ := NewDir(dir).Temps(ctx) // another store: no waiting for this one's flush
			for p := range temps {
				os.Remove(filepath.Join(dir, filepath.FromSlash(p)))
			}
		}
		flushHook = removeTemps
		defer func() { flushHook = nil }()
		if err := s.Set(ctx, "g/zarr.json", []byte(`{"zarr_format": 3}`)); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(ctx); err != nil {
			t.Fatalf("Sync after the small value's temporary file vanished: %v", err)
		}
		if b, err := os.ReadFile(filepath.Join(dir, "g", "zarr.json")); err != nil || string(b) != `{"zarr_format": 3}` {
			t.Fatalf("the value written again: %q, %v", b, err)
		}
		big := make([]byte, keepForRetry+1)
		if err := s.Set(ctx, "c/0", big); err != nil {
			t.Fatal(err)
		}
		if err := s.Sync(ctx); err == nil || !strings.Contains(err.Error(), "c/0") {
			t.Fatalf("Sync after a large value's temporary file vanished: %v", err)
		}
	})
}

// Under WithSetNow a Dir with FlushAhead puts the value in place before
// Set returns (a run's lease, judged by its presence), while other values
// still wait for the flusher.
func TestSetNowBypassesFlushAhead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d := NewDir(dir)
	d.FlushAhead = 64
	defer d.Close()
	flushDelay0 := flushDelay
	flushDelay = time.Hour // the flusher waits for a fuller batch
	defer func() { flushDelay = flushDelay0 }()
	if err := d.Set(ctx, "c/0", []byte("chunk")); err != nil {
		t.Fatal(err)
	}
	if err := d.Set(WithSetNow(ctx), ".dt64-live/0123456789abcdef.json", []byte("lease")); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".dt64-live", "0123456789abcdef.json")); err != nil || string(b) != "lease" {
		t.Errorf("the lease is not in place when Set returns: %q, %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "c", "0")); err == nil {
		t.Error("the chunk was in place before its batch was flushed: the test does not see flush-ahead")
	}
	if err := d.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "c", "0")); err != nil {
		t.Errorf("the chunk after Sync: %v", err)
	}
}
