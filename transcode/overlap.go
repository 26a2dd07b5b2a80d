package transcode

import (
	"fmt"
	"path/filepath"
	"strings"
)

// OverlapError is a destination that is the source, lies inside it or
// contains it, once symbolic links are resolved: writing it (or wiping it)
// would change the source, which is never modified.
type OverlapError struct {
	Source, Destination string // as given
	// RealSource and RealDestination are the resolved paths compared
	// (the URLs themselves for object stores).
	RealSource, RealDestination string
}

func (e *OverlapError) Error() string {
	via := ""
	if e.RealDestination != absPath(e.Destination) || e.RealSource != absPath(e.Source) {
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
// first directory is made. Every command that writes (transcode, its
// finalize, export, cast) checks through here.
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
	return nil
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
// made under it.
func RealPath(p string) string {
	a := absPath(p)
	var rest []string
	for dir := a; ; {
		r, err := filepath.EvalSymlinks(dir)
		if err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return a
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
		dir = parent
	}
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
