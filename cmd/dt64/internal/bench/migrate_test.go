package bench

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// BenchmarkMigrate measures issue #15's target: a v2 -> v3 migration of a
// dataset whose only time array is small runs at the speed of copying its
// chunk files. The source is a v2 group of 8 float64 arrays of 2 500
// uncompressed chunks of 4 KiB each (20 000 files, 78 MiB) and one
// datetime64 array of one chunk; each round runs, in rotating order,
// `cp -r` of the source, dt64's migration with --no-sync, `cp -r` followed
// by one syncfs of the copy (the same bytes made durable, in no order),
// and dt64's durable migration (chunks made durable in groups before
// their renames, FlushAhead 16, as the CLI does). It reports the medians
// of the per-round ratios:
//
//	nosync-vs-cp-x        dt64 --no-sync / cp -r
//	durable-vs-cp-sync-x  dt64 durable / (cp -r; syncfs)
//
//	go test -run '^$' -bench Migrate -benchtime 7x ./bench/
func BenchmarkMigrate(b *testing.B) {
	if _, err := exec.LookPath("cp"); err != nil {
		b.Skip("no cp to compare with")
	}
	src := filepath.Join(b.TempDir(), "src.zarr")
	writeMigrateSource(b, src, 8, 2500, 512)
	type variant int
	const (
		cp variant = iota
		dt64NoSync
		cpSync
		dt64Durable
	)
	var nosync, durable []float64
	for i := 0; b.Loop(); i++ {
		wall := map[variant]time.Duration{}
		for j := range 4 {
			v := variant((i + j) % 4)
			dst := filepath.Join(b.TempDir(), "dst.zarr")
			start := time.Now()
			switch v {
			case cp, cpSync:
				if out, err := exec.Command("cp", "-r", src, dst).CombinedOutput(); err != nil {
					b.Fatalf("cp: %v: %s", err, out)
				}
				if v == cpSync {
					if err := storage.NewDir(dst).Sync(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			case dt64NoSync, dt64Durable:
				d := storage.NewDir(dst)
				d.NoSync = v == dt64NoSync
				d.FlushAhead = 16
				j, err := transcode.NewStore(context.Background(), storage.NewDir(src), d, transcode.StoreOptions{Options: transcode.Options{Format: 3, Workers: 2}})
				if err != nil {
					b.Fatal(err)
				}
				if _, err := j.Run(context.Background()); err != nil {
					b.Fatal(err)
				}
				if err := d.Close(); err != nil {
					b.Fatal(err)
				}
			}
			wall[v] = time.Since(start)
			b.StopTimer()
			os.RemoveAll(dst)
			b.StartTimer()
		}
		nosync = append(nosync, wall[dt64NoSync].Seconds()/wall[cp].Seconds())
		durable = append(durable, wall[dt64Durable].Seconds()/wall[cpSync].Seconds())
	}
	b.ReportMetric(medianOf(nosync), "nosync-vs-cp-x")
	b.ReportMetric(medianOf(durable), "durable-vs-cp-sync-x")
}

// writeMigrateSource writes a v2 group of arrays float64 arrays of chunks
// uncompressed chunks of chunk elements each, plus one small datetime64
// array ("time").
func writeMigrateSource(b *testing.B, dir string, arrays, chunks, chunk int) {
	ctx := context.Background()
	s := storage.NewDir(dir)
	s.NoSync = true
	if err := s.Set(ctx, ".zgroup", []byte(`{"zarr_format": 2}`)); err != nil {
		b.Fatal(err)
	}
	raw := make([]byte, 8*chunk)
	for i := range arrays + 1 {
		name, m := fmt.Sprintf("v%d", i), zarr.Metadata{Format: 2, Shape: []int64{int64(chunks * chunk)}, ChunkShape: []int64{int64(chunk)},
			Codecs: []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}}, Numeric: zarr.NumericType{Kind: zarr.Float, Size: 8}}
		n := chunks
		if i == arrays {
			name, m.Numeric, m.DataType, m.Shape, n = "time", zarr.NumericType{}, dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Second, Scale: 1}, []int64{int64(chunk)}, 1
		}
		sub, err := storage.Sub(s, name)
		if err != nil {
			b.Fatal(err)
		}
		a, err := zarr.Create(ctx, sub, m)
		if err != nil {
			b.Fatal(err)
		}
		for c := range n {
			for j := range chunk {
				binary.LittleEndian.PutUint64(raw[8*j:], uint64(c*chunk+j)*1_000_003)
			}
			if _, err := a.WriteChunkRaw(ctx, []int64{int64(c)}, raw); err != nil {
				b.Fatal(err)
			}
		}
		if err := a.WriteMetadata(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
