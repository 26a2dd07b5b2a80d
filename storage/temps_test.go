package storage

import (
	"context"
	"os"
	"path/filepath"
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
