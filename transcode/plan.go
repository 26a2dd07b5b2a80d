package transcode

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/zarr-dt64/dt64/blosc"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// Metadata documents of both formats, in the order WriteMetadata writes
// them (v2 .zattrs before .zarray, so .zarray appears last).
var metadataKeys = []string{".zattrs", ".zarray", "zarr.json"}

// destMetadata derives the destination's metadata from the source's and
// the options. It returns human-readable notes about what a format change
// could not carry over.
func destMetadata(src zarr.Metadata, o *Options) (zarr.Metadata, []string, error) {
	var notes []string
	m := src.Clone()
	format := src.Format
	if o.Format != 0 {
		format = o.Format
	}
	if format != 2 && format != 3 {
		return m, nil, planErr("format %d: want 2 or 3", o.Format)
	}
	m.Format = format

	if o.Unit != dtype.NoUnit {
		m.DataType.Unit, m.DataType.Scale = o.Unit, 1
	}
	if o.Scale != 0 {
		m.DataType.Scale = o.Scale
	}
	if err := m.DataType.Validate(); err != nil {
		return m, nil, planErr("destination data type: %v", err)
	}

	order := src.ByteOrder()
	if o.Endian != nil {
		order = o.Endian
	}
	if order == nil {
		// One-byte elements (a CF int8 or uint8 source) have no byte
		// order; the 8-byte destination needs one: Zarr's default.
		order = binary.LittleEndian
	}

	// Take the source's chain apart: optional sharding around transpose,
	// bytes and bytes->bytes codecs. Transpose is dropped: chunks are
	// decoded to C order and the destination stores them so.
	var shard *zarr.ShardingCodec
	inner := src.Codecs
	for _, c := range src.Codecs {
		if sc, ok := c.(zarr.ShardingCodec); ok {
			sc := sc
			shard, inner = &sc, sc.Codecs
		}
	}
	var srcCompress []zarr.Codec
	srcCRC := false
	for _, c := range inner {
		switch c := c.(type) {
		case zarr.ShardingCodec:
			return m, nil, fmt.Errorf("%w: nested sharding: %w", ErrPlan, zarr.ErrUnsupported)
		case zarr.CRC32CCodec:
			srcCRC = true
		case zarr.ZstdCodec, zarr.GzipCodec:
			srcCompress = append(srcCompress, c)
		case zarr.BloscCodec:
			if !blosc.Encodes(c.CName) {
				notes = append(notes, fmt.Sprintf("the source's blosc compressor %s is one dt64 reads but does not write: the destination is uncompressed unless --codec says otherwise", c.CName))
				continue
			}
			c.TypeSize = 0 // the destination's element size: 8 (a CF source's may be narrower)
			srcCompress = append(srcCompress, c)
		case zarr.ZlibCodec:
			if format == 3 {
				// Zarr v3 has no zlib; gzip is the same deflate stream
				// with a different header.
				srcCompress = append(srcCompress, zarr.GzipCodec{Level: c.Level})
				notes = append(notes, fmt.Sprintf("v2 compressor zlib:%d becomes gzip:%d (Zarr v3 has no zlib codec)", c.Level, c.Level))
			} else {
				srcCompress = append(srcCompress, c)
			}
		}
	}

	var bb []zarr.Codec
	crc := o.CRC32C
	if o.Compression != nil {
		if o.Compression.Codec != nil {
			bb = append(bb, o.Compression.Codec)
		}
	} else {
		bb = append(bb, srcCompress...)
		crc = crc || srcCRC
	}
	if crc {
		if format == 2 {
			if o.CRC32C {
				return m, nil, planErr("crc32c is a Zarr v3 codec; a v2 array cannot have it")
			}
			notes = append(notes, "the source's crc32c checksum is dropped: Zarr v2 has no crc32c codec")
		} else {
			bb = append(bb, zarr.CRC32CCodec{})
		}
	}
	chunkCodecs := append([]zarr.Codec{zarr.BytesCodec{Endian: order}}, bb...)

	srcInner := src.ChunkShape
	if shard != nil {
		srcInner = shard.ChunkShape
	}
	mode := o.Sharding.Mode
	switch {
	case format == 2 && mode == ShardAdd:
		return m, nil, planErr("sharding is a Zarr v3 codec; a v2 array cannot have it")
	case format == 2 && shard != nil:
		mode = ShardRemove
	}
	switch mode {
	case ShardKeep:
		m.Codecs = chunkCodecs
		if shard != nil {
			m.Codecs = []zarr.Codec{zarr.ShardingCodec{
				ChunkShape: slices.Clone(shard.ChunkShape), Codecs: chunkCodecs,
				IndexCodecs: shard.IndexCodecs, IndexLocation: shard.IndexLocation,
			}}
		}
	case ShardRemove:
		m.ChunkShape = slices.Clone(srcInner)
		m.Codecs = chunkCodecs
	case ShardAdd:
		if len(o.Sharding.Chunks) != len(src.Shape) {
			return m, nil, planErr("--shard-chunks %v gives %d of the array's %d dimensions", o.Sharding.Chunks, len(o.Sharding.Chunks), len(src.Shape))
		}
		m.ChunkShape = make([]int64, len(srcInner))
		for d := range srcInner {
			m.ChunkShape[d] = srcInner[d] * o.Sharding.Chunks[d]
		}
		m.Codecs = []zarr.Codec{zarr.ShardingCodec{
			ChunkShape:    slices.Clone(srcInner),
			Codecs:        chunkCodecs,
			IndexCodecs:   []zarr.Codec{zarr.BytesCodec{Endian: binary.LittleEndian}, zarr.CRC32CCodec{}},
			IndexLocation: zarr.IndexEnd,
		}}
	}

	if format != src.Format {
		m.KeyEncoding = zarr.KeyEncoding{} // the new format's default
		translateDimensions(&m, src.Format, format)
		if len(m.Extensions) > 0 {
			names := make([]string, 0, len(m.Extensions))
			for k := range m.Extensions {
				names = append(names, k)
			}
			slices.Sort(names)
			notes = append(notes, fmt.Sprintf("metadata fields %s of the v%d source have no v%d equivalent and are not copied", strings.Join(names, ", "), src.Format, format))
			m.Extensions = nil
		}
		if format == 2 && len(m.DimensionNames) > 0 {
			notes = append(notes, fmt.Sprintf("dimension_names %s are not copied: Zarr v2 has no such field", m.DimensionNames))
			m.DimensionNames = nil
		}
		if format == 3 && len(m.Attributes) == 0 {
			m.Attributes = nil // Create's default {}
		}
	}
	if m.FillNull {
		// A destination written by dt64 omits chunks that are all fill;
		// with a null fill zarr-python would read them as uninitialized
		// memory. NaT is what dt64 read them as.
		m.FillNull = false
		notes = append(notes, "the v2 fill value null becomes NaT (what dt64 reads missing chunks of the source as)")
	}
	return m, notes, nil
}

// planDoc is the plan marker stored in the destination while a run is in
// progress: enough to refuse resuming someone else's run.
type planDoc struct {
	Tool                 string            `json:"tool"`
	Version              int               `json:"version"`
	Source               string            `json:"source"` // informational: the same data may be mounted elsewhere
	SourceMetadataSHA256 string            `json:"source_metadata_sha256"`
	Destination          map[string]string `json:"destination_metadata"`
	Conversion           string            `json:"conversion"`
	Overflow             string            `json:"overflow"`
	Exact                bool              `json:"exact"`
	Units                int64             `json:"units"`
	// Run identifies the run that wrote the marker (and the parts and
	// resumes that go on with it): a running job checks that the marker
	// is still there with its id (live.go). Not part of the plan:
	// mismatch ignores it.
	Run string `json:"run,omitempty"`
}

const planVersion = 1

// mismatch describes how a stored plan differs from p ("" when it does
// not, the source location aside).
func (p *planDoc) mismatch(q *planDoc) string {
	var diffs []string
	if q.Tool != p.Tool || q.Version != p.Version {
		diffs = append(diffs, fmt.Sprintf("written by %s version %d", q.Tool, q.Version))
	}
	if q.SourceMetadataSHA256 != p.SourceMetadataSHA256 {
		diffs = append(diffs, fmt.Sprintf("source metadata differs (was %s)", q.Source))
	}
	for _, k := range metadataKeys {
		if q.Destination[k] != p.Destination[k] {
			diffs = append(diffs, "destination metadata "+k+" differs")
		}
	}
	if q.Conversion != p.Conversion {
		// What the destination metadata does not show: how CF floats are
		// read, a calendar conversion.
		diffs = append(diffs, fmt.Sprintf("conversion %q, now %q", q.Conversion, p.Conversion))
	}
	if q.Overflow != p.Overflow {
		diffs = append(diffs, fmt.Sprintf("overflow policy %s, now %s", q.Overflow, p.Overflow))
	}
	if q.Exact != p.Exact {
		diffs = append(diffs, fmt.Sprintf("exact %v, now %v", q.Exact, p.Exact))
	}
	if q.Units != p.Units && len(diffs) == 0 {
		diffs = append(diffs, fmt.Sprintf("%d work units, now %d", q.Units, p.Units))
	}
	return strings.Join(diffs, "; ")
}

// sourceFingerprint hashes the source's metadata documents as stored.
func sourceFingerprint(ctx context.Context, s storage.Store) (string, error) {
	h := sha256.New()
	for _, k := range metadataKeys {
		b, err := s.Get(ctx, k)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s\x00%d\x00", k, len(b))
		h.Write(b)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// metadataDocs returns the metadata documents WriteMetadata would write
// for m, by writing them to a memory store.
func metadataDocs(ctx context.Context, m zarr.Metadata) (map[string]string, error) {
	mem := storage.NewMemory()
	a, err := zarr.Create(ctx, mem, m)
	if err != nil {
		return nil, err
	}
	if err := a.WriteMetadata(ctx); err != nil {
		return nil, err
	}
	docs := map[string]string{}
	for _, k := range metadataKeys {
		if b, err := mem.Get(ctx, k); err == nil {
			docs[k] = string(b)
		}
	}
	return docs, nil
}

// convertFill converts the source fill value as the values convert: under
// the overflow policy ko.Overflow (missing chunks read as the fill value,
// so a fill that overflows is as much an overflow as a stored one) and, in
// exact mode, exactly. Under OverflowError an overflowing fill is refused
// with the kernel's *dtype.ElementError wrapped, so callers can offer the
// policies.
func convertFill(conv dtype.Conversion, fill int64, ko kernels.Options) (int64, kernels.Stats, error) {
	tc, err := kernels.NewTranscoder(conv, kernels.Options{Overflow: ko.Overflow, Exact: ko.Exact})
	if err != nil {
		return 0, kernels.Stats{}, err
	}
	v := []int64{fill}
	st, err := tc.RunInt64(v, v, nil)
	var ke *dtype.ElementError
	if errors.As(err, &ke) {
		return 0, st, fillError{ke}
	}
	if err != nil {
		return 0, st, fmt.Errorf("%w: the fill value %d (%s) does not convert to %s: %w", ErrPlan, fill, conv.From, conv.To, err)
	}
	return v[0], st, nil
}

// fillError is an ErrPlan for a fill value the conversion refuses; it
// wraps the kernel's element error (its reason, its value) but does not
// call the fill value an element.
type fillError struct{ ke *dtype.ElementError }

func (e fillError) Error() string {
	typ, val := e.ke.Describe()
	if e.ke.Reason == dtype.ReasonLoss {
		return fmt.Sprintf("%v: the fill value %s (%s) cannot be represented exactly in %s (a non-zero remainder would be dropped)", ErrPlan, val, typ, e.ke.To)
	}
	return fmt.Sprintf("%v: the fill value %s (%s) overflows int64 when converted to %s", ErrPlan, val, typ, e.ke.To)
}

func (e fillError) Unwrap() []error { return []error{ErrPlan, e.ke} }

// fillNote says what an overflowing fill value became, or "".
func fillNote(conv dtype.Conversion, from, to int64, st kernels.Stats, policy dtype.OverflowPolicy) string {
	if st.Overflowed == 0 {
		return ""
	}
	became := strconv.FormatInt(to, 10)
	if to == dtype.NaT {
		became = "NaT"
	}
	return fmt.Sprintf("the fill value %d (%s) overflows %s: under the overflow policy %s it becomes %s, as do the elements of chunks the source does not store", from, conv.From, conv.To, policy, became)
}
