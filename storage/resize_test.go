package storage

import (
	"context"
	"testing"
	"unsafe"
)

// A buffer that GetInto had to replace has room for a slightly longer
// value, so that a pooled buffer serves the next chunk of about the same
// size; a buffer that fits is used as it is.
func TestResizeHeadroom(t *testing.T) {
	b := Resize(nil, 8000)
	if len(b) != 8000 || cap(b) != 9000 {
		t.Fatalf("Resize(nil, 8000): len %d cap %d, want 8000 and 9000", len(b), cap(b))
	}
	if c := Resize(b, 8900); unsafe.SliceData(c) != unsafe.SliceData(b) || len(c) != 8900 {
		t.Error("a value 900 bytes longer did not fit the headroom")
	}
	if c := Resize(b[:0], 10); unsafe.SliceData(c) != unsafe.SliceData(b) || len(c) != 10 {
		t.Error("a short value did not reuse the buffer")
	}
	// Through a directory store: the second, longer value lands in the
	// buffer the first one was read into.
	ctx := context.Background()
	d := NewDir(t.TempDir())
	defer d.Close()
	for k, n := range map[string]int{"c/0": 80000, "c/1": 80500} {
		if err := d.Set(ctx, k, make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	v0, err := d.GetInto(ctx, "c/0", nil, -1)
	if err != nil {
		t.Fatal(err)
	}
	v1, err := d.GetInto(ctx, "c/1", v0[:0], -1)
	if err != nil || len(v1) != 80500 {
		t.Fatalf("GetInto c/1: %d bytes, %v", len(v1), err)
	}
	if unsafe.SliceData(v1) != unsafe.SliceData(v0) {
		t.Error("c/1, 500 bytes longer than c/0, was read into a new buffer")
	}
}
