package storage

import (
	"context"
	"fmt"
	"io"
	"io/fs"
)

// rangeOf resolves a GetRange request on a value of size bytes: the start
// offset, or an error naming the key when the value is too short.
func rangeOf(name string, off, n, size int64) (int64, error) {
	if n < 0 {
		return 0, fmt.Errorf("%s: range of %d bytes", name, n)
	}
	if off < 0 {
		off = size - n
	}
	if off < 0 || n > size-off {
		return 0, fmt.Errorf("%s: range [%d, %d) is outside the value's %d bytes: %w", name, off, off+n, size, io.ErrUnexpectedEOF)
	}
	return off, nil
}

// GetRange implements RangeGetter.
func (s *Memory) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	s.mu.RLock()
	v, ok := s.m[key]
	s.mu.RUnlock()
	if !ok {
		return nil, &fs.PathError{Op: "get", Path: key, Err: fs.ErrNotExist}
	}
	off, err := rangeOf(key, off, n, int64(len(v.b)))
	if err != nil {
		return nil, err
	}
	return append([]byte(nil), v.b[off:off+n]...), nil
}

// GetRange implements RangeGetter with one pread(2) of the file.
func (d *Dir) GetRange(ctx context.Context, key string, off, n int64) ([]byte, error) {
	if err := ValidKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.ahead.waitKey(ctx, key)
	r, err := d.openRoot(false)
	if err != nil {
		return nil, notExist(err)
	}
	f, err := r.OpenFile(key, readFlags, 0)
	if err != nil {
		return nil, notExist(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, d.notRegular(key, st.Mode())
	}
	if off, err = rangeOf(d.path+"/"+key, off, n, st.Size()); err != nil {
		return nil, err
	}
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, off); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF // the file shrank since Stat
		}
		return nil, fmt.Errorf("%s/%s: %w", d.path, key, err)
	}
	return buf, nil
}
