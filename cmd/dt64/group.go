package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/zarr-dt64/dt64/cf"
	"github.com/zarr-dt64/dt64/internal/pyjson"
	"github.com/zarr-dt64/dt64/objstore"
	"github.com/zarr-dt64/dt64/storage"
	"github.com/zarr-dt64/dt64/zarr"
)

// isGroupDir reports whether arg (a directory, s3:// or http(s)://)
// holds a Zarr group (a hierarchy's root).
func isGroupDir(ctx context.Context, arg string) bool {
	if !isRemote(arg) {
		if fi, err := os.Stat(arg); err != nil || !fi.IsDir() {
			return false
		}
	}
	store, err := openStore(ctx, arg, true)
	if err != nil {
		return false
	}
	defer closeStore(store)
	_, err = zarr.OpenGroup(ctx, store)
	return err == nil
}

func closeStore(s storage.Store) {
	if c, ok := s.(interface{ Close() error }); ok {
		c.Close()
	}
}

// groupNodes reads the hierarchy in store: by listing it, or from its
// consolidated metadata when it cannot be listed (http(s)), as xarray
// reads it. warning says why consolidated metadata there is ignored
// (malformed: a member key leaving the hierarchy, say), "" when it is
// fine or absent.
func groupNodes(ctx context.Context, store storage.Store) (nodes []zarr.Node, consolidated bool, warning string, err error) {
	_, cerr := zarr.ReadConsolidated(ctx, store)
	if cerr != nil && !errors.Is(cerr, fs.ErrNotExist) {
		warning = fmt.Sprintf("consolidated metadata ignored: %v", cerr)
	}
	// A store that cannot be listed (http) is walked through its
	// consolidated metadata: zarr.Walk does that, or says there is none.
	nodes, err = zarr.Walk(ctx, store)
	return nodes, cerr == nil, warning, err
}

// subArg names the node at path p (slash-separated) of the hierarchy arg
// names: a path joined to the directory, or to the URL's path.
func subArg(arg, p string) string {
	switch objstore.Scheme(arg) {
	case "http", "https":
	case "", "file":
		return filepath.Join(arg, filepath.FromSlash(p))
	default:
		// s3:// locations are keys as typed, not URLs: no escaping
		// (objstore.ParseS3URL).
		return strings.TrimSuffix(arg, "/") + "/" + p
	}
	u, err := url.Parse(arg)
	if err != nil {
		return strings.TrimSuffix(arg, "/") + "/" + p
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/" + p
	u.RawPath = ""
	return u.String()
}

// groupReport is inspect --json's document for a group: the tree.
type groupReport struct {
	Path         string       `json:"path"`
	Kind         string       `json:"kind"` // "group"
	Format       int          `json:"format"`
	Consolidated bool         `json:"consolidated"`
	Nodes        []nodeReport `json:"nodes"`
	Warnings     []string     `json:"warnings,omitempty"`
}

// nodeReport is one node of the tree. A time array has its full single
// array report (range included) in Time.
type nodeReport struct {
	Path       string          `json:"path"`
	Kind       string          `json:"kind"`
	Attributes json.RawMessage `json:"attributes"`
	DataType   string          `json:"data_type,omitempty"`
	Shape      []int64         `json:"shape,omitempty"`
	ChunkShape []int64         `json:"chunk_shape,omitempty"`
	DimNames   []string        `json:"dimension_names,omitempty"`
	Codecs     []codecJSON     `json:"codecs,omitempty"`
	Note       string          `json:"note,omitempty"`
	Implicit   bool            `json:"implicit,omitempty"` // a group without metadata (zarr.Node.Implicit)
	Time       *inspectReport  `json:"time,omitempty"`
	codecText  string
}

func inspectGroup(ctx context.Context, arg string, co cf.CalendarOptions) (*groupReport, error) {
	store, err := openStore(ctx, arg, true)
	if err != nil {
		return nil, err
	}
	defer closeStore(store)
	nodes, consolidated, warning, err := groupNodes(ctx, store)
	if err != nil {
		return nil, err
	}
	rep := &groupReport{Path: storeLabel(store, arg), Kind: "group", Format: nodes[0].Format, Consolidated: consolidated}
	if warning != "" {
		rep.Warnings = append(rep.Warnings, warning)
	}
	bounds := zarr.CFBounds(nodes)
	for _, n := range nodes {
		nr := nodeReport{Path: n.Path, Kind: n.Kind.String(), Attributes: pyjson.Strict(n.Attributes), Implicit: n.Implicit}
		if n.Kind == zarr.ArrayNode {
			nr.DataType, nr.Shape, nr.ChunkShape, nr.DimNames = n.DataType, n.Shape, n.ChunkShape, n.DimensionNames
			if err := describeGroupArray(ctx, store, arg, n, bounds, &nr, co); err != nil {
				return nil, err
			}
		}
		rep.Nodes = append(rep.Nodes, nr)
	}
	return rep, nil
}

// describeGroupArray describes array node n; CF bounds without units or calendar
// (among bounds) are described with their coordinate's units and calendar,
// as transcode converts them and xarray decodes them.
func describeGroupArray(ctx context.Context, store storage.Store, arg string, n zarr.Node, bounds map[string]zarr.Bounds, nr *nodeReport, co cf.CalendarOptions) error {
	sub := subArg(arg, n.Path)
	s, err := storage.Sub(store, n.Path)
	if err != nil {
		return err
	}
	a, err := zarr.Open(ctx, s)
	if err != nil {
		nr.Note = "not opened: " + err.Error()
		return nil
	}
	codecs, text := describeCodecs(a.Metadata().Codecs)
	nr.Codecs, nr.codecText = codecs, text
	b, isBounds := bounds[n.Path]
	if isBounds {
		if a, err = a.WithAttributes(b.Attributes); err != nil {
			return err
		}
		nr.Note = b.String()
	}
	cft, cerr := a.CFTime()
	if cerr != nil {
		nr.Note = strings.TrimPrefix(nr.Note+"; ", "; ") + "not decoded: " + cerr.Error()
		return nil
	}
	if a.IsTime() || cft != nil { // native or CF time
		r, err := inspectArray(ctx, sub, co, b.Attributes)
		if err != nil {
			return fmt.Errorf("%s: %w", n.Path, err)
		}
		nr.Time = r
	}
	return nil
}

func (r *groupReport) writeText(w io.Writer) error {
	cons := ""
	if r.Consolidated {
		cons = ", consolidated metadata"
	}
	fmt.Fprintf(w, "%s: Zarr v%d group%s, %s\n", r.Path, r.Format, cons, count(len(r.Nodes), "node"))
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "note: %s\n", warning)
	}
	for _, n := range r.Nodes {
		name := "/" + n.Path
		if n.Kind == "group" {
			implicit := ""
			if n.Implicit {
				implicit = "  (implicit: no group metadata; zarr-python does not list it)"
			}
			fmt.Fprintf(w, "%-24s group%s\n", name, implicit)
			continue
		}
		line := fmt.Sprintf("%-24s array  %-18s shape %s chunks %s", name, n.DataType, formatInts(n.Shape), formatInts(n.ChunkShape))
		if n.codecText != "" {
			line += "  " + n.codecText
		}
		if len(n.DimNames) > 0 {
			line += "  dims (" + strings.Join(n.DimNames, ", ") + ")"
		}
		if n.Note != "" {
			line += "  (" + n.Note + ")"
		}
		if t := n.Time; t != nil {
			kind := t.NumPy
			switch {
			case t.CF != nil && t.CF.Duration:
				kind = fmt.Sprintf("CF duration %q", t.CF.Units)
			case t.CF != nil:
				kind = fmt.Sprintf("CF %q, %s", t.CF.Units, t.CF.Calendar)
			}
			line += fmt.Sprintf("\n%-24s        %s, %d NaT", "", kind, t.NaT)
			if t.CF != nil && t.CF.SourceMinText != nil {
				line += fmt.Sprintf(", in its calendar %s .. %s", *t.CF.SourceMinText, *t.CF.SourceMaxText)
			}
			if t.Min != nil {
				line += fmt.Sprintf(", range %s .. %s", *t.MinText, *t.MaxText)
			}
			if t.CF != nil && t.CF.Calendar != "" && t.Min == nil && t.CF.SourceMinText != nil {
				line += " (not converted)"
			}
		}
		if _, err := fmt.Fprintln(w, line); err != nil {
			return err
		}
	}
	return nil
}

// validateGroup validates every array of the hierarchy arg names: a time
// array as validate does one, any other by decoding its stored chunks.
// Malformed consolidated metadata is a problem: xarray trusts it.
func validateGroup(ctx context.Context, cmd *cobra.Command, arg string, co cf.CalendarOptions) error {
	out := cmd.OutOrStdout()
	store, err := openStore(ctx, arg, true)
	if err != nil {
		return err
	}
	defer closeStore(store)
	label := storeLabel(store, arg)
	nodes, _, warning, err := groupNodes(ctx, store)
	if err != nil {
		fmt.Fprintf(out, "metadata: %v\n", err)
		return &problemsError{label, 1}
	}
	problems, arrays := 0, 0
	if warning != "" {
		problems++
		fmt.Fprintf(out, "metadata: %s\n", warning)
	}
	if err := groupLeftovers(ctx, cmd.ErrOrStderr(), store, nodes); err != nil {
		return err
	}
	var unchecked []string
	bounds := zarr.CFBounds(nodes)
	for _, n := range nodes {
		if n.Kind != zarr.ArrayNode {
			continue
		}
		arrays++
		sub := subArg(arg, n.Path)
		s, err := storage.Sub(store, n.Path)
		if err != nil {
			return err
		}
		a, err := zarr.Open(ctx, s)
		switch {
		case errors.Is(err, zarr.ErrUnsupported):
			unchecked = append(unchecked, n.Path)
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: warning: cannot check: %v\n", n.Path, err)
			continue
		case err != nil && undecodable(n, err) != "":
			unchecked = append(unchecked, n.Path)
			fmt.Fprintf(cmd.ErrOrStderr(), "%s: warning: not checked (%s)\n", n.Path, undecodable(n, err))
			continue
		case err != nil:
			problems++
			fmt.Fprintf(out, "%s: metadata: %v\n", n.Path, err)
			continue
		}
		b, isBounds := bounds[n.Path]
		if isBounds {
			if a, err = a.WithAttributes(b.Attributes); err != nil {
				return err
			}
		}
		cft, cerr := a.CFTime()
		if cerr != nil {
			// CF time attributes that do not parse: validating the array
			// alone fails on them, transcode refuses them, and xarray
			// cannot decode them either; not a numeric array to pass.
			problems++
			fmt.Fprintf(out, "%s: a Zarr array of %s with %v\n", n.Path, a.Numeric(), cerr)
			continue
		}
		if a.IsTime() || cft != nil { // a CF time array decodes as validate decodes it alone
			fmt.Fprintf(out, "%s: ", n.Path)
			if isBounds {
				fmt.Fprintf(out, "(%s) ", b.String())
			}
			var pe *problemsError
			if err := runValidate(ctx, cmd, sub, co, b.Attributes, n.Path+"/"); errors.As(err, &pe) {
				problems += pe.n
			} else if err != nil {
				return err
			}
			continue
		}
		n, err := validateNumeric(ctx, out, cmd.ErrOrStderr(), n.Path, sub)
		if err != nil {
			return err
		}
		problems += n
	}
	if problems > 0 {
		return &problemsError{label, problems}
	}
	note := ""
	if len(unchecked) > 0 {
		slices.Sort(unchecked)
		note = fmt.Sprintf(" (%d not checked: %s)", len(unchecked), strings.Join(unchecked, ", "))
	}
	fmt.Fprintf(out, "ok: %s valid%s\n", count(arrays-len(unchecked), "array"), note)
	return nil
}

// groupLeftovers warns of what a hierarchy holds outside its arrays
// (whose own files validate checks with each array) beside its groups'
// metadata: temporary files of interrupted writes (an overwrite killed
// before it recorded its intent leaves one at the root) and other files.
// A store that cannot list is not checked.
func groupLeftovers(ctx context.Context, w io.Writer, store storage.Store, nodes []zarr.Node) error {
	kinds := map[string]zarr.NodeKind{}
	for _, n := range nodes {
		kinds[n.Path] = n.Kind
	}
	// owner is the node whose directory holds key: "" for the root.
	owner := func(key string) (string, bool) {
		for d := path.Dir(key); d != "." && d != "/"; d = path.Dir(d) {
			if _, ok := kinds[d]; ok {
				return d, true
			}
		}
		return "", false
	}
	if tl, ok := storage.Find[storage.TempLister](store); ok {
		temps, err := tl.Temps(ctx)
		if err != nil {
			return err
		}
		var outside []string
		for p := range temps {
			if d, ok := owner(p); !ok || kinds[d] != zarr.ArrayNode {
				outside = append(outside, p)
			}
		}
		slices.Sort(outside)
		for _, p := range outside {
			fmt.Fprintf(w, "%s: warning: %s\n", p, tempWarning)
		}
	}
	lister, ok := storage.Find[storage.EntryLister](store)
	if !ok {
		return nil
	}
	entries, err := lister.Entries(ctx, "")
	if err != nil {
		return err
	}
	for _, e := range entries {
		d, _ := owner(e.Key)
		if kinds[d] == zarr.ArrayNode && d != "" || e.NotValue == "a directory" {
			continue // the array's own check; directories are how keys nest
		}
		if _, isNode := kinds[e.Key]; isNode && e.NotValue != "" {
			continue
		}
		switch path.Base(e.Key) {
		case ".zgroup", ".zattrs", ".zmetadata", "zarr.json":
			continue
		}
		fmt.Fprintf(w, "%s: warning: not part of an array, nor a group's metadata document\n", e.Key)
	}
	return nil
}

// validateNumeric decodes every stored chunk of an array that is not a
// time array and prints each problem, and to warn what else its
// directory holds; it returns how many problems.
func validateNumeric(ctx context.Context, out, warn io.Writer, name, sub string) (int, error) {
	store, err := openArrayStore(ctx, sub)
	if err != nil {
		return 0, err
	}
	defer store.Close()
	// The group's view of the array cannot list; the array's own store can.
	a, err := zarr.Open(ctx, store)
	if err != nil {
		return 0, err
	}
	files, err := a.Inventory(ctx)
	if err != nil {
		return 0, err
	}
	inventoryWarnings(warn, name+"/", a, files)
	problems := 0
	for _, n := range files.NotValues {
		problems++
		fmt.Fprintf(out, "%s/%s: is %s, not a regular file\n", name, n.Key, n.NotValue)
	}
	buf := make([]byte, a.ChunkBytes())
	for _, c := range files.Chunks {
		if _, _, err := a.ReadChunkRaw(ctx, c.Coords, buf); err != nil {
			if ctx.Err() != nil {
				return problems, ctx.Err()
			}
			problems++
			reason := err
			var ce *zarr.ChunkError
			if errors.As(err, &ce) {
				reason = ce.Err
			}
			fmt.Fprintf(out, "%s/%s: %v\n", name, c.Key, reason)
		}
	}
	if problems == 0 {
		fmt.Fprintf(out, "%s: ok: %s (%d present) valid\n", name, count(a.NumChunks(), "chunk"), len(files.Chunks))
	}
	return problems, nil
}
