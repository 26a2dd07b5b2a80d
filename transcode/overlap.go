package transcode

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
)

// OverlapError is a destination that is the source, lies inside it or
// contains it, once symbolic links are resolved, or as the directories
// themselves show: writing it (or wiping it) would change the source,
// which is never modified.
type OverlapError struct {
	Source, Destination string // as given
	// RealSource and RealDestination are the resolved paths compared
	// (the URLs themselves for object stores).
	RealSource, RealDestination string
	// SameDestination and SameSource, when set, are one directory (the
	// same device and inode) that the resolved paths do not show as one:
	// the destination or a directory above it, and the source or a
	// directory above it, reached through another mount of the same
	// directory (a bind mount, a network file system mounted twice) or a
	// name the file system does not tell apart from the other's.
	SameDestination, SameSource string
}

func (e *OverlapError) Error() string {
	via := ""
	switch {
	case e.SameDestination != "":
		via = fmt.Sprintf(" (%s is the directory %s, reached by another path: another mount of it, or a name the file system takes for the same)", e.SameDestination, e.SameSource)
	case e.RealDestination != absPath(e.Destination) || e.RealSource != absPath(e.Source):
		via = fmt.Sprintf(" (%s and %s once links are resolved)", e.RealDestination, e.RealSource)
	}
	return fmt.Sprintf("destination %s and source %s overlap%s; the source is never modified", e.Destination, e.Source, via)
}

func (e *OverlapError) Unwrap() error { return ErrPlan }

// CheckOverlap refuses a destination that is the source, lies inside it or
// contains it. Both are local paths (or file:// URLs) or both URLs
// ("s3://bucket/prefix"); a path and a remote URL never overlap. Each local path is compared through its
// deepest existing ancestor with symbolic links resolved, so a destination
// several new levels below a link into the source is caught before the
// first directory is made. The directories themselves are compared too
// (sameDirectory): the same directory reached through another mount has
// another path however links are resolved. Every command that writes
// (transcode, its finalize, export, cast) checks through here.
func CheckOverlap(src, dst string) error {
	src, dst = strings.TrimPrefix(src, "file://"), strings.TrimPrefix(dst, "file://")
	if strings.Contains(src, "://") || strings.Contains(dst, "://") {
		if !strings.Contains(src, "://") || !strings.Contains(dst, "://") {
			return nil
		}
		if nested(src, dst, "/") {
			return &OverlapError{Source: src, Destination: dst, RealSource: src, RealDestination: dst}
		}
		return nil
	}
	sp, dp := RealPath(src), RealPath(dst)
	if nested(sp, dp, string(filepath.Separator)) {
		return &OverlapError{Source: src, Destination: dst, RealSource: sp, RealDestination: dp}
	}
	if d, s, ok := sameDirectory(sp, dp); ok {
		return &OverlapError{Source: src, Destination: dst, RealSource: sp, RealDestination: dp, SameDestination: d, SameSource: s}
	}
	return nil
}

// sameDirectory compares directories where paths cannot: the resolved
// destination dp (RealPath) or, when it does not exist yet, its deepest
// existing ancestor, and every directory above it, with the resolved
// source sp; and the destination, if it exists, with every directory
// above the source. It returns the first pair that is one directory
// (os.SameFile: the same device and inode), the destination's side
// first. Resolved paths hold no links, so each directory above one is its
// parent (within the mount namespace: a directory bind-mounted elsewhere
// has that mount point's parent, so a destination inside a bind mount of
// a subdirectory of the source is not found).
func sameDirectory(sp, dp string) (dstSide, srcSide string, found bool) {
	si, err := os.Stat(sp)
	if err != nil {
		return "", "", false // no source: nothing to protect
	}
	var di os.FileInfo // the destination itself, if it exists
	for x := dp; ; {
		if xi, err := os.Stat(x); err == nil {
			if x == dp {
				di = xi
			}
			if os.SameFile(xi, si) {
				return x, sp, true
			}
		}
		parent := filepath.Dir(x)
		if parent == x {
			break
		}
		x = parent
	}
	if di == nil {
		return "", "", false
	}
	for y := filepath.Dir(sp); ; {
		if yi, err := os.Stat(y); err == nil && os.SameFile(yi, di) {
			return dp, y, true
		}
		parent := filepath.Dir(y)
		if parent == y {
			break
		}
		y = parent
	}
	return "", "", false
}

// nested reports whether a and b are equal or one lies inside the other.
func nested(a, b, sep string) bool {
	a, b = strings.TrimSuffix(a, sep), strings.TrimSuffix(b, sep)
	in := func(x, y string) bool { return x == y || strings.HasPrefix(x, y+sep) || y == "" }
	return in(a, b) || in(b, a)
}

// RealPath is p made absolute with every symbolic link resolved, as far as
// it exists: the deepest existing ancestor is resolved and the components
// that do not exist yet are joined to it, as the directories that will be
// made under it. A ".." is resolved where the system takes it, after the
// link before it: "link/.." is the parent of link's target, as the
// destination store opens it, not the directory holding link.
func RealPath(p string) string {
	a := rawAbs(p)
	var rest []string
	for dir := a; ; {
		r, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent, base := splitLast(dir)
		if parent == dir {
			return absPath(p)
		}
		rest = append([]string{base}, rest...)
		dir = parent
	}
}

// rawAbs is p made absolute without cleaning it: its ".." components are
// left for filepath.EvalSymlinks, which resolves each after the links
// before it, as the system does. Windows cleans a path before opening
// it: there p is cleaned too.
func rawAbs(p string) string {
	if runtime.GOOS == "windows" {
		return absPath(p)
	}
	if filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return absPath(p)
	}
	return wd + string(filepath.Separator) + p
}

// splitLast splits the absolute path p before its last component without
// cleaning it (filepath.Dir would take "link/.." for the directory holding
// link); at the root parent is p itself.
func splitLast(p string) (parent, base string) {
	vol := len(filepath.VolumeName(p))
	end := len(p)
	for end > vol+1 && os.IsPathSeparator(p[end-1]) {
		end--
	}
	i := end - 1
	for i >= vol && !os.IsPathSeparator(p[i]) {
		i--
	}
	if i < vol || end <= vol+1 {
		return p, "" // the root, or no separator left
	}
	if i == vol {
		return p[:vol+1], p[i+1 : end]
	}
	return p[:i], p[i+1 : end]
}

func absPath(p string) string {
	if strings.Contains(p, "://") {
		return p
	}
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
