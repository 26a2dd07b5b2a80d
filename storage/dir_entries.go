package storage

import (
	"context"
	"errors"
	"io/fs"
	"sort"
	"strings"
)

// Entries implements EntryLister. A symbolic link is what it points to
// inside the directory (as Get reads it); one that points outside, or
// nowhere, is not a value.
func (d *Dir) Entries(ctx context.Context, prefix string) ([]Entry, error) {
	d.ahead.waitAll()
	r, err := d.openRoot(false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var out []Entry
	err = fs.WalkDir(r.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if p == "." || isTempName(e.Name()) || !strings.HasPrefix(p, prefix) {
			return nil
		}
		mode := e.Type()
		var size int64
		if mode.IsRegular() || mode&fs.ModeSymlink != 0 {
			st, err := r.Stat(p) // follows a link, inside the root only
			if err != nil {
				out = append(out, Entry{Key: p, NotValue: "a symbolic link that leads nowhere inside the store"})
				return nil
			}
			mode, size = st.Mode(), st.Size()
		}
		if mode.IsRegular() {
			out = append(out, Entry{Key: p, Size: size})
		} else {
			out = append(out, Entry{Key: p, NotValue: fileKind(mode)})
		}
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, err
}

var _ EntryLister = (*Dir)(nil)
