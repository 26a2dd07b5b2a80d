package storage

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// A Dir nobody closes releases its descriptors once unreachable: opening
// and reading 300 stores without Close (the README's pattern before it
// said to Close) leaves no more descriptors than it found, after
// collections. Without the cleanup each store kept two.
func TestDirUnreachableReleasesHandles(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	if err := NewDir(dir).Set(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	fds := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Fatal(err)
		}
		return len(ents)
	}
	runtime.GC()
	before := fds()
	for range 300 {
		if _, err := NewDir(dir).Get(ctx, "k"); err != nil {
			t.Fatal(err)
		}
	}
	// Cleanups run on their own goroutine after a collection.
	deadline := time.Now().Add(10 * time.Second)
	for fds() > before+10 && time.Now().Before(deadline) {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if n := fds(); n > before+10 {
		t.Errorf("%d descriptors open after 300 unclosed stores were collected, %d before", n, before)
	}
	// Close stops the cleanup: closing twice, or the cleanup closing a
	// descriptor number reused since, must not happen.
	d := NewDir(dir)
	if _, err := d.Get(ctx, "k"); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(filepath.Join(dir, "k"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	d = nil
	runtime.GC()
	time.Sleep(50 * time.Millisecond)
	if _, err := f.Stat(); err != nil {
		t.Errorf("a file opened after Close was closed by the store's cleanup: %v", err)
	}
}

// A key whose base name is as long as a file name may be (255 bytes) is
// set and read back: the temporary file's name, which adds a 27-byte
// prefix, cuts the base name (at a character boundary) instead of
// failing with "file name too long"; Temps reports the key so cut.
func TestDirLongBaseName(t *testing.T) {
	ctx := context.Background()
	d := NewDir(t.TempDir())
	defer d.Close()
	for _, base := range []string{strings.Repeat("k", 255), strings.Repeat("é", 127)} {
		key := "a/" + base
		if err := d.Set(ctx, key, []byte("v")); err != nil {
			t.Fatalf("Set of a %d-byte base name: %v", len(base), err)
		}
		if b, err := d.Get(ctx, key); err != nil || string(b) != "v" {
			t.Fatalf("Get: %q, %v", b, err)
		}
		if cut := tempBase(base); !utf8.ValidString(cut) || len(tempPrefix)+17+len(cut) > 255 || !strings.HasPrefix(base, cut) {
			t.Errorf("tempBase(%d bytes) = %d bytes, valid %v", len(base), len(cut), utf8.ValidString(cut))
		}
	}
}

// TempsUnder lists the temporary files under a node only, as paths and
// keys of the whole store; Temps lists all of them.
func TestDirTempsUnder(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	for _, p := range []string{"a/.dt64-tmp-0123456789abcdef-0", "a/b/.dt64-tmp-0123456789abcdef-1", "ab/.dt64-tmp-0123456789abcdef-2", ".dt64-tmp-0123456789abcdef-zarr.json"} {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, p), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	d := NewDir(dir)
	defer d.Close()
	under, err := d.TempsUnder(ctx, "a/")
	if err != nil || len(under) != 2 || under["a/.dt64-tmp-0123456789abcdef-0"] != "a/0" || under["a/b/.dt64-tmp-0123456789abcdef-1"] != "a/b/1" {
		t.Errorf("TempsUnder(a/) = %v, %v", under, err)
	}
	if all, err := d.Temps(ctx); err != nil || len(all) != 4 {
		t.Errorf("Temps = %v, %v", all, err)
	}
	if none, err := d.TempsUnder(ctx, "missing/"); err != nil || len(none) != 0 {
		t.Errorf("TempsUnder(missing/) = %v, %v", none, err)
	}
}
