package objstore_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/objstore"
	"github.com/zarr-dt64/dt64/objstore/s3test"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// BenchmarkS3E2E runs the end-to-end job of bench.BenchmarkE2ERatio
// (gzip:1 big-endian ns -> zstd:3 little-endian us, v2 -> v3) between a directory and a real S3 server
// (versitygw over a directory on 127.0.0.1), against the same job
// directory to directory (durable, as the CLI writes it, and --no-sync:
// versitygw does not flush what it stores), back to back in every round;
// it reports the
// median of the per-round ratios to the directory job, and its MB/s
// (decoded bytes):
//
//	cd objstore && go test -run '^$' -bench S3E2E -benchtime 7x .
//
// The engine's default in-flight count applies: Workers for two
// directories, 2 × Workers as soon as one store is S3. The array is a
// quarter of BenchmarkE2ERatio's (64 MiB, 32 chunks of 2 MiB), so a round
// stays short on a shared machine.
func BenchmarkS3E2E(b *testing.B) {
	const elements, chunk = 8 << 20, 256 << 10
	srv := s3test.Start(b)
	srv.Setenv(b)
	bucket := srv.Bucket(b)
	ctx := context.Background()
	srcDir := filepath.Join(b.TempDir(), "src.zarr")
	writeSampleArray(b, storage.NewDir(srcDir), elements, chunk, []zarr.Codec{zarr.BytesCodec{Endian: binary.BigEndian}, zarr.GzipCodec{Level: 1}}, 1)
	open := func(prefix string) storage.Store {
		s, err := objstore.OpenS3(ctx, "s3://"+bucket+"/"+prefix, objstore.S3Options{})
		if err != nil {
			b.Fatal(err)
		}
		return s
	}
	copyJob, err := transcode.New(ctx, storage.NewDir(srcDir), open("src.zarr"), transcode.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := copyJob.Run(ctx); err != nil {
		b.Fatal(err)
	}
	workers := 2
	// A directory destination as the CLI opens it: durable, each chunk's
	// flush overlapping the next chunk's conversion (or --no-sync).
	dirDst := func(path string, noSync bool) *storage.Dir {
		d := storage.NewDir(path)
		d.FlushAhead, d.NoSync = 16, noSync
		return d
	}
	job := func(src, dst storage.Store) time.Duration {
		comp := transcode.Compression{Codec: zarr.ZstdCodec{Level: 3}}
		t, err := transcode.New(ctx, src, dst, transcode.Options{Unit: dtype.Microsecond, Endian: binary.LittleEndian, Compression: &comp, Format: 3, Workers: workers})
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		if _, err := t.Run(ctx); err != nil {
			b.Fatal(err)
		}
		if d, ok := dst.(*storage.Dir); ok {
			d.Close()
		}
		return time.Since(start)
	}
	variants := []string{"dir-dir-nosync", "dir-s3", "s3-s3", "s3-dir"}
	ratios := map[string][]float64{}
	var dirMBps []float64
	mbps := map[string][]float64{}
	tmp := b.TempDir()
	b.ResetTimer()
	for i := range b.N {
		round := fmt.Sprint(i)
		dd := filepath.Join(tmp, "dir-"+round)
		base := job(storage.NewDir(srcDir), dirDst(dd, false))
		dirMBps = append(dirMBps, float64(elements*8)/1e6/base.Seconds())
		for _, v := range variants {
			var src, dst storage.Store = storage.NewDir(srcDir), dirDst(filepath.Join(tmp, v+"-"+round), v == "dir-dir-nosync")
			if v[:2] == "s3" {
				src = open("src.zarr")
			}
			if v[len(v)-2:] == "s3" {
				dst = open(v + "-" + round + ".zarr")
			}
			d := job(src, dst)
			ratios[v] = append(ratios[v], d.Seconds()/base.Seconds())
			mbps[v] = append(mbps[v], float64(elements*8)/1e6/d.Seconds())
		}
		// Keep the disk use of a long run flat.
		b.StopTimer()
		for _, v := range variants {
			os.RemoveAll(filepath.Join(tmp, v+"-"+round))
			os.RemoveAll(filepath.Join(srv.Dir, bucket, v+"-"+round+".zarr"))
		}
		os.RemoveAll(dd)
		b.StartTimer()
	}
	b.ReportMetric(medianOf(dirMBps), "MB/s-dir-dir")
	for _, v := range variants {
		b.ReportMetric(medianOf(ratios[v]), "x-"+v)
		b.ReportMetric(medianOf(mbps[v]), "MB/s-"+v)
	}
}

// writeSampleArray writes a v2 datetime64[ns] array of n timestamps in
// chunks of chunk, as bench's end-to-end benchmark does: a 1 s cadence
// from 2024 with ±0.5 ms jitter and 0.5 % NaT.
func writeSampleArray(b *testing.B, s storage.Store, n, chunk int64, codecs []zarr.Codec, seed uint64) {
	ctx := context.Background()
	a, err := zarr.Create(ctx, s, zarr.Metadata{
		Format: 2, DataType: dtype.DataType{Kind: dtype.Datetime, Unit: dtype.Nanosecond, Scale: 1},
		Shape: []int64{n}, ChunkShape: []int64{chunk}, FillValue: dtype.NaT, Codecs: codecs,
	})
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, seed+1))
	vals := make([]int64, chunk)
	for _, co := range a.ChunkCoords() {
		for i := range vals {
			vals[i] = 1_704_067_200_000_000_000 + (co[0]*chunk+int64(i))*1_000_000_000 + rng.Int64N(1_000_001) - 500_000
			if rng.IntN(200) == 0 {
				vals[i] = dtype.NaT
			}
		}
		if err := a.WriteChunk(ctx, co, vals); err != nil {
			b.Fatal(err)
		}
	}
	if err := a.WriteMetadata(ctx); err != nil {
		b.Fatal(err)
	}
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s) == 0 {
		return 0
	}
	return s[len(s)/2]
}
