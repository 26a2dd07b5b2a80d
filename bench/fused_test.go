package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// Fused decode against the two-pass path: a Blosc-compressed v2 source of
// jittered nanosecond timestamps, 32 Mi elements (256 MiB) in 4 MiB
// chunks, transcoded to microseconds on one worker with the engine's
// fused decode (each Blosc block converted right after it is unshuffled)
// (DT64_FUSED=1) and without it (the default: the whole chunk decoded,
// then converted in a second pass). Runs alternate within each round and the
// medians of the per-round ratios are reported (fused/two-pass: below 1
// is a gain), for wall and CPU time, plus the same for decoding and
// converting the chunks alone (no destination encode, no store writes):
//
//	go test -run '^$' -bench Fused -benchtime 5x ./bench/
const (
	fusedElements = 32 << 20
	fusedChunk    = 512 << 10 // 4 MiB
)

var fusedSources = []struct{ name, cname string }{{"blosc-lz4", "lz4"}, {"blosc-zstd", "zstd"}}

func fusedSource(b *testing.B, cname string) zarr.Store {
	s := zarr.NewMemory()
	writeSampleArray(b, s, fusedElements, fusedChunk, []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.BloscCodec{CName: cname, CLevel: 5, Shuffle: "shuffle"}}, 3)
	return s
}

func setFused(on bool) {
	if on {
		os.Setenv("DT64_FUSED", "1")
	} else {
		os.Unsetenv("DT64_FUSED")
	}
}

// fusedTranscode runs a whole transcode on one worker into a new memory
// store.
func fusedTranscode(b *testing.B, src zarr.Store, dst transcode.Compression, fused bool) {
	setFused(fused)
	defer os.Unsetenv("DT64_FUSED")
	us := dtype.Microsecond
	t, err := transcode.New(context.Background(), src, zarr.NewMemory(), transcode.Options{
		Unit: &us, Endian: binary.LittleEndian, Compression: &dst, Format: 3, Workers: 1, InFlight: 1,
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := t.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
}

// fusedDecode decodes and converts every chunk of a into buf, once with a
// sink per block and once whole then in a second pass, alternating which
// goes first chunk by chunk (so load drift on a shared machine hits both
// alike), and returns the two total wall and CPU times, and the wall time
// of the two-pass path's second pass alone (the most fusion can save).
func fusedDecode(b *testing.B, a *zarr.Array, k *kernels.Transcoder, buf []byte) (fw, fc, tw, tc, pass float64) {
	ctx := context.Background()
	run := func(co []int64, fused bool) {
		var err error
		if fused {
			_, _, err = a.ReadChunkRawFunc(ctx, co, buf, func(_ int, p []byte) error {
				_, err := k.Run(p, p, nil)
				return err
			})
		} else if _, _, err = a.ReadChunkRaw(ctx, co, buf); err == nil {
			t0 := time.Now()
			_, err = k.Run(buf, buf, nil)
			pass += time.Since(t0).Seconds()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for i, co := range a.ChunkCoords() {
		for j := range 2 {
			fused := (int(i)+j)%2 == 0
			w, c := fusedTimed(func() { run(co, fused) })
			if fused {
				fw, fc = fw+w, fc+c
			} else {
				tw, tc = tw+w, tc+c
			}
		}
	}
	return fw, fc, tw, tc, pass
}

func fusedTimed(fn func()) (wall, cpu float64) {
	c0, t0 := fusedCPU(), time.Now()
	fn()
	return time.Since(t0).Seconds(), (fusedCPU() - c0).Seconds()
}

func fusedCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fusedMedian(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func BenchmarkFusedRatio(b *testing.B) {
	dsts := []struct {
		name string
		c    transcode.Compression
	}{{"none", transcode.Compression{Name: "none"}}, {"blosc-lz4", transcode.Compression{Name: "blosc", Level: 5, CName: "lz4", Shuffle: "shuffle"}}}
	for _, sc := range fusedSources {
		src := fusedSource(b, sc.cname)
		a, err := zarr.Open(context.Background(), src)
		if err != nil {
			b.Fatal(err)
		}
		buf := Aligned(8 * a.ChunkLen())
		// A floor division (compute-bound) and a byte swap (memory-bound).
		for _, kc := range []struct {
			name  string
			unit  dtype.Unit
			order binary.ByteOrder
		}{{"us", dtype.Microsecond, binary.LittleEndian}, {"ns-be", dtype.Nanosecond, binary.BigEndian}} {
			conv, _ := dtype.NewConversion(a.DataType(), dtype.DataType{Kind: dtype.Datetime, Unit: kc.unit, Scale: 1})
			k, err := kernels.NewTranscoder(conv, kernels.Options{From: a.ByteOrder(), To: kc.order})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("src=%s/op=decode-to-%s", sc.name, kc.name), func(b *testing.B) {
				var wall, cpu, copyX, passX []float64
				src, dst := Aligned(len(buf)), Aligned(len(buf))
				for i := 0; b.Loop(); i++ {
					fw, fc, tw, tc, pass := fusedDecode(b, a, k, buf)
					passX = append(passX, pass/tw)
					// What the saved pass costs at most: copy() of the same
					// bytes, chunk by chunk.
					cw, _ := fusedTimed(func() {
						for range a.NumChunks() {
							copy(dst, src)
						}
					})
					wall = append(wall, fw/tw)
					cpu = append(cpu, fc/tc)
					copyX = append(copyX, (tw-fw)/cw)
				}
				b.ReportMetric(fusedMedian(wall), "fused/two-pass")
				b.ReportMetric(fusedMedian(cpu), "cpu-fused/two-pass")
				b.ReportMetric(fusedMedian(copyX), "saved/copy")
				b.ReportMetric(fusedMedian(passX), "pass/two-pass")
			})
		}
		for _, d := range dsts {
			b.Run(fmt.Sprintf("src=%s/dst=%s/op=transcode", sc.name, d.name), func(b *testing.B) {
				var wall, cpu []float64
				for i := 0; b.Loop(); i++ {
					run := func(fused bool) (wall, cpu float64) {
						runtime.GC() // the previous run's garbage is not this one's cost
						return fusedTimed(func() { fusedTranscode(b, src, d.c, fused) })
					}
					var fw, fc, tw, tc float64
					if i%2 == 0 {
						fw, fc = run(true)
						tw, tc = run(false)
					} else {
						tw, tc = run(false)
						fw, fc = run(true)
					}
					wall = append(wall, fw/tw)
					cpu = append(cpu, fc/tc)
				}
				b.ReportMetric(fusedMedian(wall), "fused/two-pass")
				b.ReportMetric(fusedMedian(cpu), "cpu-fused/two-pass")
			})
		}
	}
}
