package dtype

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

const (
	dtJSON = `{"name":"numpy.datetime64","configuration":`
	tdJSON = `{"name":"numpy.timedelta64","configuration":`
)

// cfg builds a datetime64 data_type with the given configuration body.
func cfg(body string) string { return dtJSON + "{" + body + "}}" }

func TestParseJSON(t *testing.T) {
	us10 := DataType{Kind: Datetime, Unit: Microsecond, Scale: 10}
	tests := []struct {
		name string
		in   string
		want DataType
		// errWant: substrings the error must contain (the field and the
		// offending value); empty means the input is valid.
		errWant []string
	}{
		{"us10", cfg(`"unit":"us","scale_factor":10`), us10, nil},
		{"micro sign U+03BC", cfg(`"unit":"μs","scale_factor":10`), us10, nil},
		{"escaped U+03BC", cfg(`"unit":"\u03bcs","scale_factor":10`), us10, nil},
		{"timedelta", tdJSON + `{"unit":"h","scale_factor":25}}`, DataType{Timedelta, Hour, 25}, nil},
		{"generic", cfg(`"unit":"generic","scale_factor":1`), DataType{Datetime, Generic, 1}, nil},
		{"max scale", cfg(`"unit":"as","scale_factor":2147483647`), DataType{Datetime, Attosecond, MaxScale}, nil},
		{"keys reversed", `{"configuration":{"scale_factor":1,"unit":"Y"},"name":"numpy.datetime64"}`, DataType{Datetime, Year, 1}, nil},
		{"white space", " \n{ \"name\" : \"numpy.datetime64\" , \"configuration\" : { \"unit\" : \"M\" , \"scale_factor\" : 3 } }\t", DataType{Datetime, Month, 3}, nil},
		{"minutes", cfg(`"unit":"m","scale_factor":1`), DataType{Datetime, Minute, 1}, nil},
		{"months", cfg(`"unit":"M","scale_factor":1`), DataType{Datetime, Month, 1}, nil},

		{"scale 0", cfg(`"unit":"us","scale_factor":0`), DataType{}, []string{"configuration.scale_factor", " 0:", "out of range"}},
		{"scale -1", cfg(`"unit":"us","scale_factor":-1`), DataType{}, []string{"configuration.scale_factor", "-1", "out of range"}},
		{"scale -0", cfg(`"unit":"us","scale_factor":-0`), DataType{}, []string{"configuration.scale_factor", "-0"}},
		{"scale 2^31", cfg(`"unit":"us","scale_factor":2147483648`), DataType{}, []string{"configuration.scale_factor", "2147483648", "out of range"}},
		{"scale 2^64", cfg(`"unit":"us","scale_factor":18446744073709551616`), DataType{}, []string{"configuration.scale_factor", "18446744073709551616"}},
		{"scale 1.0", cfg(`"unit":"us","scale_factor":1.0`), DataType{}, []string{"configuration.scale_factor", "1.0", "fraction or exponent"}},
		{"scale 1.5", cfg(`"unit":"us","scale_factor":1.5`), DataType{}, []string{"configuration.scale_factor", "1.5"}},
		{"scale 1e1", cfg(`"unit":"us","scale_factor":1e1`), DataType{}, []string{"configuration.scale_factor", "1e1"}},
		{"scale 10E0", cfg(`"unit":"us","scale_factor":10E0`), DataType{}, []string{"configuration.scale_factor", "10E0"}},
		{"scale string", cfg(`"unit":"us","scale_factor":"10"`), DataType{}, []string{"configuration.scale_factor", `"10"`, "got string"}},
		{"scale true", cfg(`"unit":"us","scale_factor":true`), DataType{}, []string{"configuration.scale_factor", "true", "got boolean"}},
		{"scale null", cfg(`"unit":"us","scale_factor":null`), DataType{}, []string{"configuration.scale_factor", "null", "got null"}},
		{"scale array", cfg(`"unit":"us","scale_factor":[1]`), DataType{}, []string{"configuration.scale_factor", "[1]", "got array"}},
		{"scale missing", cfg(`"unit":"us"`), DataType{}, []string{"configuration.scale_factor", "missing"}},
		{"unit missing", cfg(`"scale_factor":1`), DataType{}, []string{"configuration.unit", "missing"}},
		{"extra config key", cfg(`"unit":"us","scale_factor":1,"extra":1`), DataType{}, []string{`configuration."extra"`, "unexpected member"}},
		{"duplicate unit", cfg(`"unit":"us","unit":"ns","scale_factor":1`), DataType{}, []string{`configuration."unit"`, "duplicate"}},
		{"duplicate scale", cfg(`"unit":"us","scale_factor":1,"scale_factor":1`), DataType{}, []string{`configuration."scale_factor"`, "duplicate"}},
		{"duplicate name", `{"name":"numpy.datetime64","name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":1}}`, DataType{}, []string{`"name"`, "duplicate"}},
		{"must_understand", `{"name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":1},"must_understand":false}`, DataType{}, []string{`"must_understand"`, "unexpected member"}},
		{"config missing", `{"name":"numpy.datetime64"}`, DataType{}, []string{"configuration", "missing"}},
		{"config empty", `{"name":"numpy.datetime64","configuration":{}}`, DataType{}, []string{"configuration.unit", "missing"}},
		{"config null", `{"name":"numpy.datetime64","configuration":null}`, DataType{}, []string{"configuration", "null", "JSON object"}},
		{"config string", `{"name":"numpy.datetime64","configuration":"us"}`, DataType{}, []string{"configuration", `"us"`, "JSON object"}},
		{"name missing", `{"configuration":{"unit":"s","scale_factor":1}}`, DataType{}, []string{"name", "missing"}},
		{"bare name", `"numpy.datetime64"`, DataType{}, []string{`"numpy.datetime64"`, "bare-name"}},
		{"other name", `{"name":"int64","configuration":{"unit":"s","scale_factor":1}}`, DataType{}, []string{"name", `"int64"`, "unsupported"}},
		{"name wrong case", `{"name":"numpy.Datetime64","configuration":{"unit":"s","scale_factor":1}}`, DataType{}, []string{"name", `"numpy.Datetime64"`}},
		{"name number", `{"name":64,"configuration":{"unit":"s","scale_factor":1}}`, DataType{}, []string{"name", "64", "got number"}},
		{"unit US", cfg(`"unit":"US","scale_factor":1`), DataType{}, []string{"configuration.unit", `"US"`, "case-sensitive"}},
		{"unit Ms", cfg(`"unit":"Ms","scale_factor":1`), DataType{}, []string{"configuration.unit", `"Ms"`, "case-sensitive"}},
		{"unit B", cfg(`"unit":"B","scale_factor":1`), DataType{}, []string{"configuration.unit", `"B"`, "unknown unit"}},
		{"unit U+00B5", cfg(`"unit":"µs","scale_factor":1`), DataType{}, []string{"configuration.unit", `"µs"`, "U+00B5"}},
		{"unit empty", cfg(`"unit":"","scale_factor":1`), DataType{}, []string{"configuration.unit", "unknown unit"}},
		{"unit number", cfg(`"unit":1,"scale_factor":1`), DataType{}, []string{"configuration.unit", "got number"}},
		{"top null", `null`, DataType{}, []string{"data_type", "null", "JSON object"}},
		{"top array", `[]`, DataType{}, []string{"data_type", "JSON object"}},
		{"empty input", ``, DataType{}, []string{"data_type", "malformed JSON"}},
		{"truncated", cfg(`"unit":"us","scale_factor":1`)[:40], DataType{}, []string{"malformed JSON"}},
		{"trailing object", cfg(`"unit":"us","scale_factor":1`) + `{}`, DataType{}, []string{"data_type", "after the JSON object"}},
		{"trailing comma", `{"name":"numpy.datetime64","configuration":{"unit":"s","scale_factor":1},}`, DataType{}, []string{"malformed JSON"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseJSON([]byte(tc.in))
			if tc.errWant == nil {
				if err != nil || got != tc.want {
					t.Fatalf("ParseJSON(%s) = %+v, %v; want %+v", tc.in, got, err, tc.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("ParseJSON(%s) = %+v, want an error", tc.in, got)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %T is not a *ParseError: %v", err, err)
			}
			for _, s := range tc.errWant {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
	t.Logf("%d data_type cases", len(tests))
}

func TestParseErrorFields(t *testing.T) {
	_, err := ParseJSON([]byte(cfg(`"unit":"us","scale_factor":1.5`)))
	var pe *ParseError
	if !errors.As(err, &pe) {
		t.Fatalf("%v", err)
	}
	if pe.What != "data_type" || pe.Field != "configuration.scale_factor" || pe.Value != "1.5" {
		t.Errorf("ParseError %+v", pe)
	}
}

func TestJSONRoundTrip(t *testing.T) {
	n := 0
	for _, k := range []Kind{Datetime, Timedelta} {
		for u := Year; int(u) < NumUnits; u++ {
			for _, scale := range []int64{1, 7, 1000, MaxScale} {
				d := DataType{Kind: k, Unit: u, Scale: scale}
				b, err := json.Marshal(d)
				if err != nil {
					t.Fatalf("Marshal(%v): %v", d, err)
				}
				want := fmt.Sprintf(`{"name":"numpy.%s","configuration":{"unit":"%s","scale_factor":%d}}`, k, u, scale)
				if string(b) != want {
					t.Errorf("Marshal(%v) = %s, want %s", d, b, want)
				}
				back, err := ParseJSON(b)
				if err != nil || back != d {
					t.Errorf("ParseJSON(%s) = %+v, %v; want %+v", b, back, err, d)
				}
				n++
			}
		}
	}
	// μs is read as Microsecond and written as us.
	d, err := ParseJSON([]byte(cfg(`"unit":"μs","scale_factor":10`)))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := d.MarshalJSON()
	if want := cfg(`"unit":"us","scale_factor":10`); string(b) != want {
		t.Errorf("μs written as %s, want %s", b, want)
	}
	t.Logf("%d round trips", n)
}

func TestMarshalInvalid(t *testing.T) {
	for _, d := range []DataType{{}, {Datetime, Second, 0}, {Datetime, Unit(99), 1}, {Kind(9), Second, 1}, {Timedelta, Second, MaxScale + 1}} {
		if b, err := d.MarshalJSON(); err == nil {
			t.Errorf("MarshalJSON(%+v) = %s, want an error", d, b)
		}
	}
}

func TestUnmarshalJSONEmbedded(t *testing.T) {
	var meta struct {
		DataType DataType `json:"data_type"`
	}
	if err := json.Unmarshal([]byte(`{"data_type":`+tdJSON+`{"unit":"ns","scale_factor":1}}}`), &meta); err != nil {
		t.Fatal(err)
	}
	if meta.DataType != (DataType{Timedelta, Nanosecond, 1}) {
		t.Errorf("got %+v", meta.DataType)
	}
	for _, in := range []string{`{"data_type":null}`, `{"data_type":"numpy.datetime64"}`, `{"data_type":` + cfg(`"unit":"ns","scale_factor":1.0`) + `}`} {
		if err := json.Unmarshal([]byte(in), &meta); err == nil {
			t.Errorf("Unmarshal(%s) accepted", in)
		}
	}
}
