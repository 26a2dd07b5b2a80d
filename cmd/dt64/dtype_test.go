package main

import (
	"strings"
	"testing"
)

func TestDtypeCommand(t *testing.T) {
	for _, tc := range []struct{ spec, zarr, numpy string }{
		{"<M8[10us]", `{"name":"numpy.datetime64","configuration":{"unit":"us","scale_factor":10}}`, "<M8[10us]"},
		{">m8[ns]", `{"name":"numpy.timedelta64","configuration":{"unit":"ns","scale_factor":1}}`, ">m8[ns]"},
		{"timedelta64[25h]", `{"name":"numpy.timedelta64","configuration":{"unit":"h","scale_factor":25}}`, "<m8[25h]"},
		{"M8", `{"name":"numpy.datetime64","configuration":{"unit":"generic","scale_factor":1}}`, "<M8"},
		{`{"name":"numpy.datetime64","configuration":{"unit":"μs","scale_factor":3}}`, `{"name":"numpy.datetime64","configuration":{"unit":"us","scale_factor":3}}`, "<M8[3us]"},
	} {
		out, _, err := run(t, nil, "dtype", tc.spec)
		if err != nil {
			t.Errorf("dtype %s: %v", tc.spec, err)
			continue
		}
		want := "zarr:  " + tc.zarr + "\nnumpy: " + tc.numpy + "\n"
		if out != want {
			t.Errorf("dtype %s:\n got %q\nwant %q", tc.spec, out, want)
		}
	}
}

func TestDtypeCommandRejects(t *testing.T) {
	for _, tc := range []struct{ spec, mention string }{
		{"M8[0s]", "scale"},
		{"M8[US]", "US"},
		{"<M8[µs]", "µs"}, // U+00B5 MICRO SIGN, which NumPy rejects too
		{`{"name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":1.0}}`, "scale_factor"},
		{`{"name":"numpy.datetime64","configuration":{"unit":"s"}}`, "scale_factor"},
		{`"numpy.datetime64"`, "numpy.datetime64"},
		{"int64", "int64"},
		{" M8[s]", "M8[s]"}, // NumPy refuses white space around a dtype string
		{"M8[s] ", "M8[s]"},
	} {
		out, _, err := run(t, nil, "dtype", tc.spec)
		if err == nil {
			t.Errorf("dtype %s: accepted, printed %q", tc.spec, out)
			continue
		}
		if !strings.Contains(err.Error(), tc.mention) {
			t.Errorf("dtype %s: error %q does not mention %q", tc.spec, err, tc.mention)
		}
		if strings.Contains(oneLine(err), "\n") {
			t.Errorf("dtype %s: error is not one line", tc.spec)
		}
	}
	if _, _, err := run(t, nil, "dtype"); !isUsage(err) {
		t.Errorf("dtype without SPEC: got %v, want a usage error", err)
	}
}
