package bench

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image"
	"image/color"
	_ "image/png" // registers the PNG decoder for image.Decode
	"io"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotutil"
)

// plotResults: 2 sizes × 3 kernels × 2 implementations, where impl "b"
// always takes twice as long as impl "a".
func plotResults() []Result {
	var rs []Result
	for _, size := range []int{64 << 10, 8 << 20} {
		for k, name := range []string{"ByteSwap", "Multiply(s->ns)", "Fused(BE s->LE ns+validity+minmax)"} {
			a := 0.75 + float64(k) + float64(size>>20)/10
			rs = append(rs,
				Result{Name: name, Impl: "a", Size: size, Ratio: a},
				Result{Name: name, Impl: "b", Size: size, Ratio: 2 * a})
		}
	}
	return rs
}

func hexColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("fill:#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// The SVG is well-formed XML and draws one bar per result in its
// implementation's color (plus the legend's swatch), and names every
// kernel, size, implementation and the copy() line.
func TestPlotSVG(t *testing.T) {
	var buf bytes.Buffer
	if err := Plot(&buf, "svg", "a title", plotResults()); err != nil {
		t.Fatal(err)
	}
	d := xml.NewDecoder(&buf)
	var text strings.Builder
	fills := map[string]int{}
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch tok := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = tok.Name.Local
			}
			for _, a := range tok.Attr {
				if tok.Name.Local == "path" && a.Name.Local == "style" {
					fills[strings.SplitN(a.Value, ";", 2)[0]]++
				}
			}
		case xml.CharData:
			text.Write(tok)
			text.WriteByte('\n')
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q, want svg", root)
	}
	for _, s := range []string{"a title", "ByteSwap", "Multiply(s->ns)", "Fused(BE s->LE ns+validity+minmax)",
		"64KiB", "8MiB", "\na\n", "\nb\n", "copy() = 1", "0.75", "7.10"} {
		if !strings.Contains(text.String(), s) {
			t.Errorf("the chart's text lacks %q", s)
		}
	}
	for j := range 2 {
		if got := fills[hexColor(plotutil.Color(j))]; got != 6+1 {
			t.Errorf("implementation %d: %d shapes in its color, want 6 bars and a legend swatch", j, got)
		}
	}
}

// The PNG decodes, and the bars are drawn to scale: impl "b" (twice the
// ratios of "a") covers about twice as many pixels.
func TestPlotPNG(t *testing.T) {
	var buf bytes.Buffer
	if err := Plot(&buf, "png", "a title", plotResults()); err != nil {
		t.Fatal(err)
	}
	img, format, err := image.Decode(&buf)
	if err != nil || format != "png" {
		t.Fatalf("decode: %v, format %q", err, format)
	}
	if b := img.Bounds(); b.Dx() < 600 || b.Dy() < 300 {
		t.Fatalf("image is only %v", b)
	}
	count := map[color.RGBA]int{}
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			count[color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}]++
		}
	}
	rgba := func(c color.Color) color.RGBA {
		r, g, b, a := c.RGBA()
		return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
	}
	a, b := count[rgba(plotutil.Color(0))], count[rgba(plotutil.Color(1))]
	if a < 1000 || b < 1000 {
		t.Fatalf("bar pixels: a %d, b %d", a, b)
	}
	// Both include a legend swatch of the same size, and anti-aliased
	// edges are not counted: allow 15 %.
	if r := float64(b) / float64(a); r < 1.7 || r > 2.3 {
		t.Errorf("b's bars cover %.2f × a's pixels, want about 2", r)
	}
	if count[color.RGBA{200, 0, 0, 255}] < 100 {
		t.Errorf("no copy() = 1 line")
	}
}

func TestPlotFormat(t *testing.T) {
	for name, want := range map[string]string{"a.svg": "svg", "dir/B.PNG": "png"} {
		if got, err := PlotFormat(name); err != nil || got != want {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	for _, name := range []string{"a.pdf", "a.jpg", "a", "svg"} {
		_, err := PlotFormat(name)
		if err == nil || !strings.Contains(err.Error(), ".svg or .png") || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: got %v, want an error naming the file and the formats", name, err)
		}
	}
	if err := Plot(io.Discard, "svg", "", nil); err == nil {
		t.Error("an empty chart was drawn")
	}
	if err := Plot(io.Discard, "gif", "", plotResults()); err == nil {
		t.Error("a gif was drawn")
	}
}
