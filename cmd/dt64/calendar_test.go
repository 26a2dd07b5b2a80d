package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var calendarsDir = filepath.Join("..", "..", "testdata", "xarray", "calendars")

// TestCalendarCommands: every command that decodes CF time takes
// --convert-calendar and --calendar-missing. Without them a model
// calendar is refused naming the calendar and the flag; by date, the
// first date Gregorian lacks stops transcode naming the element, its
// model date and --calendar-missing, before any metadata; with nat the
// summary counts them; inspect shows the range in the model calendar and
// converted; validate checks the model numbers, or the converted dates;
// export writes the converted column.
func TestCalendarCommands(t *testing.T) {
	group := filepath.Join(calendarsDir, "360_day_hours_i8.zarr")
	dst := filepath.Join(t.TempDir(), "out.zarr")

	_, _, err := run(t, nil, "transcode", group, dst)
	if err == nil || !strings.Contains(err.Error(), `calendar "360_day"`) || !strings.Contains(hint(err), "--convert-calendar date") {
		t.Fatalf("no conversion: %v%s", err, hint(err))
	}
	_, _, err = run(t, nil, "transcode", "--convert-calendar", "date", filepath.Join(group, "time_6h"), dst)
	if err == nil || !strings.Contains(err.Error(), "element 16 (array index [16])") || !strings.Contains(err.Error(), "2001-02-29T00:00:00 (360_day)") ||
		!strings.Contains(hint(err), "--calendar-missing nat") {
		t.Fatalf("a date Gregorian lacks: %v%s", err, hint(err))
	}
	if _, err := os.Stat(filepath.Join(dst, ".zarray")); err == nil {
		t.Errorf("metadata written after a refused date")
	}
	dst = filepath.Join(t.TempDir(), "group.zarr")
	out, _, err := run(t, nil, "transcode", "--convert-calendar", "date", "--calendar-missing", "nat", group, dst)
	if err != nil || !strings.Contains(out, "NaT 18 (18 of them dates the proleptic Gregorian calendar lacks)") {
		t.Fatalf("nat: %v\n%s", err, out)
	}
	attrs, err := os.ReadFile(filepath.Join(dst, "time_m", ".zattrs"))
	if err != nil || !strings.Contains(string(attrs), `"source_calendar":"360_day"`) || !strings.Contains(string(attrs), `"calendar_conversion":"date"`) {
		t.Errorf("destination attributes %s, %v", attrs, err)
	}
	if _, _, err := run(t, nil, "transcode", "--convert-calendar", "month", group, dst); !isUsage(err) {
		t.Errorf("--convert-calendar month: %v, want a usage error", err)
	}

	arr := filepath.Join(group, "time_6h")
	out, _, err = run(t, nil, "inspect", arr)
	if err != nil || !strings.Contains(out, "in calendar: 2001-02-25T00:00:00 .. 2004-03-04T18:00:00 (360_day)") || !strings.Contains(out, "converted:   no") || !strings.Contains(out, "; decodes to datetime64[h] once converted") {
		t.Fatalf("inspect: %v\n%s", err, out)
	}
	out, _, err = run(t, nil, "inspect", "--json", "--convert-calendar", "date", arr)
	var rep struct {
		NaT     int64   `json:"nat"`
		MinText *string `json:"min_text"`
		CF      struct {
			Conversion string `json:"calendar_conversion"`
			SourceMin  string `json:"source_min_text"`
			NoDate     int64  `json:"no_date"`
		} `json:"cf"`
	}
	if err != nil || json.Unmarshal([]byte(out), &rep) != nil || rep.NaT != 12 || rep.CF.NoDate != 12 || rep.CF.Conversion != "date" ||
		rep.CF.SourceMin != "2001-02-25T00:00:00" || rep.MinText == nil || *rep.MinText != "2001-02-25T00" {
		t.Fatalf("inspect --json: %v %+v\n%s", err, rep, out)
	}
	if out, _, err := run(t, nil, "inspect", "--convert-calendar", "year", group); err != nil || !strings.Contains(out, "in its calendar 2000-12-01T00:00:00") {
		t.Fatalf("inspect of the group: %v\n%s", err, out)
	}

	if out, _, err := run(t, nil, "validate", arr); err != nil || !strings.HasPrefix(out, "ok:") {
		t.Errorf("validate: %v\n%s", err, out)
	}
	if out, _, err := run(t, nil, "validate", "--convert-calendar", "date", arr); err == nil || !strings.Contains(out, "2001-02-29T00:00:00 (360_day)") {
		t.Errorf("validate by date: %v\n%s", err, out)
	}
	if out, _, err := run(t, nil, "validate", "--convert-calendar", "year", arr); err != nil {
		t.Errorf("validate by year: %v\n%s", err, out)
	}
	if out, _, err := run(t, nil, "validate", "--convert-calendar", "date", group); err == nil || !strings.Contains(out, "time_6h: 0: element 16") {
		t.Errorf("validate of the group by date: %v\n%s", err, out)
	}
	if out, _, err := run(t, nil, "validate", group); err != nil {
		t.Errorf("validate of the group: %v\n%s", err, out)
	}

	pq := filepath.Join(t.TempDir(), "t.parquet")
	if _, _, err := run(t, nil, "export", arr, pq); err == nil || !strings.Contains(hint(err), "--convert-calendar") {
		t.Errorf("export without a conversion: %v", err)
	}
	out, _, err = run(t, nil, "export", "--convert-calendar", "date", "--calendar-missing", "nat", arr, pq)
	if err != nil || !strings.Contains(out, "12 null (NaT) (12 of them dates the proleptic Gregorian calendar lacks)") {
		t.Errorf("export: %v\n%s", err, out)
	}
}
