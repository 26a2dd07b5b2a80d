package storage

import (
	"errors"
	"fmt"
	"path"
	"strings"
)

// ErrNoRanges is a RangeGetter's answer when it stands for a store that
// cannot read ranges (a Sub view of one): the caller reads the whole value.
var ErrNoRanges = errors.New("the store reads no ranges")

// Name is s's name for messages: its String(), or "" for a store without
// one.
func Name(s Store) string {
	if st, ok := s.(fmt.Stringer); ok {
		return st.String()
	}
	return ""
}

// Join names keys of the store named name (Name's result) in messages: the
// keys joined as a path, after the name. A URL's "//" is kept, where
// path.Join would make "s3://bkt" "s3:/bkt".
func Join(name string, keys ...string) string {
	k := path.Join(keys...)
	if !strings.Contains(name, "://") {
		return path.Join(name, k)
	}
	if k == "" {
		return name
	}
	return strings.TrimSuffix(name, "/") + "/" + k
}
