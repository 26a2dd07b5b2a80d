package cf

import (
	"errors"
	"os/exec"
	"strings"
	"testing"
)

// TestZonesAsXarrayReadsThem: every zone spelling dt64 accepts reads as
// xarray 2023.01 and cftime read it, and every spelling on which they
// disagree ("UTC+1", "GMT-3", "+1") is a *ZoneError naming a spelling
// all of them read alike. "utc+1", which both ignore the offset of, is
// refused too: its writer meant an offset.
func TestZonesAsXarrayReadsThem(t *testing.T) {
	zones := []string{"Z", "UTC", "GMT", "utc", "+01:00", "-0530", "+01", "-07", "+0100", "-05:30", "+0", "UTC+00:00", "GMT+0",
		"UTC+1", "UTC+01:00", "UTC-1", "GMT+1", "GMT-3", "GMT-03:00", "UTC+0100", "utc+1", "Gmt+2", "+1", "-5", "+1:30"}
	script := `
import sys, warnings
warnings.filterwarnings("ignore")
import numpy as np, cftime
from xarray.coding.times import decode_cf_datetime
for z in sys.argv[1:]:
    u = "hours since 2000-01-01 00:00:00 " + z
    x = decode_cf_datetime(np.array([0]), u, "standard")[0].astype("M8[s]")
    c = cftime.num2date(0, u, "standard", only_use_cftime_datetimes=False)
    print(str(x), np.datetime64(c, "s"))
`
	out, err := exec.Command("/usr/bin/python3", append([]string{"-c", script}, zones...)...).CombinedOutput()
	if err != nil {
		if testing.Short() {
			t.Skipf("xarray and cftime (python3-xarray, python3-cftime): %v", err)
		}
		t.Fatalf("xarray and cftime (python3-xarray, python3-cftime): %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) != len(zones) {
		t.Fatalf("python printed %d lines for %d zones:\n%s", len(lines), len(zones), out)
	}
	refused := 0
	for i, z := range zones {
		f := strings.Fields(lines[i])
		xr, ct := f[0], f[1]
		u, err := ParseUnits("hours since 2000-01-01 00:00:00 "+z, Standard)
		var ze *ZoneError
		switch {
		case xr != ct:
			if !errors.As(err, &ze) || ze.Text != z {
				t.Errorf("%q: xarray reads %s, cftime %s; dt64 must refuse it, got %v", z, xr, ct, err)
				continue
			}
			refused++
			// The spelling the error suggests first reads as ISO does,
			// and is accepted.
			suggested := strings.Fields(strings.SplitAfter(err.Error(), "; write ")[1])[0]
			if _, err := ParseUnits("hours since 2000-01-01 00:00:00 "+suggested, Standard); err != nil {
				t.Errorf("%q: suggested %q is refused: %v", z, suggested, err)
			}
		case errors.As(err, &ze) && ze.Named:
			t.Logf("%q: xarray and cftime both ignore the offset; refused: %v", z, err)
		case err != nil:
			t.Errorf("%q: xarray and cftime both read %s; dt64 refuses it: %v", z, xr, err)
		case FormatInstant(u.Reference) != xr:
			t.Errorf("%q: dt64 reads %s, xarray and cftime %s", z, FormatInstant(u.Reference), xr)
		}
	}
	if refused == 0 {
		t.Error("no spelling on which the readers disagree: the test checks nothing")
	}
	t.Logf("%d spellings, %d refused", len(zones), refused)
}
