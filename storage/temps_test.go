package storage

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A process killed inside Set leaves a temporary file: Temps finds it with
// the key it was for, Get and List ignore it, and RemoveTemp deletes only
// such files.
func TestDirTemps(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := NewDir(dir)
	if temps, err := s.Temps(ctx); err != nil || len(temps) != 0 {
		t.Fatalf("empty store: %v, %v", temps, err)
	}
	if err := s.Set(ctx, "c/0/1", []byte("value")); err != nil {
		t.Fatal(err)
	}
	stray := filepath.Join(dir, "c", "0", tempPrefix+"0123456789abcdef-2")
	if err := os.WriteFile(stray, []byte("torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	temps, err := s.Temps(ctx)
	if err != nil || len(temps) != 1 || temps["c/0/"+tempPrefix+"0123456789abcdef-2"] != "c/0/2" {
		t.Fatalf("Temps: %v, %v", temps, err)
	}
	if keys, _ := s.List(ctx, ""); len(keys) != 1 || keys[0] != "c/0/1" {
		t.Errorf("List shows %v", keys)
	}
	for _, bad := range []string{"c/0/1", "../x/" + tempPrefix + "1-2", "c/0"} {
		if err := s.RemoveTemp(bad); err == nil {
			t.Errorf("RemoveTemp(%q) accepted", bad)
		}
	}
	if _, err := s.Get(ctx, "c/0/1"); err != nil {
		t.Errorf("a refused RemoveTemp removed the value: %v", err)
	}
	for p := range temps {
		if err := s.RemoveTemp(p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Errorf("temporary file still there: %v", err)
	}
	if temps, err := NewDir(filepath.Join(dir, "missing")).Temps(ctx); err != nil || len(temps) != 0 {
		t.Errorf("missing directory: %v, %v", temps, err)
	}
}

// Only the names Set gives its temporary files are temporary: a user's
// file that merely starts with the prefix is listed as a key and never
// removed as a temporary file.
func TestIsTempName(t *testing.T) {
	for name, want := range map[string]bool{
		tempPrefix + "0123456789abcdef-1":     true,
		tempPrefix + "0123456789abcdef-c.0.1": true,
		tempPrefix + "0123456789abcdef-":      false, // no base name
		tempPrefix + "0123456789ABCDEF-1":     false, // Set writes lower case
		tempPrefix + "0123abcd-3":             false,
		tempPrefix + "notes":                  false,
		".dt64-notes.txt":                     false,
		"0":                                   false,
	} {
		if got := isTempName(name); got != want {
			t.Errorf("isTempName(%q) = %v, want %v", name, got, want)
		}
	}
	dir := t.TempDir()
	d := NewDir(dir)
	if err := d.Set(context.Background(), "a/0", []byte("x")); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(dir, "a", tempPrefix+"notes")
	if err := os.WriteFile(mine, []byte("mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	temps, err := d.Temps(context.Background())
	if err != nil || len(temps) != 0 {
		t.Fatalf("Temps: %v, %v; want none", temps, err)
	}
	if err := d.RemoveTemp("a/" + tempPrefix + "notes"); err == nil {
		t.Fatal("RemoveTemp removed a file Set did not write")
	}
	if keys, _ := d.List(context.Background(), "a/"); !slices.Contains(keys, "a/"+tempPrefix+"notes") {
		t.Fatalf("List: %v; want the user's file listed", keys)
	}
}

// A temporary file RemoveTemp cannot remove fails with an error that
// names the store's directory, not only the path inside it (a resume into
// a read-only destination said "removeat .dt64-tmp-…: read-only file
// system"). Here its directory was replaced by a link out of the store,
// which the store refuses to follow, root or not.
func TestDirRemoveTempErrorNamesStore(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "dst.zarr")
	s := NewDir(dir)
	if err := s.Set(ctx, "c/0/1", []byte("value")); err != nil {
		t.Fatal(err)
	}
	name := tempPrefix + "0123456789abcdef-2"
	if err := os.WriteFile(filepath.Join(dir, "c", "0", name), []byte("torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	temps, err := s.Temps(ctx)
	if err != nil || len(temps) != 1 {
		t.Fatalf("Temps: %v, %v", temps, err)
	}
	outside := t.TempDir()
	if err := os.Rename(filepath.Join(dir, "c"), filepath.Join(outside, "c")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "c"), filepath.Join(dir, "c")); err != nil {
		t.Fatal(err)
	}
	err = s.RemoveTemp("c/0/" + name)
	if want := dir + "/c/0/" + name; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("RemoveTemp: %v, want an error naming %s", err, want)
	}
	if _, serr := os.Stat(filepath.Join(outside, "c", "0", name)); serr != nil {
		t.Errorf("the file outside the store was removed: %v", serr)
	}
}

// A store directory that is a symbolic link to nothing (or lies under
// one) cannot be made: the error says so, naming the link and its
// target, where MkdirAll's said "mkdir DIR: file exists" of a name that
// does not exist.
func TestDirDanglingLink(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	link := filepath.Join(dir, "dlink")
	if err := os.Symlink(missing, link); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ store, want string }{
		{link, link + " is a symbolic link to " + missing + ", which does not exist"},
		{filepath.Join(link, "a", "b.zarr"), filepath.Join(link, "a", "b.zarr") + ": " + link + " is a symbolic link to " + missing + ", which does not exist"},
	} {
		err := NewDir(c.store).Set(ctx, "zarr.json", []byte("{}"))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("store %s: %v, want %q", c.store, err, c.want)
		}
	}
	if _, err := os.Lstat(missing); !os.IsNotExist(err) {
		t.Errorf("the link's target was made: %v", err)
	}
}
