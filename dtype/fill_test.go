package dtype

import (
	"errors"
	"math"
	"strings"
	"testing"
)

func TestParseFillValue(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		errWant []string // substrings naming the value and the problem
	}{
		{"0", 0, nil},
		{"-1", -1, nil},
		{"-0", 0, nil},
		{"42", 42, nil},
		{" 7 ", 7, nil},
		{`"NaT"`, NaT, nil},
		{`"\u004eaT"`, NaT, nil}, // the same JSON string, escaped
		{"-9223372036854775808", NaT, nil},
		{"9223372036854775807", math.MaxInt64, nil},
		{"-9223372036854775807", math.MinInt64 + 1, nil},

		{"9223372036854775808", 0, []string{"9223372036854775808", "int64 range"}},
		{"-9223372036854775809", 0, []string{"-9223372036854775809", "int64 range"}},
		{"1.0", 0, []string{"1.0", "fraction or exponent"}},
		{"1e3", 0, []string{"1e3", "fraction or exponent"}},
		{"-1E3", 0, []string{"-1E3", "fraction or exponent"}},
		{"01", 0, []string{"01"}},
		{"+1", 0, []string{"+1"}},
		{`"nat"`, 0, []string{`"nat"`, "NaT"}},
		{`"NAT"`, 0, []string{`"NAT"`}},
		{`"NaT "`, 0, []string{`"NaT "`}},
		{`"2020-01-01"`, 0, []string{`"2020-01-01"`}},
		{`""`, 0, []string{`""`}},
		{`"0"`, 0, []string{`"0"`}},
		{"null", 0, []string{"null"}},
		{"true", 0, []string{"true", "boolean"}},
		{"false", 0, []string{"false", "boolean"}},
		{"{}", 0, []string{"{}", "object"}},
		{"[0]", 0, []string{"[0]", "array"}},
		{"", 0, []string{"fill_value", "empty"}},
		{"NaN", 0, []string{"NaN"}},
		{`"NaT`, 0, []string{"malformed"}},
		{"1 2", 0, []string{"1 2"}},
	}
	for _, tc := range tests {
		got, err := ParseFillValue([]byte(tc.in))
		if tc.errWant == nil {
			if err != nil || got != tc.want {
				t.Errorf("ParseFillValue(%s) = %d, %v; want %d", tc.in, got, err, tc.want)
			}
			continue
		}
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("ParseFillValue(%s) = %d, %v; want a *ParseError", tc.in, got, err)
			continue
		}
		for _, s := range tc.errWant {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("ParseFillValue(%s): error %q does not mention %q", tc.in, err, s)
			}
		}
	}
	t.Logf("%d fill_value cases", len(tests))
}

func TestParseFillValueV2(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   int64
		isNull bool
		ok     bool
	}{
		{"null", 0, true, true},
		{"5", 5, false, true},
		{`"NaT"`, NaT, false, true},
		{"-9223372036854775808", NaT, false, true},
		{"1.5", 0, false, false},
		{`"nat"`, 0, false, false},
		{"nul", 0, false, false},
	} {
		v, isNull, err := ParseFillValueV2([]byte(tc.in))
		if (err == nil) != tc.ok || v != tc.want || isNull != tc.isNull {
			t.Errorf("ParseFillValueV2(%s) = %d, %v, %v", tc.in, v, isNull, err)
		}
	}
}

func TestFormatFillValue(t *testing.T) {
	for _, v := range []int64{0, 1, -1, NaT, math.MaxInt64, math.MinInt64 + 1} {
		b := FormatFillValue(v)
		got, err := ParseFillValue(b)
		if err != nil || got != v {
			t.Errorf("FormatFillValue(%d) = %s, parses to %d, %v", v, b, got, err)
		}
	}
	if got := string(FormatFillValue(NaT)); got != "-9223372036854775808" {
		t.Errorf("NaT written as %s", got)
	}
}
