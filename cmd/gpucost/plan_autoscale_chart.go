package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/present"
)

// writeAutoscaleChart writes the chart of the runs (present.AutoscaleChart) to name, as PNG or
// SVG by its extension, which autoscaleFlags.options checked.
func writeAutoscaleChart(name string, o plan.AutoscaleOptions, runs []plan.AutoscaleResult) error {
	c := present.AutoscaleChart(o, runs)
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
