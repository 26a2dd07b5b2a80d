package storage

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestVersions(t *testing.T) {
	dir := t.TempDir()
	for _, s := range []interface {
		Store
		Versioner
	}{NewMemory(), NewDir(dir)} {
		v, err := s.Version(t.Context(), "c/0")
		if err != nil || v != "" {
			t.Fatalf("%v: missing key: %q, %v; want \"\", nil", s, v, err)
		}
		if err := s.Set(t.Context(), "c/0", []byte("one")); err != nil {
			t.Fatal(err)
		}
		v1, err := s.Version(t.Context(), "c/0")
		if err != nil || v1 == "" {
			t.Fatalf("%v: %q, %v", s, v1, err)
		}
		if again, _ := s.Version(t.Context(), "c/0"); again != v1 {
			t.Errorf("%v: version changed without a write: %q, %q", s, v1, again)
		}
		time.Sleep(2 * time.Millisecond) // coarse file system clocks
		if err := s.Set(t.Context(), "c/0", []byte("two")); err != nil {
			t.Fatal(err)
		}
		if v2, _ := s.Version(t.Context(), "c/0"); v2 == v1 || v2 == "" {
			t.Errorf("%v: same size, rewritten: version %q, was %q", s, v2, v1)
		}
		if _, err := s.Version(t.Context(), "../x"); err == nil {
			t.Errorf("%v: invalid key accepted", s)
		}
	}
	// A chunk key that is a directory is not a value.
	if err := os.MkdirAll(filepath.Join(dir, "c", "1"), 0o755); err != nil {
		t.Fatal(err)
	}
	if v, err := NewDir(dir).Version(t.Context(), "c/1"); err == nil {
		t.Errorf("directory at a key: version %q, no error", v)
	}
}

func TestDirSync(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "a.zarr")
	d := NewDir(dir)
	if err := d.Sync(t.Context()); err != nil {
		t.Errorf("sync of a store never written: %v", err)
	}
	if err := d.Set(t.Context(), "c/0/0", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(t.Context()); err != nil {
		t.Errorf("sync: %v", err)
	}
	if err := syncEveryDir(t.Context(), mustRoot(t, dir)); err != nil {
		t.Errorf("syncEveryDir (the path of systems without syncfs): %v", err)
	}
	nd := NewDir(filepath.Join(t.TempDir(), "scratch"))
	nd.NoSync = true
	if err := nd.Set(t.Context(), "k", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := nd.Sync(t.Context()); err != nil {
		t.Errorf("NoSync store: %v", err)
	}
}

func mustRoot(t *testing.T, dir string) *os.Root {
	r, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}
