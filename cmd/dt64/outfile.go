package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/zarr-dt64/dt64/objstore"
)

// An output file (cast's or export's OUT) is written to a temporary file
// beside it, named ".OUT.tmp-" and 16 hex digits (createTemp), held under
// an exclusive lock while it is written, and renamed into place. A
// process killed before the rename leaves the temporary file; the next
// write of the same OUT removes it, and only it: a file of that name
// pattern whose lock nobody holds (its writer is gone).

// tempPattern matches the temporary files createTemp makes for out.
func tempPattern(out string) *regexp.Regexp {
	return regexp.MustCompile(`^\.` + regexp.QuoteMeta(filepath.Base(out)) + `\.tmp-[0-9a-f]{16}$`)
}

// removeStaleTemps removes the temporary files a killed write of out left
// beside it, and returns how many.
func removeStaleTemps(out string) (int, error) {
	dir := filepath.Dir(out)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	pat, n := tempPattern(out), 0
	for _, e := range entries {
		if !e.Type().IsRegular() || !pat.MatchString(e.Name()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		removed, err := removeIfUnlocked(p)
		if err != nil {
			return n, fmt.Errorf("removing %s, left by an interrupted write of %s: %w", p, out, err)
		}
		if removed {
			n++
		}
	}
	return n, nil
}

// localFile is the local path a command's file argument arg (its role:
// IN, OUT) names: a path, or a file:// URL as a store location reads. Any
// other URL is a usage error saying so, with what, the files the
// command reads or writes: it would otherwise be taken for a path
// ("s3://b/x" for the directory "s3:", and the file "b/x" in it).
func localFile(role, arg, what string) (string, error) {
	switch objstore.Scheme(arg) {
	case "":
		return arg, nil
	case "file":
		if p := strings.TrimPrefix(arg[len("file://"):], "localhost"); p != "" {
			return p, nil
		}
		return "", usageError{fmt.Errorf("%s %s: no path (want file:///PATH)", role, arg)}
	}
	return "", usageError{fmt.Errorf("%s; %s %s is a URL", what, role, objstore.RedactURL(arg))}
}

// ExistsError is an OUT that exists where the command may not replace it.
type ExistsError struct{ Path string }

func (e *ExistsError) Error() string {
	return fmt.Sprintf("OUT %s exists; --overwrite replaces it", e.Path)
}

// publish gives the complete temporary file tmp (open, flushed as asked)
// the name out, atomically, and closes it. Unless replace, an existing out
// is never replaced, even one made since the command started: the file is
// linked to its name, which fails if the name exists.
// Where the temporary file is locked, it is renamed while still open, so
// the lock covers the whole life of the temporary name.
func publish(tmp *os.File, out string, replace bool) error {
	if closeBeforeRename {
		if err := tmp.Close(); err != nil {
			return err
		}
	}
	var err error
	if replace {
		err = os.Rename(tmp.Name(), out)
	} else {
		err = linkNew(tmp.Name(), out)
	}
	if !closeBeforeRename {
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// linkNew names the file old also new, failing if new exists, and removes
// the name old. Where the file system has no hard links it falls back to a
// rename after checking new does not exist.
func linkNew(old, new string) error {
	err := os.Link(old, new)
	switch {
	case errors.Is(err, fs.ErrExist):
		return &ExistsError{Path: new}
	case err == nil:
		return os.Remove(old)
	}
	if _, serr := os.Lstat(new); serr == nil {
		return &ExistsError{Path: new}
	}
	return os.Rename(old, new)
}
