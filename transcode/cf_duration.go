package transcode

import (
	"fmt"
	"math"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
)

// CF durations (units without "since", xarray's timedelta encoding) on
// either side of a job: a CF duration source decodes to timedelta64 as a
// CF time source decodes to datetime64 (cf.Units.Duration tells them
// apart), and a timedelta64 destination with Options.CF is written as a
// CF duration: int64 counts of a unit, units "hours" (no calendar), NaT
// as _FillValue.

// cfNoun names what units describe: "CF time" or "CF duration".
func cfNoun(u cf.Units) string {
	if u.Duration {
		return "CF duration"
	}
	return "CF time"
}

// cfDurationUnits parses Options.CFUnits for timedelta64 values of type d
// (a CF duration, "seconds"), or makes the default: d's own unit where
// xarray has it (weeks become days, units finer than nanoseconds
// nanoseconds), so the stored numbers are the timedelta64 counts
// themselves.
func cfDurationUnits(text string, d dtype.DataType) (cf.Units, error) {
	if text == "" {
		u, err := cfUnitFor(d)
		if err != nil {
			return cf.Units{}, planErr("CF destination: %v", err)
		}
		text = cfUnitWord[u]
	}
	u, err := cf.ParseDuration(text)
	if err != nil {
		return cf.Units{}, planErr("CF destination units for %s values: %v", d, err)
	}
	return u, nil
}

// xarrayDurationBound is how far (in counts of u) xarray 2023.01 decodes
// an int64 CF duration with a _FillValue exactly: it masks it through
// float64 (exact while |v| ≤ 2^53) and pandas multiplies the whole part
// by the unit's nanoseconds in int64, wrapping silently beyond
// timedelta64[ns].
func xarrayDurationBound(u dtype.Unit) int64 {
	ns := cfUnitNanoseconds[u]
	if ns == 0 {
		return 0
	}
	return min(1<<53, math.MaxInt64/ns)
}

// xarrayDurationRounding is XarrayRounding's reason for a CF duration
// whose values s reach beyond bound counts of u.
func xarrayDurationRounding(s Summary, u dtype.Unit, bound int64) string {
	why := "converts them to timedelta64[ns], wrapping silently beyond ±292 years, so it would change some of these durations (no CF unit keeps them: keep them as timedelta64)"
	if bound == 1<<53 {
		why = "so it may round some of these durations (a coarser unit keeps whole ones exact)"
	}
	return fmt.Sprintf("the values reach %d..%d %s; xarray (2023.01 at least) masks int64 durations with a _FillValue through float64 "+
		"and decodes them exactly only within ±%d, %s", s.Min, s.Max, cfUnitWord[u], bound, why)
}
