package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
	"github.com/zarr-dt64/dt64/zarrow"
)

// layoutFlags choose the table export writes: a group's 1-D arrays side
// by side (wide), or its gridded variables one row per element (long).
type layoutFlags struct {
	layout string
	vars   []string
	name   string
}

func addLayoutFlags(fl *pflag.FlagSet, f *layoutFlags) {
	fl.StringVar(&f.layout, "layout", "", "for a group: wide (its 1-D arrays along --dim, the default) or long (one row per element of its gridded variables, a column per dimension coordinate)")
	fl.StringSliceVar(&f.vars, "vars", nil, "with --layout long: the data variables, comma-separated (default: every array on the time coordinate's grid)")
	fl.StringVar(&f.name, "name", "", "for an array: the column's name (default: the array's name without .zarr)")
}

// check refuses layout flags that cannot mean anything, before the
// source is opened: --layout other than wide or long, an empty --vars or
// an empty or repeated name in it.
func (f *layoutFlags) check(cmd *cobra.Command) error {
	if f.layout != "" && f.layout != "wide" && f.layout != "long" {
		return usageError{fmt.Errorf("--layout %q: want wide or long", f.layout)}
	}
	if cmd.Flags().Changed("vars") && len(f.vars) == 0 {
		return usageError{errors.New("--vars: name at least one variable")}
	}
	seen := map[string]bool{}
	for _, v := range f.vars {
		switch {
		case v == "":
			return usageError{fmt.Errorf("--vars %q: an empty name", strings.Join(f.vars, ","))}
		case seen[v]:
			return usageError{fmt.Errorf("--vars: %q is listed twice", v)}
		}
		seen[v] = true
	}
	return nil
}

// openExportTable plans the table export writes from store, and returns
// the lines its plan adds to the output (the long layout's shape and memory bound, the
// arrays the wide layout leaves out).
func openExportTable(ctx context.Context, store storage.Store, src string, f *layoutFlags, to zarrow.TableOptions) (*zarrow.Table, []string, error) {
	// f has passed check (runExport).
	if len(f.vars) > 0 && f.layout != "long" {
		return nil, nil, usageError{errors.New("--vars chooses the variables of --layout long")}
	}
	a, err := zarr.Open(ctx, store)
	if err == nil {
		switch {
		case to.Dim != "":
			return nil, nil, usageError{fmt.Errorf("--dim is for a group; %s is an array", src)}
		case f.layout == "long":
			return nil, nil, usageError{fmt.Errorf("--layout long is for a group with coordinates; %s is an array", src)}
		}
		name := f.name
		if name == "" {
			name = defaultColumnName(src)
		}
		tab, err := zarrow.ArrayTable(a, name, to)
		if err != nil {
			return nil, nil, err
		}
		return tab, notesPlan(tab), nil
	}
	if _, gerr := zarr.OpenGroup(ctx, store); gerr != nil {
		return nil, nil, err // the array's error says what is there
	}
	if f.name != "" {
		return nil, nil, usageError{fmt.Errorf("--name names the column of an array; %s is a group (its columns are named by the arrays' paths)", src)}
	}
	lo := zarrow.LongOptions{Options: to.Options, Dim: to.Dim, Vars: f.vars, BatchRows: to.BatchRows, Prefetch: to.Prefetch}
	if f.layout == "long" {
		tab, err := zarrow.OpenLongTable(ctx, store, lo)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", src, err)
		}
		return tab, append(longPlan(tab), notesPlan(tab)...), nil
	}
	tab, err := zarrow.OpenTable(ctx, store, to)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", src, err)
	}
	// Every array the wide table leaves out is named: none is dropped
	// without a word.
	var plan []string
	dim, notOneD, offDim := tab.Outside()
	if len(notOneD) > 0 {
		plan = append(plan, fmt.Sprintf("plan:        wide layout: skips the arrays that are not 1-D: %s (--layout long exports gridded ones, one row per element)", strings.Join(notOneD, ", ")))
	}
	if len(offDim) > 0 {
		plan = append(plan, fmt.Sprintf("plan:        wide layout: skips the 1-D arrays along other dimensions than %q: %s (--dim chooses the dimension)", dim, strings.Join(offDim, ", ")))
	}
	return tab, append(plan, notesPlan(tab)...), nil
}

// longPlan describes a long table: its grid and batches.
func longPlan(tab *zarrow.Table) []string {
	var grid []string
	for k, d := range tab.Dimensions() {
		grid = append(grid, fmt.Sprintf("%s %d", d, tab.Shape()[k]))
	}
	plan := []string{fmt.Sprintf("plan:        long layout: %d rows = %s (variables %s); batches of at most %d rows, coordinates broadcast from their 1-D arrays",
		tab.Rows(), strings.Join(grid, " × "), strings.Join(tab.Variables(), ", "), tab.BatchRows())}
	return plan
}

// notesPlan are the table's notes as plan lines.
func notesPlan(tab *zarrow.Table) []string {
	var plan []string
	for _, n := range tab.Notes() {
		plan = append(plan, "note:        "+n)
	}
	return plan
}

// defaultColumnName names an array's column by the last segment of its
// path, without ".zarr": of a URL, the path alone (a query string may
// hold a token, and would be written into the file's schema).
func defaultColumnName(src string) string {
	p := src
	if u, err := url.Parse(src); err == nil && u.Scheme != "" && u.Host != "" {
		p = u.Path
	}
	return strings.TrimSuffix(path.Base(strings.TrimRight(p, "/")), ".zarr")
}
