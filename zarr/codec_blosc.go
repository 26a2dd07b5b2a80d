package zarr

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zarr-dt64/dt64/blosc"
)

// BloscCodec is the Blosc meta-compressor (Blosc1 frames, which numcodecs
// and zarr-python write): each block of the chunk is shuffled, then
// compressed. It is the v3 "blosc" codec and the v2 "blosc" compressor.
//
// Reading takes every setting from the frame itself, so any c-blosc 1.x
// chunk reads (blosclz, lz4, lz4hc, snappy, zlib, zstd; noshuffle, shuffle,
// bitshuffle). Writing supports every CName but blosclz.
type BloscCodec struct {
	// CName is the compressor: "lz4", "lz4hc", "blosclz", "zstd", "zlib"
	// or "snappy".
	CName string
	// CLevel is 0-9; 0 stores chunks uncompressed.
	CLevel int
	// Shuffle is "noshuffle", "shuffle" (bytes) or "bitshuffle".
	Shuffle string
	// TypeSize is the element size the shuffle works on; 0 means the
	// array's element size (8 for every time type).
	TypeSize int
	// BlockSize is the decoded size of a Blosc block; 0 lets the encoder
	// choose.
	BlockSize int
}

func (BloscCodec) Name() string    { return "blosc" }
func (BloscCodec) kind() codecKind { return bytesToBytes }

var bloscShuffles = map[string]blosc.Shuffle{
	"noshuffle": blosc.NoShuffle, "shuffle": blosc.ByteShuffle, "bitshuffle": blosc.BitShuffle,
}

func (c BloscCodec) typeSize(elem int) int {
	if c.TypeSize == 0 {
		return elem
	}
	return c.TypeSize
}

// Check reports whether c is a Blosc configuration dt64 reads.
func (c BloscCodec) Check() error { return c.validate() }

func (c BloscCodec) validate() error {
	if !slices.Contains(blosc.CNames(), c.CName) {
		return fmt.Errorf("blosc codec: cname %q (want %s)", c.CName, strings.Join(blosc.CNames(), ", "))
	}
	if c.CLevel < 0 || c.CLevel > 9 {
		return fmt.Errorf("blosc codec: clevel %d out of range [0, 9]", c.CLevel)
	}
	if _, ok := bloscShuffles[c.Shuffle]; !ok {
		return fmt.Errorf("blosc codec: shuffle %q (want \"noshuffle\", \"shuffle\" or \"bitshuffle\")", c.Shuffle)
	}
	if c.TypeSize < 0 || c.TypeSize > 255 {
		return fmt.Errorf("blosc codec: typesize %d out of range [1, 255]", c.TypeSize)
	}
	if c.BlockSize < 0 || c.BlockSize > 1<<31-1 {
		return fmt.Errorf("blosc codec: blocksize %d out of range [0, 2^31-1]", c.BlockSize)
	}
	return nil
}

// bloscStage runs the codec. Encoding with blosclz is refused at write
// time, not when the array opens: such arrays must still be readable.
type bloscStage struct{ opt blosc.Options }

func newBloscStage(c BloscCodec, elem int) (bloscStage, error) {
	if err := c.validate(); err != nil {
		return bloscStage{}, err
	}
	return bloscStage{blosc.Options{
		Compressor: c.CName,
		Level:      c.CLevel,
		Shuffle:    bloscShuffles[c.Shuffle],
		TypeSize:   c.typeSize(elem),
		BlockSize:  c.BlockSize,
	}}, nil
}

// A frame never exceeds its data plus the 16-byte header: data that does not
// compress is stored as it is (c-blosc's BLOSC_MAX_OVERHEAD).
func (bloscStage) bound(n int) int { return blosc.MaxEncodedLen(n) }

func (s bloscStage) encode(dst, src []byte) ([]byte, error) {
	out, err := blosc.Encode(dst[:0], src, s.opt)
	if err != nil {
		return nil, bloscErr(err)
	}
	return out, nil
}

// decode writes into dst and never past cap(dst), which the chain sets to
// the chunk's size: a frame declaring more is refused from its header.
func (bloscStage) decode(dst, src []byte) ([]byte, error) {
	out, err := blosc.Decode(dst[:0], src)
	if err != nil {
		return nil, bloscErr(err)
	}
	return out, nil
}

// bloscError carries a blosc package error and the matching sentinel of
// this package, so errors.Is works with both.
type bloscError struct{ err, kind error }

func (e *bloscError) Error() string   { return "blosc: " + e.err.Error() }
func (e *bloscError) Unwrap() []error { return []error{e.kind, e.err} }

func bloscErr(err error) error {
	switch {
	case errors.Is(err, blosc.ErrCorrupt):
		return &bloscError{err, ErrCorrupt}
	case errors.Is(err, blosc.ErrTooLarge):
		return &bloscError{err, ErrTooLarge}
	case errors.Is(err, blosc.ErrUnsupported):
		return &bloscError{err, ErrUnsupported}
	}
	return fmt.Errorf("blosc: %w", err)
}

// parseBloscV3 parses a v3 "blosc" configuration. cname, clevel and shuffle
// are required; typesize defaults to the element size, blocksize to 0.
func parseBloscV3(config json.RawMessage) (Codec, error) {
	var cfg struct {
		CName     *string `json:"cname"`
		CLevel    *int    `json:"clevel"`
		Shuffle   *string `json:"shuffle"`
		TypeSize  *int    `json:"typesize"`
		BlockSize *int    `json:"blocksize"`
	}
	if err := strictUnmarshal(config, &cfg); err != nil {
		return nil, fmt.Errorf("blosc codec: %v", err)
	}
	switch {
	case cfg.CName == nil:
		return nil, inField("cname", errors.New("required"))
	case cfg.CLevel == nil:
		return nil, inField("clevel", errors.New("required"))
	case cfg.Shuffle == nil:
		return nil, inField("shuffle", errors.New("required"))
	}
	c := BloscCodec{CName: *cfg.CName, CLevel: *cfg.CLevel, Shuffle: *cfg.Shuffle}
	if cfg.TypeSize != nil {
		if *cfg.TypeSize < 1 {
			return nil, inField("typesize", fmt.Errorf("%d (want 1-255)", *cfg.TypeSize))
		}
		c.TypeSize = *cfg.TypeSize
	}
	if cfg.BlockSize != nil {
		c.BlockSize = *cfg.BlockSize
	}
	return c, c.validate()
}

func bloscJSONV3(c BloscCodec, elem int) any {
	return struct {
		Name          string `json:"name"`
		Configuration any    `json:"configuration"`
	}{"blosc", struct {
		TypeSize  int    `json:"typesize"`
		CName     string `json:"cname"`
		CLevel    int    `json:"clevel"`
		Shuffle   string `json:"shuffle"`
		BlockSize int    `json:"blocksize"`
	}{c.typeSize(elem), c.CName, c.CLevel, c.Shuffle, c.BlockSize}}
}

// parseBloscV2 parses numcodecs' Blosc compressor config, with numcodecs'
// defaults (lz4, clevel 5, shuffle, automatic blocksize). shuffle is 0, 1,
// 2, or -1 (AUTOSHUFFLE: bit shuffle for 1-byte items, byte shuffle
// otherwise; read as byte shuffle, which is what it means for every type
// wider than a byte and only matters for writing).
func parseBloscV2(raw json.RawMessage) (Codec, error) {
	var cfg struct {
		ID        string  `json:"id"`
		CName     *string `json:"cname"`
		CLevel    *int    `json:"clevel"`
		Shuffle   *int    `json:"shuffle"`
		BlockSize *int    `json:"blocksize"`
		TypeSize  *int    `json:"typesize"`
	}
	if err := strictUnmarshal(raw, &cfg); err != nil {
		return nil, fmt.Errorf("blosc: %v", err)
	}
	c := BloscCodec{CName: "lz4", CLevel: 5, Shuffle: "shuffle"}
	if cfg.CName != nil {
		c.CName = *cfg.CName
	}
	if cfg.CLevel != nil {
		c.CLevel = *cfg.CLevel
	}
	if cfg.Shuffle != nil {
		switch *cfg.Shuffle {
		case 0:
			c.Shuffle = "noshuffle"
		case 1, -1:
			c.Shuffle = "shuffle"
		case 2:
			c.Shuffle = "bitshuffle"
		default:
			return nil, inField("shuffle", fmt.Errorf("%d (want 0 noshuffle, 1 shuffle, 2 bitshuffle or -1 auto)", *cfg.Shuffle))
		}
	}
	if cfg.BlockSize != nil {
		c.BlockSize = *cfg.BlockSize
	}
	if cfg.TypeSize != nil {
		if *cfg.TypeSize < 1 {
			return nil, inField("typesize", fmt.Errorf("%d (want 1-255)", *cfg.TypeSize))
		}
		c.TypeSize = *cfg.TypeSize
	}
	return c, c.validate()
}

// bloscJSONV2 is numcodecs' Blosc config. It has no typesize: numcodecs
// takes it from the dtype.
func bloscJSONV2(c BloscCodec) map[string]any {
	shuffle := map[string]int{"noshuffle": 0, "shuffle": 1, "bitshuffle": 2}[c.Shuffle]
	return map[string]any{"id": "blosc", "cname": c.CName, "clevel": c.CLevel, "shuffle": shuffle, "blocksize": c.BlockSize}
}
