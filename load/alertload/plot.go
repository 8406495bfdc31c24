package alertload

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Plot draws the report's alerts side by side: for each, the share of its
// matching queues that held it and of its matching connected devices that
// had it, against seconds since its publish. path ends in .png or .svg.
func Plot(path string, r Report) error {
	format := strings.TrimPrefix(filepath.Ext(path), ".")
	if format != "png" && format != "svg" {
		return fmt.Errorf("%s: want a .png or .svg file", path)
	}
	var panels []*plot.Plot
	for _, a := range r.Alerts {
		if len(a.Progress) == 0 {
			continue
		}
		p := plot.New()
		p.Title.Text = fmt.Sprintf("%s alert: %d devices", a.Name, a.Matching)
		p.X.Label.Text = "seconds since publish"
		p.Y.Label.Text = "share reached"
		p.X.Min, p.Y.Min, p.Y.Max = 0, 0, 1.02
		p.Legend.Top, p.Legend.Left = true, true
		p.Add(plotter.NewGrid())
		for _, line := range []struct {
			name  string
			of    func(ProgressPoint) int
			total int
			color color.Color
			dash  []vg.Length
		}{
			{"queues holding it", func(pt ProgressPoint) int { return pt.Enqueued }, a.Matching, color.RGBA{R: 31, G: 119, B: 180, A: 255}, nil},
			{"connected devices with it", func(pt ProgressPoint) int { return pt.Connected }, a.Connected, color.RGBA{R: 214, G: 39, B: 40, A: 255}, []vg.Length{vg.Points(4), vg.Points(3)}},
		} {
			if line.total == 0 {
				continue
			}
			xy := make(plotter.XYs, 1, len(a.Progress)+1) // from (0, 0): the publish
			for _, pt := range a.Progress {
				xy = append(xy, plotter.XY{X: pt.AtS, Y: float64(line.of(pt)) / float64(line.total)})
			}
			l, err := plotter.NewLine(xy)
			if err != nil {
				return err
			}
			l.Color, l.Width, l.Dashes = line.color, vg.Points(1.5), line.dash
			p.Add(l)
			p.Legend.Add(fmt.Sprintf("%s (%d)", line.name, line.total), l)
		}
		panels = append(panels, p)
	}
	if len(panels) == 0 {
		return fmt.Errorf("no alert progress to draw")
	}
	c, err := draw.NewFormattedCanvas(vg.Length(len(panels))*10*vg.Centimeter, 9*vg.Centimeter, format)
	if err != nil {
		return err
	}
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Centimeter, PadTop: 2 * vg.Millimeter, PadBottom: 2 * vg.Millimeter, PadLeft: 2 * vg.Millimeter, PadRight: 4 * vg.Millimeter}
	canvases := plot.Align([][]*plot.Plot{panels}, tiles, draw.New(c))
	for i, p := range panels {
		p.Draw(canvases[0][i])
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := c.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
