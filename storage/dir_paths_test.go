//go:build unix

package storage

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestDirPaths(t *testing.T) {
	withPaths(t, func(t *testing.T) {
		ctx := t.Context()
		dir := t.TempDir()
		outside := t.TempDir()
		if err := os.WriteFile(filepath.Join(outside, "secret"), []byte("no"), 0o644); err != nil {
			t.Fatal(err)
		}
		d := NewDir(dir)
		defer d.Close()
		for _, nosync := range []bool{false, true} {
			d.NoSync = nosync
			for _, key := range []string{"zarr.json", "c/0/1", "deep/er/still/0"} {
				want := []byte("value of " + key)
				if err := d.Set(ctx, key, want); err != nil {
					t.Fatalf("Set(%q): %v", key, err)
				}
				got, err := d.Get(ctx, key)
				if err != nil || !bytes.Equal(got, want) {
					t.Fatalf("Get(%q) = %q, %v; want %q", key, got, err, want)
				}
				if err := d.Set(ctx, key, []byte("x")); err != nil { // replaces
					t.Fatal(err)
				}
				if got, _ := d.Get(ctx, key); string(got) != "x" {
					t.Fatalf("Get(%q) after a second Set = %q", key, got)
				}
			}
		}
		// Nothing left behind but the values.
		var files []string
		_ = filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err == nil && !e.IsDir() {
				files = append(files, strings.TrimPrefix(p, dir+"/"))
			}
			return nil
		})
		if strings.Join(files, " ") != "c/0/1 deep/er/still/0 zarr.json" {
			t.Errorf("files in the store: %q", files)
		}

		// Missing keys, and keys under a file, do not exist.
		for _, key := range []string{"nope", "c/9/9", "zarr.json/0"} {
			if _, err := d.Get(ctx, key); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("Get(%q) = %v, want fs.ErrNotExist", key, err)
			}
			if v, err := d.Version(ctx, key); v != "" || err != nil {
				t.Errorf("Version(%q) = %q, %v; want \"\", nil", key, v, err)
			}
		}
		// A directory at a key is no value.
		if _, err := d.Get(ctx, "c/0"); err == nil || !strings.Contains(err.Error(), "a directory") {
			t.Errorf("Get of a directory: %v", err)
		}
		if _, err := d.Version(ctx, "c/0"); err == nil || !strings.Contains(err.Error(), "a directory") {
			t.Errorf("Version of a directory: %v", err)
		}

		// Symbolic links: one inside the store is followed, one leading
		// out of it is refused for reads and writes alike.
		if err := os.Symlink("0/1", filepath.Join(dir, "c", "link")); err != nil {
			t.Fatal(err)
		}
		if got, err := d.Get(ctx, "c/link"); err != nil || string(got) != "x" {
			t.Errorf("Get through a link inside the store = %q, %v", got, err)
		}
		if err := os.Symlink(outside, filepath.Join(dir, "out")); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "abs")); err != nil {
			t.Fatal(err)
		}
		for _, key := range []string{"out/secret", "abs"} {
			if got, err := d.Get(ctx, key); err == nil {
				t.Errorf("Get(%q) read %q outside the store", key, got)
			}
			if v, err := d.Version(ctx, key); err == nil && v != "" {
				t.Errorf("Version(%q) = %q: stat outside the store", key, v)
			}
		}
		if err := d.Set(ctx, "out/planted", []byte("no")); err == nil {
			t.Error("Set through a link leading out of the store succeeded")
		}
		if _, err := os.Stat(filepath.Join(outside, "planted")); err == nil {
			t.Error("a value was written outside the store")
		}

		// List holds the link to a value inside the store (Get reads it;
		// a copy that left it out would lose the value), not the links
		// leading out of it.
		all, err := d.List(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(all, " ") != "c/0/1 c/link deep/er/still/0 zarr.json" {
			t.Errorf("List = %q", all)
		}

		// Versions lists what Version says of every value under a prefix.
		for _, prefix := range []string{"", "c/", "deep/er/", "zarr"} {
			keys, err := d.List(ctx, prefix)
			if err != nil {
				t.Fatal(err)
			}
			vs, err := d.Versions(ctx, prefix)
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				if v, _ := d.Version(ctx, k); vs[k] != v || v == "" {
					t.Errorf("Versions(%q)[%q] = %q, Version %q", prefix, k, vs[k], v)
				}
			}
			for k := range vs {
				if !strings.HasPrefix(k, prefix) || strings.Contains(k, tempPrefix) {
					t.Errorf("Versions(%q) holds %q", prefix, k)
				}
			}
			if len(vs) < len(keys) {
				t.Errorf("Versions(%q) has %d keys, List %d", prefix, len(vs), len(keys))
			}
		}

		// ReadVersion is the version of the bytes read, as Version gives
		// it, once; and a missing key is remembered as "".
		d.TrackReadVersions()
		if _, err := d.Get(ctx, "c/0/1"); err != nil {
			t.Fatal(err)
		}
		v, _ := d.Version(ctx, "c/0/1")
		if rv, ok := d.ReadVersion("c/0/1"); !ok || rv != v || v == "" {
			t.Errorf("ReadVersion = %q, %v; Version %q", rv, ok, v)
		}
		if _, ok := d.ReadVersion("c/0/1"); ok {
			t.Error("ReadVersion handed the same version out twice")
		}
		_, _ = d.Get(ctx, "c/9/9")
		if rv, ok := d.ReadVersion("c/9/9"); !ok || rv != "" {
			t.Errorf("ReadVersion of a missing key = %q, %v; want \"\", true", rv, ok)
		}

		// The group commit renames through the same path.
		d.NoSync, d.FlushAhead = false, 4
		for i := range 10 {
			if err := d.Set(ctx, "g/"+string(rune('a'+i)), []byte{byte(i)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := d.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		keys, err := d.List(ctx, "g/")
		if err != nil || len(keys) != 10 {
			t.Errorf("List after the group commit = %q, %v", keys, err)
		}
		if temps, err := d.Temps(ctx); err != nil || len(temps) != 0 {
			t.Errorf("temporary files left: %v, %v", temps, err)
		}
	})
}

// TestDirReadRace: a value rewritten in place between the read and
// the version taken after it shows as another version, so the engine's
// check after a read notices the change.
func TestDirReadVersionAfterRewrite(t *testing.T) {
	withPaths(t, func(t *testing.T) {
		ctx := t.Context()
		dir := t.TempDir()
		d := NewDir(dir)
		defer d.Close()
		if err := d.Set(ctx, "c/0", []byte("first")); err != nil {
			t.Fatal(err)
		}
		before, _ := d.Version(ctx, "c/0")
		// Rewrite in place with a different size: same inode.
		f, err := os.OpenFile(filepath.Join(dir, "c", "0"), os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.Write([]byte(" and more")); err != nil {
			t.Fatal(err)
		}
		f.Close()
		d.TrackReadVersions()
		b, err := d.Get(ctx, "c/0")
		if err != nil || string(b) != "first and more" {
			t.Fatalf("Get = %q, %v", b, err)
		}
		if rv, _ := d.ReadVersion("c/0"); rv == before {
			t.Errorf("the version after a rewrite equals the one before: %q", rv)
		}
	})
}

// TestDirNoOpenat2Errno: the direct path reports errors as os.Root
// does, as *fs.PathError values that errors.Is matches.
func TestDirDirectErrors(t *testing.T) {
	withPaths(t, func(t *testing.T) {
		dir := t.TempDir()
		d := NewDir(dir)
		defer d.Close()
		if err := d.Set(t.Context(), "a", []byte("file")); err != nil {
			t.Fatal(err)
		}
		// A key below a file cannot be created.
		err := d.Set(t.Context(), "a/b", []byte("x"))
		if err == nil || !strings.Contains(err.Error(), "a") {
			t.Errorf("Set under a file = %v", err)
		}
		var pe *fs.PathError
		if _, err := d.Get(t.Context(), "missing"); !errors.As(err, &pe) && !errors.Is(err, syscall.ENOENT) {
			t.Errorf("Get of a missing key = %#v, want a *fs.PathError", err)
		}
	})
}
