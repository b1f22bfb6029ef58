package chart

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpucost/gpucost"
)

// Writable reports whether name is a file WriteFile can write: one ending in .png or .svg.
func Writable(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".png" || ext == ".svg"
}

// WriteFile draws c into the file name, as PNG or SVG by its extension (SVG unless it is .png).
// A file that cannot be written is an EInvalid error naming --chart, the flag that gave it.
func (c Line) WriteFile(name string) error {
	var b bytes.Buffer
	write := c.SVG
	if strings.ToLower(filepath.Ext(name)) == ".png" {
		write = c.PNG
	}
	if err := write(&b); err != nil {
		return fmt.Errorf("draw chart %s: %w", name, err)
	}
	if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "--chart %s: %w", name, err)
	}
	return nil
}
