package transcode_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/zarr-dt64/dt64/transcode"
)

// The same directory reached through another mount (here a bind mount of
// the source's parent; an NFS export mounted twice is alike) has another
// path however links are resolved: the directories themselves are
// compared. Once, a transcode into the other mount's copy of the source
// with Overwrite deleted every chunk of the source, and one into a
// directory inside it wrote there. Mounting needs root.
func TestOverlapBindMount(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a bind mount needs root")
	}
	dir := t.TempDir()
	m1, m2 := filepath.Join(dir, "m1"), filepath.Join(dir, "m2")
	src := overlapSource(t, m1)
	if err := os.Mkdir(m2, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount(m1, m2, "", syscall.MS_BIND, ""); err != nil {
		t.Skipf("bind mount: %v", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(m2, syscall.MNT_DETACH); err != nil { // the stores may hold it open
			t.Errorf("unmounting %s: %v", m2, err)
		}
	})
	before := treeHash(t, src)
	for _, c := range [][2]string{{"src.zarr", ""}, {"src.zarr/inner.zarr", ""}, {"src.zarr/x/y/z.zarr", ""}, {".", ""},
		{"src.zarr/time", "time"}, {"src.zarr/time/c/x", "time"}} {
		checkRefused(t, src, filepath.Join(m2, c[0]), c[1])
	}
	if treeHash(t, src) != before {
		t.Error("the source changed")
	}
	err := transcode.CheckOverlap(src, filepath.Join(m2, "src.zarr", "inner.zarr"))
	var oe *transcode.OverlapError
	if !errors.As(err, &oe) || oe.SameDestination != filepath.Join(m2, "src.zarr") || oe.SameSource != src ||
		!strings.Contains(err.Error(), filepath.Join(m2, "src.zarr")+" is the directory "+src) {
		t.Errorf("inside the source's other mount: %v", err)
	}
	err = transcode.CheckOverlap(src, m2)
	if !errors.As(err, &oe) || oe.SameDestination != m2 || oe.SameSource != m1 {
		t.Errorf("the other mount of the source's parent: %v", err)
	}
	for _, dst := range []string{"other.zarr", "a/b/c.zarr"} { // siblings, through the mount
		if err := transcode.CheckOverlap(src, filepath.Join(m2, dst)); err != nil {
			t.Errorf("%s: %v", dst, err)
		}
	}
}
