package zarrow

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/zarr-dt64/dt64/storage"
)

// getCounter counts the reads of each key of a store.
type getCounter struct {
	storage.Store
	mu   sync.Mutex
	gets map[string]int
}

func (g *getCounter) Get(ctx context.Context, key string) ([]byte, error) {
	g.mu.Lock()
	g.gets[key]++
	g.mu.Unlock()
	return g.Store.Get(ctx, key)
}

// longBatches reads every batch of a long table of store, with the
// given band limit, and returns them (retained) with the table.
func longBatches(t *testing.T, store storage.Store, o LongOptions, limit int64) (*Table, []arrow.RecordBatch) {
	t.Helper()
	defer func(b int64) { bandBytes = b }(bandBytes)
	bandBytes = limit
	ctx := context.Background()
	tab, err := OpenLongTable(ctx, store, o)
	if err != nil {
		t.Fatal(err)
	}
	r := tab.RecordReader(ctx)
	defer r.Release()
	var recs []arrow.RecordBatch
	for r.Next() {
		r.RecordBatch().Retain()
		recs = append(recs, r.RecordBatch())
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return tab, recs
}

// Chunks that hold several indices of the dimensions before the one
// batches are cut along are decoded once each, not once for every index
// (the tester's 48 × 361 × 720 grid in one chunk, batches of 100 000
// rows: 144 decodes of the 50 MB chunk, 11 s), and the batches are the
// same as when each batch reads its own box. Beyond the band limit they
// are read box by box, and a note says how many times each chunk is
// decoded.
func TestLongBandDecodesChunksOnce(t *testing.T) {
	for _, c := range []struct {
		name         string
		shape, chunk []int64
		rows         int64
	}{
		// One chunk; batches of 3 of the 19 lat (no length of at least
		// half divides 19, but the chunk holds all of lat).
		{"one chunk", []int64{4, 19, 10}, []int64{4, 19, 10}, 30},
		// Chunks of 2 time steps and 5 of 12 lat (the last 2), half the
		// lon; batches of 5 lat (one chunk's).
		{"grid of chunks", []int64{5, 12, 8}, []int64{2, 5, 4}, 40},
		// A batch of one lon row of a 4-D grid: bands of 3 × 2 indices.
		{"4-D", []int64{3, 4, 5, 6}, []int64{3, 2, 5, 3}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, prefetch := range []int{0, 3} {
				counted := &getCounter{Store: gridGroup(t, []string{"time", "lat", "lon", "lev"}[:len(c.shape)], c.shape, c.chunk), gets: map[string]int{}}
				o := LongOptions{BatchRows: c.rows, Prefetch: prefetch}
				tab, band := longBatches(t, counted, o, LongBandBytes)
				if tab.long.band() <= 1 {
					t.Fatalf("prefetch %d: spans %v: no band", prefetch, tab.long.spanShape)
				}
				for _, n := range tab.Notes() {
					if strings.Contains(n, "decoded") {
						t.Errorf("prefetch %d: note %q", prefetch, n)
					}
				}
				chunks := 0
				for k, n := range counted.gets {
					if strings.HasPrefix(k, "t2m/c/") {
						chunks++
						if n != 1 {
							t.Errorf("prefetch %d: chunk %s read %d times", prefetch, k, n)
						}
					}
				}
				if want := int(tab.long.vars[0].array.NumChunks()); chunks != want {
					t.Errorf("prefetch %d: %d chunks read of %d", prefetch, chunks, want)
				}
				// Without the band (a limit of 0 bytes): each batch reads
				// its box, and each chunk is read once for every index of
				// the dimensions before lat it holds.
				again := &getCounter{Store: counted.Store, gets: map[string]int{}}
				tab0, boxes := longBatches(t, again, o, 0)
				if tab0.long.band() > 1 {
					t.Fatalf("prefetch %d: a band over the limit", prefetch)
				}
				if !strings.Contains(strings.Join(tab0.Notes(), "\n"), "each chunk is decoded") {
					t.Errorf("prefetch %d: no note on decoding, notes %q", prefetch, tab0.Notes())
				}
				if again.gets["t2m/c/0/0/0"+strings.Repeat("/0", len(c.shape)-3)] <= 1 {
					t.Errorf("prefetch %d: without the band, the first chunk is read %d times", prefetch, again.gets["t2m/c/0/0/0"])
				}
				if len(band) != len(boxes) {
					t.Fatalf("prefetch %d: %d batches by band, %d by box", prefetch, len(band), len(boxes))
				}
				for i := range band {
					if !array.RecordEqual(band[i], boxes[i]) {
						t.Errorf("prefetch %d: batch %d differs", prefetch, i)
					}
					band[i].Release()
					boxes[i].Release()
				}
			}
		})
	}
}

// An empty dimension makes no band and no span of zero extent (which
// the spans' count would divide by).
func TestLongBandEmpty(t *testing.T) {
	vars := arrow.NewSchema([]arrow.Field{{Name: "t2m", Type: arrow.PrimitiveTypes.Float32, Nullable: true}}, nil)
	for _, shape := range [][]int64{{4, 0, 6}, {0, 5, 6}, {4, 5, 0}} {
		for _, rows := range []int64{1, 4, 100} {
			l := &longTable{shape: shape, dims: []string{"time", "lat", "lon"}}
			l.planBatches(rows, []int64{2, 5, 3}, vars)
			for _, s := range l.spanShape {
				if s < 1 {
					t.Errorf("shape %v, batches of %d: spans %v", shape, rows, l.spanShape)
				}
			}
			if l.spanned() && l.spans() < 0 {
				t.Errorf("shape %v: %d spans", shape, l.spans())
			}
		}
	}
}
