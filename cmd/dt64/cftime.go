package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/kernels"
	"github.com/zarr-dt64/dt64/transcode"
	"github.com/zarr-dt64/dt64/zarr"
)

// cfView decodes the chunks of a CF time array (xarray's encoding) for
// inspect and validate, exactly as transcode does.
type cfView struct {
	t   *cf.Time
	to  dtype.DataType
	dec *kernels.CFDecoder
}

func newCFView(a *zarr.Array, t *cf.Time, to dtype.DataType, co cf.CalendarOptions) (*cfView, error) {
	dec, err := kernels.NewCFDecoder(t, to, kernels.Options{From: a.ByteOrder(), To: dtype.NativeOrder(), Calendar: co})
	if err != nil {
		return nil, err
	}
	return &cfView{t: t, to: to, dec: dec}, nil
}

// decode decodes the chunk at coords, raw as ReadChunkRaw returned it at
// the start of a buffer of 8 × ChunkLen bytes (its capacity), in place,
// and returns the decoded elements (native byte order). Padding is set to
// the chunk's first element first, so that a writer's uninitialized
// padding cannot fail.
func (v *cfView) decode(a *zarr.Array, coords []int64, raw []byte) ([]byte, error) {
	full := raw[:8*a.ChunkLen()]
	z := a.ElementSize()
	first := append([]byte(nil), raw[:z]...)
	a.Grid().Pad(raw, coords, first)
	if _, err := v.dec.Run(full, raw, nil); err != nil {
		return nil, err
	}
	return full, nil
}

// cfTypes are the datetime64 types (timedelta64 for a CF duration)
// inspect shows a CF array in, in order of preference: the transcode
// default (cf.Time.DefaultType), then, when values overflow that (a float
// "days since 1500-01-01" array of 16th-century dates has no nanosecond
// form), microseconds, milliseconds and seconds, which keep the fractions
// such floats usually hold (the CF unit, days, would floor 06:00 away), and
// last the CF unit itself.
func cfTypes(t *cf.Time) []dtype.DataType {
	def := t.DefaultType()
	own := dtype.DataType{Kind: t.Units.Kind(), Unit: t.Units.Unit, Scale: 1}
	types := []dtype.DataType{def}
	if def.Unit == dtype.Nanosecond {
		for _, u := range []dtype.Unit{dtype.Microsecond, dtype.Millisecond, dtype.Second} {
			types = append(types, dtype.DataType{Kind: def.Kind, Unit: u, Scale: 1})
		}
	}
	if !slices.Contains(types, own) {
		types = append(types, own)
	}
	return types
}

func isOverflow(err error) bool {
	var ke *dtype.ElementError
	return errors.As(err, &ke) && ke.Reason == dtype.ReasonOverflow
}

// cfLeftovers describes the CF time attributes of a datetime64 array: a
// reader that applies them shifts the instants (CF offsets written into a
// native array), and xarray 2023.01, which does not, keeps units as an
// attribute and then refuses to write the dataset back (checked on a
// zarr-python 2.13 array, session 27). "" when there are none.
func cfLeftovers(a *zarr.Array) string {
	if !a.IsTime() {
		return ""
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(a.Metadata().Attributes, &obj) != nil {
		return ""
	}
	var units string
	if json.Unmarshal(obj["units"], &units) != nil {
		return ""
	}
	for _, w := range strings.Fields(units) {
		if strings.EqualFold(w, "since") {
			return fmt.Sprintf("a %s array with the CF time attribute units %q, which describes numbers, not datetime64 values: xarray 2023.01 reads the values as they are "+
				"but keeps units as an attribute, and then cannot write the dataset back (\"failed to prevent overwriting existing key units\"); a reader that applies it "+
				"shifts every instant (CF offsets written into a native array); if the values are already the instants, remove units and calendar", a.DataType(), units)
		}
	}
	return ""
}

// xarrayWarning is the warning after a --cf run whose values xarray
// would not decode exactly (transcode.Plan.XarrayRounding) and what
// keeps them exact; "" when xarray decodes them exactly. A CF duration's
// reason says its own remedy.
func xarrayWarning(p transcode.Plan, s transcode.Summary) string {
	reason, exact := p.XarrayRounding(s)
	switch {
	case reason == "":
		return ""
	case exact != "":
		return fmt.Sprintf("%s; --cf-units %q keeps them exact", reason, exact)
	case p.CFUnits != nil && p.CFUnits.Duration:
		return reason
	}
	return reason + "; a coarser unit (--unit, or --cf-units) keeps them exact"
}
