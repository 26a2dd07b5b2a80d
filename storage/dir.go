package storage

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"unicode/utf8"
)

// tempPrefix starts the name of a value being written by Dir.Set. A
// leading dot keeps it out of every chunk key encoding, and List skips it.
const tempPrefix = ".dt64-tmp-"

// isTempName reports whether a file name is one Set gives a value being
// written: tempPrefix, 16 hex digits, "-", the key's base name. Only such
// names are hidden from List and removed as temporary: a user's file that
// merely starts with tempPrefix is neither.
func isTempName(name string) bool {
	rest, ok := strings.CutPrefix(name, tempPrefix)
	if !ok || len(rest) < 18 || rest[16] != '-' {
		return false
	}
	for _, c := range rest[:16] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// tempBase is the key's base name as its temporary file's name holds it:
// cut at a character boundary where the whole would not fit in a file
// name (255 bytes), so a key of a base name up to 255 bytes can be set;
// Temps then reports the key so cut.
func tempBase(base string) string {
	n := 255 - len(tempPrefix) - 17
	if len(base) <= n {
		return base
	}
	for n > 0 && !utf8.RuneStart(base[n]) {
		n--
	}
	return base[:n]
}

// Dir is a Store in a local directory: key "c/0/1" is the file
// DIR/c/0/1. All access goes through an os.Root, so no key (and no
// symbolic link inside the directory) can reach a file outside it.
//
// Set writes a temporary file in the key's directory, flushes it to disk
// (fdatasync on Linux, fsync elsewhere) and renames it into place, so readers never see a partial value and, once
// the rename is durable, neither does anyone after a crash. Sync makes the
// renames durable (see Syncer). Versions (Versioner) are a file's size and
// modification time in nanoseconds.
type Dir struct {
	path string
	// NoSync skips the fsync of each value before its rename, and makes
	// Sync do nothing: for scratch output. Faster, but after a power loss
	// or an OS crash, values written shortly before may be missing, empty
	// or torn, whatever was synced.
	NoSync bool
	// FlushAhead, when above zero, lets Set return as soon as a value is
	// in its temporary file: the flush to disk and the rename into place
	// finish in the background, in batches of up to FlushAhead values
	// made durable together (one syncfs on Linux: one journal commit and
	// one device flush for the batch, instead of one per value), so that
	// the caller's next work overlaps the disk's. Each value is still on
	// disk before its rename. A key still in flight is waited
	// for by Get, GetInto, Version, Delete and Set of that key; List,
	// Entries, Temps, Sync and Close wait for every value. The error of a
	// background flush or rename (naming the key) is returned by the next
	// Sync or Close and by every later Set: a caller that never calls
	// either would not see it, and must call one of them before another
	// Dir opens the same directory. Ignored with NoSync, where the
	// rename is all there is to do.
	FlushAhead int

	mu      sync.Mutex
	root    *os.Root
	dirfd   int // the directory for the direct path (Linux), or -1; valid while root is open
	cleanup runtime.Cleanup

	ahead flushAhead
	reads ReadVersions // versions of the values GetInto read, once tracked
}

// noOpenat2 turns the direct path (store_dir_fast_linux.go) off, for
// every store of the process: set once openat2 proved unavailable, and by
// a test to run os.Root's path.
var noOpenat2 atomic.Bool

// Dir returns the store rooted at directory path. The directory is opened
// on first use and created by the first Set, and stays open (one or two
// file descriptors) until Close: a program that opens many stores should
// Close each when done. An unreachable Dir's descriptors are closed by
// the garbage collector, whenever it runs.
func NewDir(path string) *Dir { return &Dir{path: path} }

// dirHandles are what an open Dir holds, closed by Close or, once the Dir
// is unreachable, by its cleanup.
type dirHandles struct {
	root  *os.Root
	dirfd int
}

func (h dirHandles) close() {
	h.root.Close()
	closeDirect(h.dirfd)
}

// String returns the directory path; it names the array in errors.
func (d *Dir) String() string { return d.path }

// Close releases the directory handle. The store reopens it if used again.
func (d *Dir) Close() error {
	werr := d.ahead.wait()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.root == nil {
		return werr
	}
	d.cleanup.Stop()
	err := d.root.Close()
	d.root = nil
	closeDirect(d.dirfd)
	d.dirfd = -1
	if werr != nil {
		return werr
	}
	return err
}

func (d *Dir) openRoot(create bool) (*os.Root, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.root != nil {
		return d.root, nil
	}
	if create {
		if err := os.MkdirAll(d.path, 0o755); err != nil {
			return nil, danglingLink(d.path, err)
		}
	}
	r, err := os.OpenRoot(d.path)
	if err != nil {
		return nil, err
	}
	d.root = r
	d.dirfd = openDirect(d.path)
	d.cleanup = runtime.AddCleanup(d, dirHandles.close, dirHandles{r, d.dirfd})
	return r, nil
}

// danglingLink explains the error of making the directory dir where it,
// or a directory above it, is a symbolic link to nothing: MkdirAll's
// "mkdir dir: file exists" says only that the name is taken.
func danglingLink(dir string, err error) error {
	var pe *fs.PathError
	if !errors.Is(err, fs.ErrExist) || !errors.As(err, &pe) {
		return err
	}
	fi, lerr := os.Lstat(pe.Path)
	if lerr != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return err
	}
	if _, serr := os.Stat(pe.Path); !errors.Is(serr, fs.ErrNotExist) {
		return err
	}
	target, rerr := os.Readlink(pe.Path)
	if rerr != nil {
		return err
	}
	within := ""
	if filepath.Clean(pe.Path) != filepath.Clean(dir) {
		within = dir + ": "
	}
	return fmt.Errorf("%s%s is a symbolic link to %s, which does not exist: make that directory, or remove the link", within, pe.Path, target)
}

// notExist maps "a path component is a file" to fs.ErrNotExist: key
// "c/0/1" under a file "c/0" is simply absent.
func notExist(err error) error {
	if errors.Is(err, syscall.ENOTDIR) {
		return fmt.Errorf("%w (%v)", fs.ErrNotExist, err)
	}
	return err
}

func (d *Dir) Get(ctx context.Context, key string) ([]byte, error) {
	return d.GetInto(ctx, key, nil, -1)
}

// GetInto implements BufferGetter. A negative limit means no limit.
func (d *Dir) GetInto(ctx context.Context, key string, buf []byte, limit int) ([]byte, error) {
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
	b, ok, err := d.getDirect(key, buf, limit)
	if !ok {
		b, err = d.getRoot(r, key, buf, limit)
	}
	if errors.Is(err, fs.ErrNotExist) && d.reads.Tracking() {
		d.reads.Remember(key, "")
	}
	return b, err
}

// getRoot is GetInto through os.Root.
func (d *Dir) getRoot(r *os.Root, key string, buf []byte, limit int) ([]byte, error) {
	// Open without blocking (readFlags): a named pipe at key would
	// otherwise hang the open until some process writes to it.
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
	b, err := d.readValue(key, st.Size(), buf, limit, false, f.Read)
	if err != nil {
		return nil, err
	}
	if d.reads.Tracking() {
		// By name, as Version stats it: the versions must agree, and an
		// fstat's times can differ from a stat's (qemu-user for s390x
		// drops fstat's nanoseconds).
		if st, err = r.Stat(key); err != nil {
			return nil, err
		}
		d.reads.Remember(key, fileVersion(st))
	}
	return b, nil
}

// readValue reads key's value, of size bytes when it was opened, into buf
// (grown when short) with read, refusing one over limit. One spare byte
// notices a file that grew. exact ends the read at size, for a caller that
// checks the size again after it: the read that would only confirm the
// end is saved.
func (d *Dir) readValue(key string, size int64, buf []byte, limit int, exact bool, read func([]byte) (int, error)) ([]byte, error) {
	if limit >= 0 && size > int64(limit) {
		return nil, fmt.Errorf("%s/%s is %d bytes: %w (at most %d)", d.path, key, size, ErrTooLarge, limit)
	}
	buf = Resize(buf, int(size)+1)
	n := 0
	for n < len(buf) && !(exact && int64(n) == size) {
		m, err := read(buf[n:])
		n += m
		if err == io.EOF || err == nil && m == 0 {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if n == len(buf) {
		return nil, fmt.Errorf("%s/%s changed size while being read", d.path, key)
	}
	return buf[:n], nil
}

// notRegular is the error for a key that names something other than a
// regular file.
func (d *Dir) notRegular(key string, m fs.FileMode) error {
	return fmt.Errorf("%s/%s is %s, not a regular file", d.path, key, fileKind(m))
}

// fileKind names the type of a file that is not a regular file, for
// messages.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	case m&fs.ModeSymlink != 0:
		return "a symbolic link"
	}
	return "an irregular file"
}

func (d *Dir) Set(ctx context.Context, key string, value []byte) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := d.openRoot(true)
	if err != nil {
		return err
	}
	check := publishCheckOf(ctx)
	if d.FlushAhead <= 0 || d.NoSync || ctx.Value(setNowKey{}) != nil {
		return d.setNow(ctx, r, key, value, check)
	}
	// Claim the key first: a second Set of it waits for the first's
	// rename, so the later value wins.
	if err := d.ahead.claim(ctx, key, d.FlushAhead); err != nil {
		return err
	}
	t, err := d.writeTemp(r, key, value)
	if err != nil {
		d.ahead.abandon(key)
		return err
	}
	t.check = check
	if len(value) <= keepForRetry {
		t.value = bytes.Clone(value)
	}
	d.ahead.add(d, r, t)
	return nil
}

// keepForRetry bounds the values the group commit keeps until their
// rename, to write again should their temporary file vanish: metadata
// documents (what parts finalizing one directory at once write while
// each cleans up temporary files), not chunks, which are all written
// before any cleanup. At most FlushAhead of them are kept.
const keepForRetry = 64 << 10

// setNow writes key's value, makes it durable (unless NoSync) and renames
// it into place before it returns.
func (d *Dir) setNow(ctx context.Context, r *os.Root, key string, value []byte, check func(context.Context) error) error {
	for retry := 0; ; retry++ {
		t, err := d.writeTemp(r, key, value)
		if err != nil {
			return err
		}
		t.check = check
		err = d.finish(ctx, r, &t)
		gone := vanished(r, &t, err)
		t.closeDir()
		if !gone || retry == 2 {
			return err
		}
		// Another process's cleanup of temporary files (a concurrent part
		// finalizing the same directory) removed ours before its rename:
		// write the value again.
	}
}

// writeTemp writes value to a new temporary file in key's directory
// (made when missing).
func (d *Dir) writeTemp(r *os.Root, key string, value []byte) (tempValue, error) {
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	dir, base := path.Split(key)
	t := tempValue{key: key, tmp: dir + tempPrefix + hex.EncodeToString(rnd[:]) + "-" + tempBase(base), fd: -1, dirfd: -1}
	ok, err := d.createDirect(r, &t)
	if !ok {
		if dir != "" {
			err = r.MkdirAll(strings.TrimSuffix(dir, "/"), 0o755)
		}
		if err == nil {
			t.f, err = r.OpenFile(t.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		}
	}
	if err != nil {
		return t, err
	}
	if err = t.write(value); err != nil {
		t.closeFile()
		t.remove(r)
		t.closeDir()
	}
	return t, err
}

// tempValue is a value written to its temporary file, to be renamed to
// its key.
type tempValue struct {
	key, tmp string   // the key, and the temporary file's path in the store
	f        *os.File // still open: syncBatch may fsync it; nil on the direct path
	// On the direct path (Linux), the file is the descriptor fd, and the
	// key's directory stays open from the create to the rename (dirfd,
	// in which the names are path.Base(tmp) and path.Base(key)). Else
	// both -1.
	fd, dirfd int
	name      string                      // the temporary file's path with the store's, for errors
	value     []byte                      // the group commit's copy of a small value, to write again
	check     func(context.Context) error // WithPublishCheck's, asked right before the rename
}

func (t *tempValue) write(b []byte) error {
	if t.f == nil {
		return t.writeDirect(b)
	}
	_, err := t.f.Write(b)
	return err
}

func (t *tempValue) syncData() error {
	if t.f == nil {
		return t.syncDirect()
	}
	return syncData(t.f)
}

func (t *tempValue) closeFile() error {
	if t.f == nil {
		return t.closeFileDirect()
	}
	return t.f.Close()
}

func (t *tempValue) rename(ctx context.Context, r *os.Root) error {
	if t.check != nil {
		if err := t.check(ctx); err != nil {
			return err
		}
	}
	if t.dirfd >= 0 {
		return t.renameDirect()
	}
	return r.Rename(t.tmp, t.key)
}

func (t *tempValue) remove(r *os.Root) {
	if t.dirfd >= 0 {
		t.removeDirect()
		return
	}
	_ = r.Remove(t.tmp)
}

// vanished reports whether err is a rename that failed because the
// temporary file no longer exists.
func vanished(r *os.Root, t *tempValue, err error) bool {
	var le *os.LinkError
	if !errors.As(err, &le) || !errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if t.dirfd >= 0 {
		return !t.existsDirect()
	}
	_, serr := r.Lstat(t.tmp)
	return errors.Is(serr, fs.ErrNotExist)
}

// finish flushes the written temporary file f (unless NoSync), closes it
// and renames it to key; on any failure it removes the file.
func (d *Dir) finish(ctx context.Context, r *os.Root, t *tempValue) error {
	var err error
	if !d.NoSync {
		err = t.syncData()
	}
	if cerr := t.closeFile(); err == nil {
		err = cerr
	}
	if err == nil {
		err = t.rename(ctx, r)
	}
	if err != nil {
		t.remove(r)
		return err
	}
	return nil
}

// Sync implements Syncer: it makes every value written to the directory so
// far durable, by any process, and the directory's own entry in its parent
// (on Linux with one syncfs(2) of the file system; elsewhere by an fsync of
// every directory of the store).
func (d *Dir) Sync(ctx context.Context) error {
	if d.NoSync {
		return nil
	}
	if err := d.ahead.wait(); err != nil {
		return err
	}
	r, err := d.openRoot(false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // nothing written, nothing to make durable
	}
	if err != nil {
		return err
	}
	if err := syncTree(ctx, r); err != nil {
		return fmt.Errorf("%s: making writes durable: %w", d.path, err)
	}
	if err := syncDir(filepath.Dir(filepath.Clean(d.path))); err != nil {
		return fmt.Errorf("%s: making the directory's entry durable: %w", d.path, err)
	}
	return nil
}

// syncDir fsyncs one directory: the names it holds become durable.
func syncDir(dir string) error { return syncOpened(os.Open(dir)) }

// syncOpened fsyncs and closes a directory just opened.
func syncOpened(f *os.File, err error) error {
	if err != nil {
		return err
	}
	err = f.Sync()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return ignoreUnsupported(err)
}

// syncEveryDir fsyncs every directory of the store: on systems without
// syncfs, what makes the renames in them durable.
func syncEveryDir(ctx context.Context, r *os.Root) error {
	return fs.WalkDir(r.FS(), ".", func(p string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		return syncOpened(r.Open(p))
	})
}

// Version implements Versioner: "size=N mtime=NS ino=I" for a regular
// file (no inode number where the system has none), ""
// for a missing key, an error for anything else at key.
func (d *Dir) Version(ctx context.Context, key string) (string, error) {
	if err := ValidKey(key); err != nil {
		return "", err
	}
	d.ahead.waitKey(ctx, key)
	return d.versionNoWait(key)
}

// versionNoWait is Version of a valid key not in flight.
func (d *Dir) versionNoWait(key string) (string, error) {
	r, err := d.openRoot(false)
	if err == nil {
		if v, ok, err := d.versionDirect(key); ok {
			return v, err
		}
		var st fs.FileInfo
		if st, err = r.Stat(key); err == nil {
			if !st.Mode().IsRegular() {
				return "", d.notRegular(key, st.Mode())
			}
			return fileVersion(st), nil
		}
	}
	if errors.Is(notExist(err), fs.ErrNotExist) {
		return "", nil
	}
	return "", err
}

// versionString is a file's version: "size=N mtime=NS ino=I". The inode
// number changes whenever a writer replaces the file by a rename (as
// dt64, zarr-python and most writers do), which a same-size rewrite
// within one tick of the file system's coarse clock would otherwise hide;
// size and mtime show a rewrite in place.
func versionString(size, mtime int64, ino uint64) string {
	v := "size=" + strconv.FormatInt(size, 10) + " mtime=" + strconv.FormatInt(mtime, 10)
	if ino != 0 {
		v += " ino=" + strconv.FormatUint(ino, 10)
	}
	return v
}

// fileVersion is the version of the file fi describes.
func fileVersion(fi fs.FileInfo) string {
	return versionString(fi.Size(), fi.ModTime().UnixNano(), inode(fi))
}

func (d *Dir) Delete(ctx context.Context, key string) error {
	if err := ValidKey(key); err != nil {
		return err
	}
	d.ahead.waitKey(ctx, key)
	r, err := d.openRoot(false)
	if err != nil {
		if errors.Is(notExist(err), fs.ErrNotExist) {
			return nil
		}
		return err
	}
	if err := r.Remove(key); err != nil && !errors.Is(notExist(err), fs.ErrNotExist) {
		return err
	}
	return nil
}

func (d *Dir) List(ctx context.Context, prefix string) ([]string, error) {
	d.ahead.waitAll()
	r, err := d.openRoot(false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var keys []string
	err = d.walkValues(ctx, r, prefix, func(p string, e walkEntry, linked string) error {
		keys = append(keys, p)
		return nil
	})
	sort.Strings(keys)
	return keys, err
}

// walk calls f for every file below the directory prefix names ("." for
// a prefix without a "/"; "sub/stamp/" of "sub/stamp/.dt64-"), so listing
// one node of a large hierarchy does not read the others. A directory
// another process removes while the walk runs is skipped: its keys are
// gone. On the direct path (Linux) the directories are read as they are:
// os.Root's reading of a directory stats every entry, one system call a
// key, which listing a store of many chunks would spend for nothing.
func (d *Dir) walk(ctx context.Context, r *os.Root, prefix string, f func(p string, e walkEntry) error) error {
	start := "."
	if i := strings.LastIndexByte(prefix, '/'); i > 0 && ValidKey(prefix[:i]) == nil {
		start = prefix[:i]
	}
	if ok, err := d.walkDirect(ctx, start, f); ok {
		return err
	}
	return fs.WalkDir(r.FS(), start, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				if p == start {
					return fs.SkipAll // nothing under the prefix
				}
				return nil
			}
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() {
			return nil
		}
		return f(p, walkEntry{name: e.Name(), typ: e.Type(), de: e, dirfd: -1})
	})
}

// walkValues calls f for every value under prefix (temporary files are
// none): a regular file, or a symbolic link to a regular file inside the
// store, which is a value as Get reads it (a store deduplicated with
// links: left out, a copy of the store would silently lose it); linked is
// the version of the file a link leads to, "" for a regular file.
func (d *Dir) walkValues(ctx context.Context, r *os.Root, prefix string, f func(p string, e walkEntry, linked string) error) error {
	return d.walk(ctx, r, prefix, func(p string, e walkEntry) error {
		if isTempName(e.name) || !strings.HasPrefix(p, prefix) {
			return nil
		}
		if e.typ.IsRegular() {
			return f(p, e, "")
		}
		if e.typ&fs.ModeSymlink != 0 {
			if v, err := d.versionNoWait(p); err == nil && v != "" {
				return f(p, e, v)
			}
		}
		return nil
	})
}

// walkEntry is a file walk found: its name, type, and the means to stat
// it (through the directory it was read from, on the direct path).
type walkEntry struct {
	name  string
	typ   fs.FileMode
	de    fs.DirEntry
	dirfd int
}

// version is the file's version, or false when it is gone since the
// directory was read.
func (e walkEntry) version() (string, bool, error) {
	if e.dirfd >= 0 {
		return e.versionDirect()
	}
	fi, err := e.de.Info()
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return fileVersion(fi), true, nil
}

// Versions returns the version (as Version gives it) of every value
// under prefix, from one walk of the directory the prefix names: the file
// information the walk reads anyway, instead of a lookup of each key. A
// symbolic link is what it points to, as for Version. It implements
// zarr.VersionLister.
func (d *Dir) Versions(ctx context.Context, prefix string) (map[string]string, error) {
	d.ahead.waitAll()
	r, err := d.openRoot(false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return map[string]string{}, nil
		}
		return nil, err
	}
	out := map[string]string{}
	err = d.walkValues(ctx, r, prefix, func(p string, e walkEntry, linked string) error {
		if linked != "" {
			out[p] = linked
			return nil
		}
		v, ok, err := e.version()
		if ok {
			out[p] = v
		}
		return err
	})
	return out, err
}

// Temps lists the temporary files that Set calls left behind in a process
// that died between creating a value and renaming it into place, as a map
// from each file's store-relative path (a valid argument to RemoveTemp) to
// the key it was meant for. Get and List never see them.
func (d *Dir) Temps(ctx context.Context) (map[string]string, error) {
	return d.TempsUnder(ctx, "")
}

// TempsUnder is Temps for the keys that start with prefix (a node's path
// and "/", or ""), walking only that part of the directory: the arrays of
// a hierarchy each clean their own without a walk of all the others
// (which made a group transcode quadratic in its arrays).
func (d *Dir) TempsUnder(ctx context.Context, prefix string) (map[string]string, error) {
	d.ahead.waitAll()
	r, err := d.openRoot(false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	temps := map[string]string{}
	err = d.walk(ctx, r, prefix, func(p string, e walkEntry) error {
		name := e.name
		if !e.typ.IsRegular() || !isTempName(name) || !strings.HasPrefix(p, prefix) {
			return nil
		}
		base := name[len(tempPrefix)+17:] // after the 16 hex digits and "-"
		temps[p] = path.Join(path.Dir(p), base)
		return nil
	})
	return temps, err
}

// RemoveTemp deletes a temporary file listed by Temps. It refuses any
// other path, so it cannot remove a value.
func (d *Dir) RemoveTemp(tempPath string) error {
	if err := ValidKey(tempPath); err != nil || !isTempName(path.Base(tempPath)) {
		return fmt.Errorf("%s/%s is not a temporary file of this store", d.path, tempPath)
	}
	r, err := d.openRoot(false)
	if err != nil {
		return notExist(err)
	}
	if err := r.Remove(tempPath); err != nil && !errors.Is(notExist(err), fs.ErrNotExist) {
		// The os.Root's error names only the path inside it: name the store.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		return fmt.Errorf("removing %s/%s, a temporary file an interrupted write left: %w", d.path, tempPath, err)
	}
	return nil
}

// TrackReadVersions makes GetInto (and Get) remember the version of each
// value it returns, taken after the read (from the open file on the
// direct path), and that a key was missing.
func (d *Dir) TrackReadVersions() { d.reads.TrackReadVersions() }

// ReadVersion returns, once, the version (as Version gives it) of the
// value the last read of key returned, or false when none was kept.
func (d *Dir) ReadVersion(key string) (string, bool) { return d.reads.ReadVersion(key) }
