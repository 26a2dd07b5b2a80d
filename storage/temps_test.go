package storage

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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
