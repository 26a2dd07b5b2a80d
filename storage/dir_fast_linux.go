package storage

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// The direct path of a Dir on Linux: a key is resolved by one
// openat2(2) with RESOLVE_BENEATH, which the kernel refuses to let leave
// the store's directory (by "..", an absolute symbolic link or one that
// points outside), instead of os.Root's walk of one openat per path
// component; values are read with plain read(2) on the descriptor rather
// than through an os.File that first tries to register it with the
// network poller. A chunk read costs five system calls instead of about
// nine, a chunk written six instead of about twenty (README, "Zarr
// support"): for an array of small chunks those calls are the run's time. Where openat2 is
// missing (Linux before 5.6) or refused (a seccomp filter), the store
// goes on through os.Root.

// openDirect opens the store's directory for the direct path (called by
// openRoot with d.mu held); -1 when the path is off.
func openDirect(dir string) int {
	if noOpenat2.Load() {
		return -1
	}
	fd, err := unix.Open(dir, unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1
	}
	return fd
}

func closeDirect(fd int) {
	if fd >= 0 {
		_ = unix.Close(fd)
	}
}

// direct returns the store directory's descriptor, or false when the
// direct path is off.
func (d *Dir) direct() (int, bool) {
	if noOpenat2.Load() {
		return -1, false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dirfd, d.root != nil && d.dirfd >= 0
}

// maxBeneathRaces is how many times beneath retries an openat2 that a
// concurrent rename raced (EAGAIN) before handing the name to os.Root (a
// variable for the test of that hand-over).
var maxBeneathRaces = 8

// beneath opens name (a key, or a directory of keys) under the store's
// directory. ok is false when the direct path is off, just turned off
// because openat2 is unavailable, or when renames elsewhere kept racing
// this name's resolution: the caller then takes os.Root's.
func (d *Dir) beneath(name string, flags int, mode uint32) (fd int, ok bool, err error) {
	root, ok := d.direct()
	if !ok {
		return -1, false, nil
	}
	how := unix.OpenHow{Flags: uint64(flags | unix.O_CLOEXEC), Mode: uint64(mode), Resolve: unix.RESOLVE_BENEATH}
	for races := 0; ; {
		fd, err = unix.Openat2(root, name, &how)
		if err == unix.EAGAIN {
			// A rename anywhere on the machine raced the kernel's check
			// that a ".." (in a key's symbolic link) stays beneath the
			// store: openat2(2) says to retry. Past a few races, os.Root
			// resolves this one name (it walks the link itself).
			if races++; races > maxBeneathRaces {
				return -1, false, nil
			}
			continue
		}
		if err != unix.EINTR {
			break
		}
	}
	if err == unix.ENOSYS || err == unix.EPERM && openat2Refused(root) {
		// No openat2 here, or a filter refusing it: os.Root's path for
		// the rest of the process.
		noOpenat2.Store(true)
		return -1, false, nil
	}
	if err != nil {
		return -1, true, d.pathErr("open", name, err)
	}
	return fd, true, nil
}

// openat2Refused tells a seccomp filter's EPERM for openat2 from a
// file's own: an openat2 of the store's directory itself is refused too.
func openat2Refused(root int) bool {
	fd, err := unix.Openat2(root, ".", &unix.OpenHow{Flags: unix.O_PATH | unix.O_CLOEXEC, Resolve: unix.RESOLVE_BENEATH})
	if err != nil {
		return err == unix.EPERM || err == unix.ENOSYS
	}
	_ = unix.Close(fd)
	return false
}

// pathErr is err as os.Root reports it: a *fs.PathError naming the file,
// wrapping the errno (so errors.Is(err, fs.ErrNotExist) holds), with
// ENOTDIR (a path component is a file) as not existing, and an escape
// refused by RESOLVE_BENEATH named as such.
func (d *Dir) pathErr(op, name string, err error) error {
	if err == unix.EXDEV {
		return &os.PathError{Op: op, Path: d.path + "/" + name, Err: errors.New("path escapes from the store's directory")}
	}
	return notExist(&os.PathError{Op: op, Path: d.path + "/" + name, Err: err})
}

// getDirect is GetInto's direct path; ok is false when it is off. With
// version tracking on (TrackReadVersions), the value's version is taken
// from the open file after the read, so it is the version of exactly the
// bytes returned.
func (d *Dir) getDirect(key string, buf []byte, limit int) (b []byte, ok bool, err error) {
	fd, ok, err := d.beneath(key, unix.O_RDONLY|unix.O_NONBLOCK, 0)
	if !ok || err != nil {
		return nil, ok, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := statFd(fd, &st); err != nil {
		return nil, true, d.pathErr("stat", key, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, true, d.notRegular(key, modeOf(st.Mode))
	}
	tracking := d.reads.Tracking()
	b, err = d.readValue(key, st.Size, buf, limit, tracking, func(p []byte) (int, error) {
		for {
			m, err := unix.Read(fd, p)
			if err == unix.EINTR {
				continue
			}
			if err != nil {
				return 0, d.pathErr("read", key, err)
			}
			return m, nil
		}
	})
	if err != nil || !tracking {
		return b, true, err
	}
	// The version of exactly the bytes read, its size telling a file that
	// grew or shrank (readValue stopped at the size it was opened with).
	if err := statFd(fd, &st); err != nil {
		return nil, true, d.pathErr("stat", key, err)
	}
	if st.Size != int64(len(b)) {
		return nil, true, fmt.Errorf("%s/%s changed size while being read", d.path, key)
	}
	d.reads.Remember(key, statVersion(&st))
	return b, true, nil
}

// modeOf is the fs.FileMode type bits of a stat mode, for fileKind.
func modeOf(m uint32) os.FileMode {
	switch m & unix.S_IFMT {
	case unix.S_IFDIR:
		return os.ModeDir
	case unix.S_IFIFO:
		return os.ModeNamedPipe
	case unix.S_IFSOCK:
		return os.ModeSocket
	case unix.S_IFCHR:
		return os.ModeDevice | os.ModeCharDevice
	case unix.S_IFBLK:
		return os.ModeDevice
	case unix.S_IFLNK:
		return os.ModeSymlink
	}
	return os.ModeIrregular
}

// versionDirect is Version's direct path.
func (d *Dir) versionDirect(key string) (v string, ok bool, err error) {
	fd, ok, err := d.beneath(key, unix.O_PATH, 0)
	if !ok {
		return "", false, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return "", true, nil
	}
	if err != nil {
		return "", true, err
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := statFd(fd, &st); err != nil {
		return "", true, d.pathErr("stat", key, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return "", true, d.notRegular(key, modeOf(st.Mode))
	}
	return statVersion(&st), true, nil
}

// statVersion is the version (versionString) of the file st describes.
func statVersion(st *unix.Stat_t) string { return versionString(st.Size, st.Mtim.Nano(), st.Ino) }

// createDirect creates t's temporary file (t.tmp, for t.key) in the key's
// directory (made when missing), on the direct path. The directory stays
// open (t.dirfd) for the rename, so the name is not resolved again.
func (d *Dir) createDirect(r *os.Root, t *tempValue) (ok bool, err error) {
	dir := path.Dir(t.key)
	dfd, ok, err := d.beneath(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
	if ok && errors.Is(err, os.ErrNotExist) && dir != "." {
		if err = r.MkdirAll(dir, 0o755); err == nil {
			dfd, ok, err = d.beneath(dir, unix.O_PATH|unix.O_DIRECTORY, 0)
		}
	}
	if !ok || err != nil {
		return ok, err
	}
	var fd int
	for {
		fd, err = unix.Openat(dfd, path.Base(t.tmp), unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o644)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		_ = unix.Close(dfd)
		return true, d.pathErr("open", t.tmp, err)
	}
	t.fd, t.dirfd, t.name = fd, dfd, d.path+"/"+t.tmp
	return true, nil
}

func (t *tempValue) writeDirect(b []byte) error {
	for len(b) > 0 {
		n, err := unix.Write(t.fd, b)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return &os.PathError{Op: "write", Path: t.name, Err: err}
		}
		b = b[n:]
	}
	return nil
}

func (t *tempValue) syncDirect() error {
	if err := unix.Fdatasync(t.fd); err != nil {
		return &os.PathError{Op: "sync", Path: t.name, Err: err}
	}
	return nil
}

func (t *tempValue) closeFileDirect() error {
	err := unix.Close(t.fd)
	t.fd = -1
	if err != nil {
		return &os.PathError{Op: "close", Path: t.name, Err: err}
	}
	return nil
}

// renameDirect renames t into place in its open directory.
func (t *tempValue) renameDirect() error {
	err := unix.Renameat(t.dirfd, path.Base(t.tmp), t.dirfd, path.Base(t.key))
	if err != nil {
		err = &os.LinkError{Op: "rename", Old: t.name, New: strings.TrimSuffix(t.name, t.tmp) + t.key, Err: err}
	}
	return err
}

func (t *tempValue) removeDirect() { _ = unix.Unlinkat(t.dirfd, path.Base(t.tmp), 0) }

func (t *tempValue) closeDir() {
	if t.dirfd >= 0 {
		_ = unix.Close(t.dirfd)
		t.dirfd = -1
	}
}

// existsDirect reports, on the direct path, whether t's temporary file is
// still there.
func (t *tempValue) existsDirect() bool {
	var st unix.Stat_t
	return unix.Fstatat(t.dirfd, path.Base(t.tmp), &st, unix.AT_SYMLINK_NOFOLLOW) != syscall.ENOENT
}

// walkDirect is walk's direct path from directory start; ok is false when
// the path is off.
func (d *Dir) walkDirect(ctx context.Context, start string, f func(p string, e walkEntry) error) (ok bool, err error) {
	fd, ok, err := d.beneath(start, unix.O_RDONLY|unix.O_DIRECTORY, 0)
	if !ok {
		return false, nil
	}
	if errors.Is(err, os.ErrNotExist) {
		return true, nil // nothing under the prefix
	}
	if err != nil {
		return true, err
	}
	return true, d.walkFd(ctx, start, fd, f)
}

// walkFd walks the open directory fd (dir in the store) and closes it.
// The directory file is not one of an os.Root, so reading it takes the
// entries' types from the directory itself (d_type), without a stat.
func (d *Dir) walkFd(ctx context.Context, dir string, fd int, f func(p string, e walkEntry) error) error {
	file := os.NewFile(uintptr(fd), d.path+"/"+dir)
	defer file.Close()
	ents, err := file.ReadDir(-1)
	if errors.Is(err, syscall.ENOENT) {
		// Removed between its opening and its reading: Linux reads a
		// removed directory as ENOENT, and it holds no keys.
		return nil
	}
	if err != nil {
		return err
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	for _, e := range ents {
		if err := ctx.Err(); err != nil {
			return err
		}
		p := e.Name()
		if dir != "." {
			p = dir + "/" + p
		}
		if e.IsDir() {
			cfd, err := unix.Openat(fd, e.Name(), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			if err == unix.ENOENT {
				continue // removed while the walk ran (a concurrent cleanup)
			}
			if err != nil {
				return d.pathErr("open", p, err)
			}
			if err := d.walkFd(ctx, p, cfd, f); err != nil {
				return err
			}
			continue
		}
		if err := f(p, walkEntry{name: e.Name(), typ: e.Type(), dirfd: fd}); err != nil {
			return err
		}
	}
	return nil
}

// versionDirect stats the entry in the directory it was read from.
func (e walkEntry) versionDirect() (string, bool, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(e.dirfd, e.name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		if err == unix.ENOENT {
			return "", false, nil
		}
		return "", false, &os.PathError{Op: "stat", Path: e.name, Err: err}
	}
	return statVersion(&st), true, nil
}

// statFd stats an open file with fstatat(fd, "", AT_EMPTY_PATH), the
// call a stat by name makes, rather than fstat: versions from the two
// must agree, and some emulators (qemu-user for s390x) drop the
// nanoseconds of fstat's times.
func statFd(fd int, st *unix.Stat_t) error {
	return unix.Fstatat(fd, "", st, unix.AT_EMPTY_PATH)
}
