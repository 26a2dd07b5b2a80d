package transcode

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/zarr-dt64/dt64/blosc"
	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// Options describe a re-encode. The zero value copies the array as it is
// (same data type, byte order, codecs, sharding and format) with one worker
// per CPU.
type Options struct {
	// Unit is the destination unit; the zero value (dtype.NoUnit) keeps
	// the source's.
	Unit dtype.Unit
	// Scale is the destination scale factor; 0 keeps the source's, or
	// means 1 when Unit is set.
	Scale int64
	// Endian is the destination byte order (binary.LittleEndian or
	// binary.BigEndian); nil keeps the source's.
	Endian binary.ByteOrder
	// Compression replaces the source's compressor; nil keeps it (a v2
	// zlib compressor becomes gzip at the same level in a v3 destination,
	// which has no zlib codec).
	Compression *Compression
	// CRC32C appends a crc32c checksum codec (v3 only). Without it a
	// source's crc32c is kept unless Compression is given.
	CRC32C bool
	// Sharding adds, keeps or removes the sharding_indexed codec.
	Sharding Sharding
	// Format is the destination Zarr format, 2 or 3; 0 keeps the source's.
	Format int

	// CF writes the destination CF-encoded, as xarray reads time
	// coordinates: int64 counts of CFUnits, attributes units, calendar
	// "proleptic_gregorian" and _FillValue MinInt64 (NaT, also the array's
	// fill value). Without CFUnits the unit is the destination unit's
	// (Unit, else the source's; weeks as days, units finer than ns as ns)
	// and the reference the epoch, 1970-01-01 00:00:00.
	CF bool
	// CFUnits are the CF destination's units, "<unit> since <date>"
	// (implies CF), e.g. "seconds since 2000-01-01".
	CFUnits string
	// CFFloat is how a CF source's floats decode: the coarsest instant
	// each stands for, rounded to the destination unit (cf.FloatShortest,
	// the default), or the exact binary value floored (cf.FloatExact).
	CFFloat cf.FloatRule
	// Calendar converts a CF source's dates from a calendar other than
	// NumPy's (cf.CalendarOptions): model calendars (noleap, all_leap,
	// 360_day) are refused without it; julian and standard dates keep
	// their true instants unless it asks for their dates. A converted
	// destination records what was done in its attributes
	// source_calendar and calendar_conversion.
	Calendar cf.CalendarOptions

	// Overflow is what happens to an element whose converted value does
	// not fit in an int64: stop the run (default), store NaT, or clamp.
	// The fill value converts under the same policy (New refuses one that
	// overflows under the default), since missing chunks hold it.
	Overflow dtype.OverflowPolicy
	// Exact makes any loss of precision (a non-zero remainder floored
	// away) an error.
	Exact bool

	// Workers is how many chunks are converted at once (CPU work);
	// 0 means runtime.NumCPU(). With fewer units in flight (InFlight),
	// only that many can be.
	Workers int
	// InFlight is how many work units may be in progress at once,
	// including those waiting for the store. 0 means Workers when both
	// stores are local (a storage.Dir or storage.Memory: their I/O is
	// a copy to or from the page cache, CPU work that more units in
	// flight would only share out) and 2 × Workers otherwise (a remote
	// store's latency is waiting, during which another unit can use the
	// CPU). Below Workers it is honoured, and only that many units
	// convert at once: it is the memory bound's multiplier (see the
	// package documentation).
	InFlight int
	// Part restricts the run to one deterministic share of the work.
	Part Part

	// Resume continues an interrupted run of the same plan in the
	// destination (or starts one in an empty destination).
	Resume bool
	// Overwrite deletes an existing destination array (or interrupted
	// run) first. A directory holding anything else is never deleted,
	// nor one a run is writing (its lease is renewed: live.go).
	Overwrite bool
	// LeaseInterval is how often the run renews its lease on the
	// destination and checks that the destination is still its own; 0
	// means DefaultLeaseInterval. An overwrite that finds a lease waits
	// about two and a half intervals to tell whether it is renewed.
	LeaseInterval time.Duration
}

// Compression is the destination's compressor, parsed once: Codec is a
// zarr.ZstdCodec, zarr.GzipCodec or zarr.BloscCodec, or nil for none.
type Compression struct {
	Codec zarr.Codec
}

func (c Compression) String() string {
	switch k := c.Codec.(type) {
	case nil:
		return "none"
	case zarr.ZstdCodec:
		return "zstd:" + strconv.Itoa(k.Level)
	case zarr.GzipCodec:
		return "gzip:" + strconv.Itoa(k.Level)
	case zarr.BloscCodec:
		return fmt.Sprintf("blosc:%s:%d:%s", k.CName, k.CLevel, k.Shuffle)
	}
	return c.Codec.Name()
}

// ParseCompression parses "zstd[:LEVEL]", "gzip[:LEVEL]",
// "blosc[:CNAME[:LEVEL[:SHUFFLE]]]" or "none". zstd's default level is 3
// (levels -7..22), gzip's 5 (0..9); blosc's defaults are zstd, 5, shuffle:
// the byte shuffle puts the slowly changing high bytes of timestamps side
// by side, which compresses them 2-3x better than zstd alone.
func ParseCompression(s string) (Compression, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	name, arg, hasArg := strings.Cut(t, ":")
	level := func(def, lo, hi int) (int, error) {
		if !hasArg {
			return def, nil
		}
		l, err := strconv.Atoi(arg)
		if err != nil {
			return 0, fmt.Errorf("codec %q: level %q is not an integer", s, arg)
		}
		if l < lo || l > hi {
			return 0, fmt.Errorf("codec %q: %s levels are %d..%d", s, name, lo, hi)
		}
		return l, nil
	}
	switch name {
	case "zstd":
		l, err := level(3, -7, 22)
		return Compression{Codec: zarr.ZstdCodec{Level: l}}, err
	case "gzip":
		l, err := level(5, 0, 9)
		return Compression{Codec: zarr.GzipCodec{Level: l}}, err
	case "blosc":
		return parseBlosc(s, arg, hasArg)
	case "none":
		if hasArg {
			return Compression{}, fmt.Errorf("codec %q: none takes no level", s)
		}
		return Compression{}, nil
	}
	return Compression{}, fmt.Errorf("codec %q: want zstd[:LEVEL], gzip[:LEVEL], blosc[:CNAME[:LEVEL[:SHUFFLE]]] or none", s)
}

func parseBlosc(s, rest string, hasRest bool) (Compression, error) {
	c := zarr.BloscCodec{CName: "zstd", CLevel: 5, Shuffle: "shuffle"}
	if hasRest {
		parts := strings.Split(rest, ":")
		if len(parts) > 3 {
			return Compression{}, fmt.Errorf("codec %q: want blosc[:CNAME[:LEVEL[:SHUFFLE]]]", s)
		}
		c.CName = parts[0]
		if !blosc.Encodes(c.CName) {
			return Compression{}, fmt.Errorf("codec %q: blosc compressor %q is not one dt64 writes (%s)", s, c.CName, strings.Join(blosc.EncodedCNames(), ", "))
		}
		if len(parts) > 1 {
			l, err := strconv.Atoi(parts[1])
			if err != nil || l < 0 || l > 9 {
				return Compression{}, fmt.Errorf("codec %q: blosc levels are 0..9", s)
			}
			c.CLevel = l
		}
		if len(parts) > 2 {
			c.Shuffle = parts[2]
		}
	}
	if err := c.Check(); err != nil {
		return Compression{}, fmt.Errorf("codec %q: %w", s, err)
	}
	return Compression{Codec: c}, nil
}

// ShardMode says what happens to sharding.
type ShardMode uint8

const (
	// ShardKeep keeps the source's sharding (none stays none); a v2
	// destination, which cannot shard, removes it.
	ShardKeep ShardMode = iota
	// ShardAdd makes each destination chunk a shard of Sharding.Chunks
	// inner chunks per dimension. The inner chunks have the source's chunk
	// shape (its inner chunk shape when the source is sharded).
	ShardAdd
	// ShardRemove stores the source's inner chunks as plain chunks.
	ShardRemove
)

// Sharding configures the sharding_indexed codec of the destination.
type Sharding struct {
	Mode   ShardMode
	Chunks []int64 // ShardAdd: inner chunks per shard along each dimension
}

// ParseSharding parses the CLI form: "none" (remove) or a comma list of
// inner chunks per shard per dimension ("4" or "2,8").
func ParseSharding(s string) (Sharding, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "none") {
		return Sharding{Mode: ShardRemove}, nil
	}
	var out Sharding
	out.Mode = ShardAdd
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n < 1 {
			return Sharding{}, fmt.Errorf("shard chunks %q: want positive integers, one per dimension (N,N,...), or none", s)
		}
		out.Chunks = append(out.Chunks, n)
	}
	return out, nil
}

// Part is one share of a partitioned run: Index in [0, Count). Count 0
// (the zero value) or 1 means the whole array.
type Part struct {
	Index, Count int
}

// ParsePart parses "I/N" with 0 <= I < N (0-based, like a Kubernetes
// Indexed Job's JOB_COMPLETION_INDEX).
func ParsePart(s string) (Part, error) {
	i, n, ok := strings.Cut(s, "/")
	if !ok {
		return Part{}, fmt.Errorf("part %q: want I/N (0 <= I < N)", s)
	}
	pi, err1 := strconv.Atoi(strings.TrimSpace(i))
	pn, err2 := strconv.Atoi(strings.TrimSpace(n))
	if err1 != nil || err2 != nil || pn < 1 || pi < 0 || pi >= pn {
		return Part{}, fmt.Errorf("part %q: want I/N with 0 <= I < N (parts are numbered from 0)", s)
	}
	return Part{Index: pi, Count: pn}, nil
}

func (p Part) count() int {
	if p.Count <= 0 {
		return 1
	}
	return p.Count
}

func (p Part) String() string { return fmt.Sprintf("%d/%d", p.Index, p.count()) }

// units returns the contiguous range of work units [lo, hi) of part p out
// of n: deterministic, so parts on different machines agree. The products
// n·I are taken in 128 bits: they overflow int64 for large unit counts.
func (p Part) units(n int64) (lo, hi int64) {
	c := uint64(p.count())
	at := func(i int) int64 {
		h, l := bits.Mul64(uint64(n), uint64(i))
		q, _ := bits.Div64(h, l, c) // h < c, since i <= c: no overflow
		return int64(q)
	}
	return at(p.Index), at(p.Index + 1)
}

func (o *Options) workers() int {
	if o.Workers > 0 {
		return o.Workers
	}
	return runtime.NumCPU()
}

// inFlight is Options.InFlight with its default; localIO says both stores
// are local (see localStores).
func (o *Options) inFlight(localIO bool) int {
	w := o.workers()
	switch {
	case o.InFlight > 0:
		return o.InFlight
	case localIO:
		return w
	}
	return 2 * w
}

// cpus is how many units convert at once: Workers, but never more than
// are in flight (a unit converts only while it is in flight).
func (o *Options) cpus(localIO bool) int { return min(o.workers(), o.inFlight(localIO)) }

// localStores reports whether reading src and writing dst costs CPU
// rather than waiting: a directory (the page cache) or memory. A unit
// that gives up its CPU token around such I/O still keeps a CPU busy in
// the kernel, so more units in flight than workers would oversubscribe
// the CPUs (more threads, context switches and working sets fighting over
// the caches) and hold twice the buffers, for no throughput. That holds
// for a durable directory too: on a quiet machine its fdatasyncs cost
// less with Workers units in flight than with twice as many (median
// sync cost 1.09 × against 1.14 ×, BenchmarkDurableCost); on a loaded
// one twice as many won (1.33 × against 1.78 ×), and Options.InFlight
// says so, as it does for a store cold on a slow disk.
func localStores(src, dst storage.Store) bool {
	local := func(s storage.Store) bool {
		switch s.(type) {
		case *storage.Dir, *storage.Memory:
			return true
		}
		return false
	}
	return local(src) && local(dst)
}
