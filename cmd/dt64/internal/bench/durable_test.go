package bench

import (
	"context"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
)

// unversioned is a source directory that cannot tell versions (its
// Version has another signature, so it is no storage.Versioner): the engine
// then records and checks no source chunk versions.
type unversioned struct{ *storage.Dir }

func (unversioned) Version() {}

// BenchmarkDurableCost measures what Nothing lost costs on the
// end-to-end job (the demo's gzip:1 BE ns -> zstd:3 LE us, 256 MiB in
// 128 chunks, 2 workers): fsync of every chunk and syncfs before every
// marker, against --no-sync (sync-cost-x, target <= 1.05), and recording
// and checking the source chunks' versions against not doing so
// (versions-cost-x, target <= 1.02). Durable writes flush ahead as the
// CLI does (storage.Dir.FlushAhead): each chunk's fdatasync and rename
// overlap the workers' next chunks; sync-cost-x-inline is the cost with
// every flush on the worker that wrote the chunk. --no-sync leaves the
// bytes in the page cache when the run ends; vs-one-final-sync-x
// compares durable writes with --no-sync followed by one syncfs, which
// writes the same bytes to the disk inside the timed run but in no order:
// the cost of the ordering alone. Variants alternate within a round; the
// medians of the per-round ratios are reported.
//
//	go test -run '^$' -bench DurableCost -benchtime 7x ./bench/
func BenchmarkDurableCost(b *testing.B) {
	c := e2eCases[0]
	src := e2eSource(b, c)
	type variant struct {
		sync, versions bool
		flushAhead     int
		syncAtEnd      bool // --no-sync, then one syncfs: the bytes reach the disk, in no order
	}
	variants := []variant{{false, false, 0, false}, {false, true, 0, false}, {true, true, 16, false}, {true, true, 0, false}, {false, true, 0, true}}
	var syncCost, inlineCost, versionCost, orderCost []float64
	for i := 0; b.Loop(); i++ {
		wall := map[variant]time.Duration{}
		for j := range variants {
			v := variants[(i+j)%len(variants)]
			dir := filepath.Join(b.TempDir(), "d")
			wall[v], _ = timed("durable", func() {
				runDurable(b, src, dir, c, v.sync, v.versions, v.flushAhead)
				if v.syncAtEnd {
					if err := storage.NewDir(dir).Sync(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.StopTimer()
			os.RemoveAll(dir)
			b.StartTimer()
		}
		base := wall[variant{false, true, 0, false}].Seconds()
		syncCost = append(syncCost, wall[variant{true, true, 16, false}].Seconds()/base)
		inlineCost = append(inlineCost, wall[variant{true, true, 0, false}].Seconds()/base)
		versionCost = append(versionCost, base/wall[variant{false, false, 0, false}].Seconds())
		orderCost = append(orderCost, wall[variant{true, true, 16, false}].Seconds()/wall[variant{false, true, 0, true}].Seconds())
	}
	b.ReportMetric(medianOf(syncCost), "sync-cost-x")
	b.ReportMetric(medianOf(inlineCost), "sync-cost-x-inline")
	b.ReportMetric(medianOf(orderCost), "vs-one-final-sync-x")
	b.ReportMetric(medianOf(versionCost), "versions-cost-x")
}

func runDurable(b *testing.B, src, dst string, c e2eCase, sync, versions bool, flushAhead int) {
	us := dtype.Microsecond
	comp := c.dst
	d := storage.NewDir(dst)
	d.NoSync = !sync
	d.FlushAhead = flushAhead
	defer d.Close()
	var s storage.Store = storage.NewDir(src)
	if !versions {
		s = unversioned{storage.NewDir(src)}
	}
	t, err := transcode.New(context.Background(), s, d, transcode.Options{
		Unit: us, Endian: binary.LittleEndian, Compression: &comp, Format: 3, Workers: 2,
	})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := t.Run(context.Background()); err != nil {
		b.Fatal(err)
	}
}
