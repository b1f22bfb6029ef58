package chart

import (
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// PNG writes the chart as a PNG image.
func (c Line) PNG(w io.Writer) error {
	f, err := c.layout()
	if err != nil {
		return err
	}
	img := image.NewRGBA(image.Rect(0, 0, int(f.w), int(f.h)))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	black, grey := color.RGBA{0, 0, 0, 255}, color.RGBA{204, 204, 204, 255}
	for _, t := range f.xticks {
		line(img, f.px(t), f.top, f.px(t), f.bot, 1, grey)
		text(img, tickLabel(t), f.px(t), f.bot+charH+4, 0.5, black)
	}
	for _, t := range f.yticks {
		line(img, f.left, f.py(t), f.right, f.py(t), 1, grey)
		text(img, tickLabel(t), f.left-6, f.py(t)+4, 1, black)
	}
	line(img, f.left, f.top, f.left, f.bot, 1, black)
	line(img, f.left, f.bot, f.right, f.bot, 1, black)
	text(img, c.Title, f.w/2, charH+6, 0.5, black)
	text(img, c.XLabel, (f.left+f.right)/2, f.h-charH, 0.5, black)
	verticalText(img, c.YLabel, charH+2, (f.top+f.bot)/2, black)
	widest := 0
	for _, s := range c.Series {
		widest = max(widest, len(ascii(s.Label)))
	}
	lx := f.right - float64(widest*charW) - 40
	legend := image.Rect(int(lx)-6, int(f.top)+1, int(f.right)-1, int(f.top)+len(c.Series)*(charH+4)+8)
	draw.Draw(img, legend, image.White, image.Point{}, draw.Src)
	for i, s := range c.Series {
		col := Colors[i%len(Colors)]
		rgba := color.RGBA{col[0], col[1], col[2], 255}
		for j := 1; j < len(s.X); j++ {
			line(img, f.px(s.X[j-1]), f.py(s.Y[j-1]), f.px(s.X[j]), f.py(s.Y[j]), 2, rgba)
		}
		y := f.top + 8 + float64(i*(charH+4))
		line(img, lx, y, lx+24, y, 2, rgba)
		text(img, s.Label, lx+30, y+4, 0, black)
	}
	return png.Encode(w, img)
}

// line draws from (x0, y0) to (x1, y1), width pixels thick.
func line(img *image.RGBA, x0, y0, x1, y1 float64, width int, c color.RGBA) {
	n := int(math.Max(math.Abs(x1-x0), math.Abs(y1-y0))) + 1
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(n)
		x, y := int(math.Round(x0+(x1-x0)*t)), int(math.Round(y0+(y1-y0)*t))
		for dx := range width {
			for dy := range width {
				img.SetRGBA(x+dx-width/2, y+dy-width/2, c)
			}
		}
	}
}

// text writes s with its baseline at y; anchor places x at the start (0), middle (0.5) or end (1).
func text(img draw.Image, s string, x, y, anchor float64, c color.RGBA) {
	s = ascii(s)
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13}
	x -= anchor * float64(len(s)*charW)
	d.Dot = fixed.P(int(math.Round(x)), int(math.Round(y)))
	d.DrawString(s)
}

// verticalText writes s turned a quarter left, centred on (x, y).
func verticalText(img *image.RGBA, s string, x, y float64, c color.RGBA) {
	n := len(ascii(s)) * charW
	tmp := image.NewRGBA(image.Rect(0, 0, n, charH))
	text(tmp, s, 0, charH-3, 0, c)
	for i := range n {
		for j := range charH {
			if p := tmp.RGBAAt(i, j); p.A != 0 {
				img.SetRGBA(int(x)-charH+j, int(y)+n/2-i, p)
			}
		}
	}
}
