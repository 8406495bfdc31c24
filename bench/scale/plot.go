package main

import (
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// drawPlot draws, side by side, each tier's speed-up T(N)/T(first step)
// against nodes, a line per workload (its first step's calls/s in the
// legend), with the ideal, linear speed-up dashed.
func drawPlot(path string, names []string, results map[string]*tierResult) error {
	format := strings.TrimPrefix(filepath.Ext(path), ".")
	if format != "png" && format != "svg" {
		return fmt.Errorf("%s: want a .png or .svg file", path)
	}
	var panels []*plot.Plot
	for _, t := range []struct {
		title, axis string
		pick        func(*tierResult) map[string]*point
	}{
		{"Herald tier (each node capped)", "Herald nodes", func(r *tierResult) map[string]*point { return r.HeraldNodes }},
		{"Cassandra tier (each node capped, RF 1)", "Cassandra nodes", func(r *tierResult) map[string]*point { return r.CassandraNodes }},
	} {
		p, err := speedupPlot(t.title, t.axis, names, results, t.pick)
		if err != nil {
			return err
		}
		if p != nil {
			panels = append(panels, p)
		}
	}
	if len(panels) == 0 {
		return fmt.Errorf("no points to draw")
	}
	width := vg.Length(len(panels)) * 11 * vg.Centimeter
	c, err := draw.NewFormattedCanvas(width, 10*vg.Centimeter, format)
	if err != nil {
		return err
	}
	tiles := draw.Tiles{Rows: 1, Cols: len(panels), PadX: vg.Centimeter, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
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

// speedupPlot is one tier's panel, or nil when it has no points.
func speedupPlot(title, axis string, names []string, results map[string]*tierResult, pick func(*tierResult) map[string]*point) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = axis
	p.Y.Label.Text = "throughput / first step's"
	p.Legend.Top, p.Legend.Left = true, true
	maxNodes, top := 0, 0.0
	for i, name := range names {
		ps := sortedPoints(pick(results[name]))
		if len(ps) == 0 || ps[0].PerS <= 0 {
			continue
		}
		xy := make(plotter.XYs, len(ps))
		for j, pt := range ps {
			xy[j].X, xy[j].Y = float64(pt.Nodes), pt.PerS/ps[0].PerS
			maxNodes, top = max(maxNodes, pt.Nodes), max(top, xy[j].Y)
		}
		line, marks, err := plotter.NewLinePoints(xy)
		if err != nil {
			return nil, err
		}
		line.Color, marks.Color = plotutil.Color(i), plotutil.Color(i)
		line.Width = vg.Points(1.5)
		marks.Shape = plotutil.Shape(i)
		p.Add(line, marks)
		p.Legend.Add(fmt.Sprintf("%s (%.0f/s at %d)", name, ps[0].PerS, ps[0].Nodes), line, marks)
	}
	if maxNodes == 0 {
		return nil, nil
	}
	ideal := plotter.NewFunction(func(x float64) float64 { return x })
	ideal.Color = color.Gray{Y: 120}
	ideal.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(ideal)
	p.Legend.Add("linear", ideal)
	p.X.Min, p.X.Max = 1, float64(maxNodes)
	// Room above the highest line for the legend.
	p.Y.Min, p.Y.Max = 0, max(float64(maxNodes), top)*1.35
	p.Add(plotter.NewGrid())
	return p, nil
}
