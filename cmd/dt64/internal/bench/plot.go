package bench

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	_ "gonum.org/v1/plot/vg/vgimg" // registers png
	_ "gonum.org/v1/plot/vg/vgsvg" // registers svg
)

// PlotFormats are the file formats Plot draws, by extension.
var PlotFormats = []string{".svg", ".png"}

// PlotFormat returns the format Plot draws for a file name, from its
// extension.
func PlotFormat(name string) (string, error) {
	ext := strings.ToLower(filepath.Ext(name))
	if !slices.Contains(PlotFormats, ext) {
		return "", fmt.Errorf("%s: cannot draw a %q file: the name must end in %s", name, ext, strings.Join(PlotFormats, " or "))
	}
	return ext[1:], nil
}

// Plot draws results as a chart in format "svg" or "png" under title (which
// may have several lines): one panel per size, each a grouped bar chart of every kernel (a row) × implementation
// (a bar) of the ratio to copy(), with a line at copy() = 1. Every panel
// has the same scale.
func Plot(w io.Writer, format, title string, results []Result) error {
	if len(results) == 0 {
		return fmt.Errorf("bench: nothing to plot")
	}
	var kernels, impls []string
	var sizes []int
	xmax := 1.0
	for _, r := range results {
		if !slices.Contains(kernels, r.Name) {
			kernels = append(kernels, r.Name)
		}
		if !slices.Contains(impls, r.Impl) {
			impls = append(impls, r.Impl)
		}
		if !slices.Contains(sizes, r.Size) {
			sizes = append(sizes, r.Size)
		}
		xmax = math.Max(xmax, r.Ratio)
	}
	// A row per kernel, a bar per implementation.
	rowHeight := vg.Points(10 + 9*float64(len(impls)))
	height := rowHeight*vg.Length(len(kernels)+1) + 2*vg.Inch
	width := 3.5*vg.Inch*vg.Length(len(sizes)) + 2.5*vg.Inch
	panels := make([][]*plot.Plot, 1)
	for i, size := range sizes {
		p, err := panel(results, size, kernels, impls, rowHeight, xmax*1.12, i == len(sizes)-1)
		if err != nil {
			return err
		}
		if i > 0 { // the kernel names once, left of the first panel
			p.Y.Tick.Marker = plot.ConstantTicks(nil)
		}
		panels[0] = append(panels[0], p)
	}
	c, err := draw.NewFormattedCanvas(width, height, format)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	dc := draw.New(c)
	header := panels[0][0].Title.TextStyle
	header.XAlign = draw.XCenter
	header.YAlign = draw.YTop
	dc.FillText(header, vg.Point{X: width / 2, Y: height - 0.15*vg.Inch}, title)
	top := header.Rectangle(title).Size().Y + 0.35*vg.Inch
	area := draw.Crop(dc, 0.1*vg.Inch, -0.2*vg.Inch, 0.1*vg.Inch, -top)
	for i, pc := range panelCanvases(panels[0], area, 0.25*vg.Inch) {
		panels[0][i].Draw(pc)
	}
	_, err = c.WriteTo(w)
	return err
}

// panelCanvases splits area into one canvas per plot, side by side with
// gap between them, so that every plot's data area has the same width
// whatever its axis labels take (plot.Align only approximates that when
// the plots' labels differ).
func panelCanvases(ps []*plot.Plot, area draw.Canvas, gap vg.Length) []draw.Canvas {
	n := vg.Length(len(ps))
	total := area.Max.X - area.Min.X - gap*(n-1)
	widths := make([]vg.Length, len(ps))
	for i := range widths {
		widths[i] = total / n
	}
	cs := make([]draw.Canvas, len(ps))
	layout := func() {
		x := area.Min.X
		for i := range ps {
			cs[i] = area
			cs[i].Min.X, cs[i].Max.X = x, x+widths[i]
			x += widths[i] + gap
		}
	}
	// A plot's margins barely depend on its width: two rounds settle them.
	for range 3 {
		layout()
		var margins vg.Length
		ms := make([]vg.Length, len(ps))
		for i, p := range ps {
			d := p.DataCanvas(cs[i])
			ms[i] = widths[i] - (d.Max.X - d.Min.X)
			margins += ms[i]
		}
		for i := range widths {
			widths[i] = (total-margins)/n + ms[i]
		}
	}
	layout()
	return cs
}

// panel is the chart for one size: kernels top to bottom in the order of
// results, bars in the order of implementations.
func panel(results []Result, size int, kernels, impls []string, rowHeight vg.Length, xmax float64, legend bool) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = FormatSize(size)
	p.X.Label.Text = "time / copy() time (< 1 is faster than copy)"
	p.X.Min, p.X.Max = 0, xmax
	p.Add(plotter.NewGrid())
	// Room above the kernels keeps the legend clear of the bars.
	top := float64(len(kernels)) + 0.1*float64(len(impls)+1) + 0.6
	one, err := plotter.NewLine(plotter.XYs{{X: 1, Y: -0.5}, {X: 1, Y: top}})
	if err != nil {
		return nil, err
	}
	one.Color = color.RGBA{R: 200, A: 255}
	one.Width = vg.Points(1.5)
	one.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(one) // first: bars and their values are drawn over it
	row := func(k string) int { return len(kernels) - 1 - slices.Index(kernels, k) }
	barWidth := rowHeight * 0.8 / vg.Length(len(impls))
	for j, im := range impls {
		vals := make(plotter.Values, len(kernels))
		for _, r := range results {
			if r.Size == size && r.Impl == im {
				vals[row(r.Name)] = r.Ratio
			}
		}
		b, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return nil, err
		}
		b.Horizontal = true
		b.LineStyle.Width = 0
		b.Color = plotutil.Color(j)
		// Bars of a row from the top down in the order of impls.
		b.Offset = (vg.Length(len(impls)-1)/2 - vg.Length(j)) * barWidth
		p.Add(b)
		if err := labelBars(p, vals, b.Offset); err != nil {
			return nil, err
		}
		if legend {
			p.Legend.Add(im, b)
		}
	}
	if legend {
		p.Legend.Add("copy() = 1", one)
		p.Legend.Top = true
	}
	names := slices.Clone(kernels)
	slices.Reverse(names)
	p.NominalY(names...)
	p.Y.Min, p.Y.Max = -0.6, top
	return p, nil
}

// FormatSize names a byte count as dt64 bench's --sizes spell it: 64KiB,
// 8MiB, 1GiB.
func FormatSize(n int) string {
	switch {
	case n%(1<<30) == 0:
		return fmt.Sprintf("%dGiB", n>>30)
	case n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// labelBars writes each bar's value just right of its end.
func labelBars(p *plot.Plot, vals plotter.Values, offset vg.Length) error {
	var xy plotter.XYLabels
	for i, v := range vals {
		if v > 0 {
			xy.XYs = append(xy.XYs, plotter.XY{X: v, Y: float64(i)})
			xy.Labels = append(xy.Labels, fmt.Sprintf("%.2f", v))
		}
	}
	if len(xy.Labels) == 0 {
		return nil
	}
	l, err := plotter.NewLabels(xy)
	if err != nil {
		return err
	}
	for i := range l.TextStyle {
		l.TextStyle[i].Font.Size = vg.Points(7)
		l.TextStyle[i].XAlign = draw.XLeft
		l.TextStyle[i].YAlign = draw.YCenter
	}
	l.Offset = vg.Point{X: vg.Points(2), Y: offset}
	p.Add(l)
	return nil
}
