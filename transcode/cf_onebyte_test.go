package transcode_test

import (
	"testing"

	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/transcode"
)

// oneByteCF is a v2 CF time array of one-byte elements (dtype "|i1" or
// "|u1"), chunks of 2, days since 2000-01-01, under prefix ("day/" in a
// group, "" alone).
func oneByteCF(t *testing.T, dtypeText string, raw []byte, prefix string) storage.Store {
	t.Helper()
	s := storage.NewMemory()
	docs := map[string]string{
		"day/.zarray": `{"zarr_format": 2, "shape": [3], "chunks": [2], "dtype": "` + dtypeText + `", "compressor": null,
			"fill_value": null, "filters": null, "order": "C"}`,
		"day/.zattrs": `{"units": "days since 2000-01-01", "_ARRAY_DIMENSIONS": ["day"]}`,
		"day/0":       string(raw[:2]),
		"day/1":       string(append(raw[2:3:3], 0)),
	}
	if prefix != "" {
		docs[".zgroup"] = `{"zarr_format": 2}`
	}
	for k, v := range docs {
		if k != ".zgroup" {
			k = prefix + k[len("day/"):]
		}
		if err := s.Set(ctx, k, []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// TestCFOneByte: int8 and uint8 CF times decode like every other width,
// alone (to v2 and v3) and in a group, where they are time arrays.
func TestCFOneByte(t *testing.T) {
	const day = 86400
	ref := int64(10957) * day // 2000-01-01 in seconds
	for _, c := range []struct {
		dtype string
		raw   []byte
		want  []int64 // days since 2000-01-01
	}{
		{"|u1", []byte{0, 1, 200}, []int64{0, 1, 200}},
		{"|i1", []byte{0, 0xff, 0x80}, []int64{0, -1, -128}},
	} {
		for _, format := range []int{2, 3} {
			dst := storage.NewMemory()
			j, err := transcode.New(ctx, oneByteCF(t, c.dtype, c.raw, ""), dst, transcode.Options{Format: format, Unit: dtype.Second})
			if err != nil {
				t.Fatalf("%s to v%d: %v", c.dtype, format, err)
			}
			if _, err := j.Run(ctx); err != nil {
				t.Fatalf("%s to v%d: %v", c.dtype, format, err)
			}
			_, got := readArray(t, dst)
			for i, d := range c.want {
				if got[i] != ref+d*day {
					t.Errorf("%s to v%d: element %d is %d, want %d", c.dtype, format, i, got[i], ref+d*day)
				}
			}
		}
		g, err := transcode.NewStore(ctx, oneByteCF(t, c.dtype, c.raw, "day/"), storage.NewMemory(), transcode.StoreOptions{})
		if err != nil {
			t.Fatalf("%s in a group: %v", c.dtype, err)
		}
		if p := g.Plan(); len(p.Arrays) != 1 || p.Arrays[0].Action != "transcode" {
			t.Errorf("%s in a group: plan %+v, want the array transcoded", c.dtype, p.Arrays)
		}
	}
}
