package bench

import (
	"fmt"
	"image/color"
	"os"
	"slices"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// DrawScale draws the rows of one chart as an SVG file at path: each list's p50 against N, both axes
// logarithmic, so that a list whose cost follows its page is a flat line and one that reads its whole
// scope a rising one. Sizes a list failed at are left out of its line.
func DrawScale(path, title string, rows []ScaleRow) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "N, items in scope (log)"
	p.Y.Label.Text = "p50 ms (log)"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Add(plotter.NewGrid())
	legend := plot.NewLegend()
	legend.Top, legend.Left, legend.Padding = true, true, vg.Points(4)
	var labels, series []string
	points := map[string]plotter.XYs{}
	style := map[string][2]int{} // by label: its series' colour, its place in the series
	for _, r := range rows {
		if r.Failed != "" || r.Stats.N() == 0 {
			continue
		}
		if _, seen := points[r.Label]; !seen {
			if !slices.Contains(series, r.Series) {
				series = append(series, r.Series)
			}
			inSeries := 0
			for _, l := range labels {
				if style[l][0] == slices.Index(series, r.Series) {
					inSeries++
				}
			}
			style[r.Label] = [2]int{slices.Index(series, r.Series), inSeries}
			labels = append(labels, r.Label)
		}
		points[r.Label] = append(points[r.Label],
			plotter.XY{X: float64(r.N), Y: float64(r.Stats.Percentile(50).Microseconds()) / 1000})
	}
	if len(labels) == 0 {
		return fmt.Errorf("%s: nothing measured to draw", title)
	}
	var xs, ys []float64
	for _, label := range labels {
		xy := points[label]
		slices.SortFunc(xy, func(a, b plotter.XY) int { return int(a.X - b.X) })
		line, dots, err := plotter.NewLinePoints(xy)
		if err != nil {
			return err
		}
		colour, dashes := style[label][0], style[label][1]
		line.Color, dots.Color = lineColor(colour), lineColor(colour)
		line.Dashes, dots.Shape = plotutil.Dashes(dashes), plotutil.Shape(dashes)
		line.Width = vg.Points(1.5)
		p.Add(line, dots)
		legend.Add(label, line, dots)
		for _, pt := range xy {
			xs, ys = append(xs, pt.X), append(ys, pt.Y)
		}
	}
	// The axes span a little more than the points: a log axis cannot span a single value.
	p.X.Min, p.X.Max = slices.Min(xs)/2, slices.Max(xs)*2
	p.Y.Min, p.Y.Max = slices.Min(ys)/1.5, slices.Max(ys)*1.5
	return save(path, p, legend)
}

// save writes the plot as SVG with its legend beside it, where it hides no line.
func save(path string, p *plot.Plot, legend plot.Legend) error {
	const width, height, legendWidth = 10 * vg.Inch, 5 * vg.Inch, 2.8 * vg.Inch
	img := vgsvg.New(width, height)
	c := draw.New(img)
	p.Draw(draw.Crop(c, 0, -legendWidth, 0, 0))
	legend.Draw(draw.Crop(c, width-legendWidth+vg.Points(8), 0, 0, -vg.Points(24)))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := img.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// palette holds colours told apart by people with the common colour vision deficiencies (Okabe and Ito).
var palette = []color.RGBA{
	{0, 114, 178, 255}, {213, 94, 0, 255}, {0, 158, 115, 255}, {204, 121, 167, 255},
	{230, 159, 0, 255}, {86, 180, 233, 255}, {0, 0, 0, 255},
}

func lineColor(i int) color.Color { return palette[i%len(palette)] }
