package main

import (
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// nullFillDataset: xarray's CF time arrays with a null fill value and
// missing chunks (tools/xarray/null_fill.py): time misses 16 elements'
// chunk, valid_time two chunks of 10.
const nullFillDataset = "../../testdata/xarray-null-fill/null_fill.zarr"

// A CF time array whose fill value is null is shown with no fill value,
// never as its first timestamp; converting it makes its missing chunks
// NaT with a note per array, or is refused with --exact before anything
// is written; export makes them null.
func TestCFNullFillCommands(t *testing.T) {
	out, _, err := run(t, nil, "inspect", filepath.Join(nullFillDataset, "time"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "fill value:  null (none defined; missing chunks read as NaT when converted)") || strings.Contains(out, "fill value:  438288") ||
		!strings.Contains(out, "48: 32 valid, 16 NaT") {
		t.Errorf("inspect:\n%s", out)
	}
	out, _, err = run(t, nil, "inspect", "--json", filepath.Join(nullFillDataset, "valid_time"))
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		FillValue     int64  `json:"fill_value"`
		FillValueText string `json:"fill_value_text"`
		FillValueNull bool   `json:"fill_value_null"`
		NaT           int64  `json:"nat"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.FillValue != -1<<63 || rep.FillValueText != "NaT" || !rep.FillValueNull || rep.NaT != 20 {
		t.Errorf("inspect --json: %+v", rep)
	}

	dst := filepath.Join(t.TempDir(), "t.zarr")
	out, errOut, err := run(t, nil, "transcode", filepath.Join(nullFillDataset, "valid_time"), dst, "--unit", "us")
	if err != nil {
		t.Fatal(err)
	}
	all := out + errOut
	if !strings.Contains(all, "NaT 20,") || !strings.Contains(all, "note:        20 elements of chunks the source does not store became NaT") ||
		!strings.Contains(all, "note:        the source's fill value is null (none defined)") {
		t.Errorf("transcode:\n%s", all)
	}
	if v := readNanoseconds(t, dst); v[10] != -1<<63 || v[9] != 1577890800000000000 {
		t.Errorf("transcode: %d, %d", v[9], v[10])
	}

	dst = filepath.Join(t.TempDir(), "g.zarr")
	out, errOut, err = run(t, nil, "transcode", nullFillDataset, dst, "--format", "3")
	if err != nil {
		t.Fatal(err)
	}
	all = out + errOut
	for _, n := range []string{"note:        time: 16 elements of chunks", "note:        valid_time: 20 elements of chunks"} {
		if !strings.Contains(all, n) {
			t.Errorf("transcode of the dataset: no %q in\n%s", n, all)
		}
	}

	dst = filepath.Join(t.TempDir(), "x.zarr")
	_, _, err = run(t, nil, "transcode", filepath.Join(nullFillDataset, "valid_time"), dst, "--exact")
	if err == nil || !strings.Contains(err.Error(), "(1, 3)") || !strings.Contains(err.Error(), "fill value is null") {
		t.Errorf("--exact: %v, want a refusal naming chunks 1 and 3", err)
	}
	if _, err := os.Stat(dst); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("--exact wrote %s (%v)", dst, err)
	}

	pq := filepath.Join(t.TempDir(), "v.parquet")
	out, _, err = run(t, nil, "export", filepath.Join(nullFillDataset, "valid_time"), pq, "-q")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "exported 48 rows") || !strings.Contains(out, "20 null (NaT)") {
		t.Errorf("export: %s", out)
	}
	js := jsClients(t)
	b, err := exec.Command("node", filepath.Join(js, "duckdb_parquet.mjs"), pq, "ms", "valid_time").Output()
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Columns map[string]struct{ Nulls, Min string }
	}
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if c := got.Columns["valid_time"]; c.Nulls != "20" || c.Min != "1577858400000" {
		t.Errorf("DuckDB read %+v", c)
	}
}
