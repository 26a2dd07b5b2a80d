package storage

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// plainStore is a Store with none of the optional interfaces.
type plainStore struct{ Store }

func TestSub(t *testing.T) {
	ctx := context.Background()
	m := NewMemory()
	for _, k := range []string{"a/zarr.json", "a/b/c/0", "a/b/zarr.json", "ab/x", "z"} {
		_ = m.Set(ctx, k, []byte(k))
	}
	s, err := Sub(m, "a")
	if err != nil {
		t.Fatal(err)
	}
	keys, _ := s.List(ctx, "")
	if want := []string{"b/c/0", "b/zarr.json", "zarr.json"}; !slices.Equal(keys, want) {
		t.Errorf("List %q, want %q", keys, want)
	}
	keys, _ = s.List(ctx, "b/c")
	if want := []string{"b/c/0"}; !slices.Equal(keys, want) {
		t.Errorf("List(b/c) %q, want %q", keys, want)
	}
	if b, err := s.Get(ctx, "b/zarr.json"); err != nil || string(b) != "a/b/zarr.json" {
		t.Errorf("Get %q %v", b, err)
	}
	ss, _ := Sub(s, "b")
	if b, err := ss.Get(ctx, "c/0"); err != nil || string(b) != "a/b/c/0" || Name(ss) != "memory/a/b" {
		t.Errorf("Sub of a Sub: %q %v, named %q", b, err, Name(ss))
	}
	_ = ss.Set(ctx, "c/1", []byte("new"))
	if b, _ := m.Get(ctx, "a/b/c/1"); string(b) != "new" {
		t.Errorf("Set through the view stored %q", b)
	}
	_ = ss.Delete(ctx, "c/1")
	if _, err := m.Get(ctx, "a/b/c/1"); err == nil {
		t.Error("Delete through the view left the key")
	}
	v, ok := ss.(Versioner)
	if !ok {
		t.Fatal("view of a Memory is no Versioner")
	}
	if got, _ := v.Version(ctx, "c/0"); got == "" {
		t.Error("no version for a stored key")
	}
	if _, ok := ss.(Syncer); ok {
		t.Error("view of a Memory is a Syncer")
	}
	if _, ok := ss.(interface{ Unwrap() Store }); ok {
		t.Error("view can be unwrapped to the whole store")
	}
	for _, bad := range []string{"../a", "a/../b", "/a", "a//b", "a/"} {
		if _, err := Sub(m, bad); !errors.Is(err, ErrInvalidKey) {
			t.Errorf("Sub(%q): %v", bad, err)
		}
	}
	if _, err := s.Get(ctx, "../z"); !errors.Is(err, ErrInvalidKey) {
		t.Errorf("Get(../z) through the view: %v", err)
	}
	if same, _ := Sub(m, ""); same != Store(m) {
		t.Error("Sub(store, \"\") is not the store")
	}

	d, _ := Sub(NewDir(t.TempDir()), "x")
	if _, ok := d.(Syncer); !ok {
		t.Error("view of a Dir is no Syncer")
	}
	if _, ok := d.(Versioner); !ok {
		t.Error("view of a Dir is no Versioner")
	}
	p, _ := Sub(plainStore{m}, "a")
	if _, ok := p.(Versioner); ok {
		t.Error("view of a plain store is a Versioner")
	}
	if _, err := p.(BufferGetter).GetInto(ctx, "zarr.json", nil, 3); !errors.Is(err, ErrTooLarge) {
		t.Errorf("GetInto over the limit: %v", err)
	}
	if b, err := p.(BufferGetter).GetInto(ctx, "zarr.json", nil, 100); err != nil || string(b) != "a/zarr.json" {
		t.Errorf("GetInto: %q %v", b, err)
	}
}

// TestSubOfWrapper: a Sub of a user's wrapper keeps the capabilities of the
// store inside it (found through Unwrap), with keys under the node.
func TestSubOfWrapper(t *testing.T) {
	ctx := context.Background()
	d := NewDir(t.TempDir())
	defer d.Close()
	if err := d.Set(ctx, "g/a/c/0", []byte("0123456789")); err != nil {
		t.Fatal(err)
	}
	s, err := Sub(unwrapping{d}, "g/a")
	if err != nil {
		t.Fatal(err)
	}
	v, ok := s.(Versioner)
	if !ok {
		t.Fatal("Sub of a wrapped Dir is no Versioner")
	}
	if ver, err := v.Version(ctx, "c/0"); err != nil || ver == "" {
		t.Errorf("Version(c/0) = %q, %v", ver, err)
	}
	if _, ok := s.(Syncer); !ok {
		t.Error("Sub of a wrapped Dir is no Syncer")
	}
	b, err := s.(RangeGetter).GetRange(ctx, "c/0", 2, 3)
	if err != nil || string(b) != "234" {
		t.Errorf("GetRange = %q, %v", b, err)
	}
}

type unwrapping struct{ Store }

func (u unwrapping) Unwrap() Store { return u.Store }
