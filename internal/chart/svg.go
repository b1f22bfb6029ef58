package chart

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"
)

// SVG writes the chart as an SVG document.
func (c Line) SVG(w io.Writer) error {
	f, err := c.layout()
	if err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	esc := html.EscapeString
	fmt.Fprintf(b, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g" font-family="sans-serif" font-size="12">
<rect width="100%%" height="100%%" fill="white"/>
`, f.w, f.h, f.w, f.h)
	fmt.Fprintf(b, "<text x=\"%g\" y=\"%d\" text-anchor=\"middle\" font-size=\"14\">%s</text>\n", f.w/2, charH+6, esc(c.Title))
	fmt.Fprintf(b, "<text x=\"%g\" y=\"%g\" text-anchor=\"middle\">%s</text>\n", (f.left+f.right)/2, f.h-charH, esc(c.XLabel))
	fmt.Fprintf(b, "<text transform=\"translate(%d %g) rotate(-90)\" text-anchor=\"middle\">%s</text>\n", charH+2, (f.top+f.bot)/2, esc(c.YLabel))
	fmt.Fprintf(b, "<g stroke=\"black\" fill=\"none\"><path d=\"M%.1f %.1fV%.1fH%.1f\"/></g>\n", f.left, f.top, f.bot, f.right)
	b.WriteString("<g stroke=\"#ccc\" stroke-width=\"0.5\">")
	for _, t := range f.xticks {
		fmt.Fprintf(b, "<path d=\"M%.1f %.1fV%.1f\"/>", f.px(t), f.top, f.bot)
	}
	for _, t := range f.yticks {
		fmt.Fprintf(b, "<path d=\"M%.1f %.1fH%.1f\"/>", f.left, f.py(t), f.right)
	}
	b.WriteString("</g>\n<g>")
	for _, t := range f.xticks {
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>", f.px(t), f.bot+charH+4, tickLabel(t))
	}
	for _, t := range f.yticks {
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>", f.left-6, f.py(t)+4, tickLabel(t))
	}
	b.WriteString("</g>\n")
	for i, s := range c.Series {
		col, dash := Colors[i%len(Colors)], Dashes[i%len(Dashes)]
		fmt.Fprintf(b, "<path fill=\"none\" stroke=\"rgb(%d,%d,%d)\" stroke-width=\"1.5\"", col[0], col[1], col[2])
		if dash != "" {
			fmt.Fprintf(b, " stroke-dasharray=\"%s\"", dash)
		}
		b.WriteString(" d=\"")
		for j := range s.X {
			cmd := "L"
			if j == 0 {
				cmd = "M"
			}
			fmt.Fprintf(b, "%s%.1f %.1f", cmd, f.px(s.X[j]), f.py(s.Y[j]))
		}
		fmt.Fprintf(b, "\"><title>%s</title></path>\n", esc(s.Label))
	}
	// The legend, at the top right inside the plot area.
	widest := 0
	for _, s := range c.Series {
		widest = max(widest, len([]rune(s.Label)))
	}
	x := f.right - float64(widest*charW) - 40
	fmt.Fprintf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"white\"/>\n", x-6, f.top+1, f.right-x+5, len(c.Series)*(charH+4)+8)
	for i, s := range c.Series {
		col, dash := Colors[i%len(Colors)], Dashes[i%len(Dashes)]
		y := f.top + 8 + float64(i*(charH+4))
		fmt.Fprintf(b, "<path stroke=\"rgb(%d,%d,%d)\" stroke-width=\"1.5\" stroke-dasharray=\"%s\" d=\"M%.1f %.1fh24\"/>", col[0], col[1], col[2], strings.TrimSpace(dash), x, y)
		fmt.Fprintf(b, "<text x=\"%.1f\" y=\"%.1f\">%s</text>\n", x+30, y+4, esc(s.Label))
	}
	b.WriteString("</svg>\n")
	return b.Flush()
}
