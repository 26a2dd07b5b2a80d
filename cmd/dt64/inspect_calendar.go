package main

import (
	"context"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/dtype"
	"github.com/zarr-dt64/dt64/zarr"
)

// calendarStats sets rep's statistics of a CF array in a model calendar,
// or one --convert-calendar converts: its range in its own calendar
// (source_min_text, source_max_text), and, converted by co, min and max,
// with the dates the proleptic Gregorian calendar lacks as NaT and
// counted (inspect reports them rather than stopping at the first).
// Without a conversion a model calendar has no min and max.
func (rep *inspectReport) calendarStats(ctx context.Context, a *zarr.Array, files *zarr.Inventory, t *cf.Time, to dtype.DataType, co cf.CalendarOptions) error {
	own, err := newCFView(a, t, to, cf.CalendarOptions{ModelTime: true})
	if err != nil {
		return err
	}
	if err := rep.valueStats(ctx, a, files, own, to); err != nil {
		return err
	}
	c := &inspectCF{}
	if rep.Min != nil {
		lo, hi := t.Calendar.FormatCount(*rep.Min, to), t.Calendar.FormatCount(*rep.Max, to)
		c.SourceMinText, c.SourceMaxText = &lo, &hi
	}
	ownNaT := rep.NaT
	if rep.FillValue != dtype.NaT {
		rep.FillValueText = t.Calendar.FormatCount(rep.FillValue, to) + " in " + t.Calendar.String()
	}
	rep.Min, rep.Max, rep.MinText, rep.MaxText, rep.CF = nil, nil, nil, nil, c
	conv := co.Convert.Effective(t.Calendar)
	if conv == cf.ConvertNone {
		return nil
	}
	co.Missing = cf.MissingNaT
	view, err := newCFView(a, t, to, co)
	if err != nil {
		return err
	}
	if err := rep.valueStats(ctx, a, files, view, to); err != nil {
		return err
	}
	c.Conversion, c.NoDate = conv.String(), rep.NaT-ownNaT
	return nil
}
