package zarr

import (
	"strconv"
	"strings"
)

// Parse inverts Key: the coordinates of an ndim-dimensional chunk that key
// names, if key is exactly what the encoding writes for them ("c/01" is
// not chunk 1, and "c/1/" is no chunk at all).
func (e KeyEncoding) Parse(key string, ndim int) ([]int64, bool) {
	rest := key
	if e.Name == "default" {
		if ndim == 0 {
			return []int64{}, key == "c"
		}
		if !strings.HasPrefix(key, "c"+e.Separator) {
			return nil, false
		}
		rest = key[1+len(e.Separator):]
	} else if ndim == 0 {
		return []int64{}, key == "0"
	}
	parts := strings.Split(rest, e.Separator)
	if len(parts) != ndim {
		return nil, false
	}
	coords := make([]int64, ndim)
	for i, p := range parts {
		if p == "" || strings.TrimLeft(p, "0123456789") != "" {
			return nil, false
		}
		v, err := strconv.ParseInt(p, 10, 64)
		if err != nil {
			return nil, false
		}
		coords[i] = v
	}
	return coords, e.Key(coords) == key
}

// ChunkOf returns the coordinates of the chunk (or shard) stored under
// key, and whether key is a chunk key of this array at all: written by
// its key encoding and inside its chunk grid.
func (a *Array) ChunkOf(key string) ([]int64, bool) {
	coords, ok := a.meta.KeyEncoding.Parse(key, len(a.grid.counts))
	if !ok {
		return nil, false
	}
	_, in := a.grid.Index(coords)
	return coords, in
}
