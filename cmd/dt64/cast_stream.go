package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
)

// castBlock is how many bytes cast converts per step: large enough that
// the kernels and the write system call run at full speed, small enough
// that the blocks in flight stay in L2 until they are written (256 KiB
// measured 10-30 % faster than 1 MiB for 256 MiB files, in process,
// 15 interleaved rounds).
const castBlock = 256 << 10

// castBuffers is how many blocks may be in flight between the converting
// goroutine and the writing one.
const castBuffers = 4

// castWindow is how much of a mapped input is mapped at a time: a bounded
// address range whatever the file's size. A variable so tests can make it
// small.
var castWindow int64 = 64 << 20

// A source hands out the input a block at a time.
type source interface {
	// next returns the next at most len(buf) bytes of input: buf filled by
	// reading, or a view of a mapping of the file (valid until the next
	// call). With the last bytes, or none, it returns io.EOF.
	next(buf []byte) ([]byte, error)
	// shrank reports whether the input became shorter than it was when
	// the source was opened (a mapping's pages past the new end fault).
	shrank() bool
	close() error
}

// openSource maps a regular file (no copy into user memory: the kernels
// read the page cache) where the system can, and reads anything else.
func openSource(in io.Reader) source {
	if f, ok := in.(*os.File); ok {
		if s, ok := mapFile(f); ok {
			return s
		}
	}
	return &readSource{r: in}
}

type readSource struct{ r io.Reader }

func (s *readSource) next(buf []byte) ([]byte, error) {
	n, err := io.ReadFull(s.r, buf)
	if err == io.ErrUnexpectedEOF {
		err = io.EOF // a short read is the last one
	}
	return buf[:n], err
}

func (s *readSource) shrank() bool { return false }
func (s *readSource) close() error { return nil }

// castStream converts the input into out. One goroutine converts blocks
// into buffers while another writes the previous ones, so the conversion
// overlaps the copy into the page cache; the output is written in order.
// On any error nothing more is written and the error names the input (or
// the write) and, for a conversion error, the element's index in the
// whole input.
func castStream(ctx context.Context, tc *kernels.Transcoder, in io.Reader, out io.Writer, inName string) (kernels.Stats, error) {
	src := openSource(in)
	defer src.close()
	full := make(chan []byte, castBuffers)
	free := make(chan []byte, castBuffers)
	failed := make(chan struct{}) // closed when a write fails
	var werr error
	written := make(chan struct{})
	go func() {
		defer close(written)
		for b := range full {
			if werr == nil {
				if _, werr = out.Write(b); werr != nil {
					close(failed)
				}
			}
			free <- b
		}
	}()
	total, err := convertBlocks(ctx, tc, src, full, free, failed, inName)
	close(full)
	<-written
	if werr != nil {
		return total, werr
	}
	return total, err
}

// convertBlocks converts src block by block into buffers it sends on full,
// taking them back from free, until the input ends or fails, or failed is
// closed, or ctx is cancelled (an interrupt).
func convertBlocks(ctx context.Context, tc *kernels.Transcoder, src source, full chan<- []byte, free <-chan []byte, failed <-chan struct{}, inName string) (kernels.Stats, error) {
	var total kernels.Stats
	allocated := 0
	buffer := func() []byte { // nil once a write failed
		// The failure first: a select with both ready picks at random, and
		// the writer keeps handing buffers back after it failed.
		select {
		case <-failed:
			return nil
		default:
		}
		select {
		case b := <-free:
			return b
		case <-failed:
			return nil
		default:
		}
		if allocated < castBuffers {
			allocated++
			// Start small: most inputs on a pipe are small, and full-size
			// buffers would dominate their cost.
			if allocated == 1 {
				return make([]byte, 64<<10)
			}
			return make([]byte, castBlock)
		}
		select {
		case b := <-free:
			return b
		case <-failed:
			return nil
		}
	}
	base := 0 // index in the whole input of the block's first element
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		buf := buffer()
		if buf == nil {
			return total, nil
		}
		if cap(buf) < castBlock && base > 0 { // the small first one: the input is large
			buf = make([]byte, castBlock)
		}
		in, rerr := nextOrDone(ctx, src, buf[:cap(buf)])
		if rerr != nil && rerr != io.EOF {
			return total, fmt.Errorf("reading %s: %w", inName, rerr)
		}
		whole := len(in) &^ 7
		if whole > 0 {
			st, err := convert(tc, buf[:whole], in[:whole], src)
			total.Add(st)
			if err != nil {
				return total, shiftIndex(err, base, inName)
			}
			full <- buf[:whole]
			base += whole / 8
		}
		if len(in) != whole {
			return total, fmt.Errorf("%s: length is not a multiple of 8 bytes: %d trailing bytes after element %d", inName, len(in)-whole, base)
		}
		if rerr == io.EOF {
			// An interrupt while the last block converted: the output
			// must not be published.
			return total, ctx.Err()
		}
	}
}

// nextOrDone is src.next, but an interrupt ends a read that waits on its
// input (a pipe with nothing to read, perhaps forever) at once: ctx's
// error is returned and the read is left to finish into buf, which the
// caller, stopping, never uses again. A mapped file never waits.
func nextOrDone(ctx context.Context, src source, buf []byte) ([]byte, error) {
	if _, ok := src.(*readSource); !ok {
		return src.next(buf)
	}
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := src.next(buf)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// errShrank is the error for a mapped input that lost its end while cast
// read it (another process truncated it).
var errShrank = errors.New("the file became shorter while it was read")

// convert runs the transcoder, turning the memory fault (SIGBUS) a mapped
// input truncated meanwhile causes into errShrank instead of a crash. Any
// other panic stays a panic.
func convert(tc *kernels.Transcoder, dst, src []byte, in source) (st kernels.Stats, err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			// Not every system reports the fault's address (qemu gives
			// 0, which Go reports as a nil dereference): ask the file.
			if _, ok := r.(runtime.Error); ok && in.shrank() {
				err = errShrank
				return
			}
			panic(r)
		}
	}()
	return tc.Run(dst, src, nil)
}

// shiftIndex turns a block-relative element index into one in the whole input.
func shiftIndex(err error, base int, inName string) error {
	var ke *dtype.ElementError
	if errors.As(err, &ke) {
		e := *ke
		e.Index += base
		return fmt.Errorf("%s: %w", inName, &e)
	}
	if errors.Is(err, errShrank) {
		return fmt.Errorf("reading %s: %w", inName, err)
	}
	return err
}
