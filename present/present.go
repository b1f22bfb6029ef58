// Package present turns gpucost's results into what a person or a script reads: a titled table
// with notes under it, the same rows as CSV, or the result's own value as JSON. Commands build a
// Table from a result (the builders live here, next to one another, so every report shows a
// figure the same way) and Write prints it in the --output format.
package present

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
)

// Table is what a command prints: a table for people and CSV, and a value for JSON.
type Table struct {
	Title   string
	Columns []string
	Rows    [][]string
	Notes   []string // printed under the table; with csv and json, on stderr so stdout stays data
	JSON    any      // what --output json prints; the rows as objects when nil
	// Right lists the columns to align right (numbers, money).
	Right []int
	// TableOnly lists the columns only people read, such as sparklines, left out of CSV.
	TableOnly []int
	// Units names, by column, the unit of a column whose cells do not show it ("gb" for a
	// VRAM column of bare numbers); CSV headers and JSON row keys end with it (csv.go).
	Units []string
	// Priority ranks the columns for a narrow terminal: the lowest (0 where unset) are left
	// out first (width.go). Width is the terminal's, 0 for no limit.
	Priority []int
	Width    int
}

// Formats are the values --output takes.
var Formats = []string{"table", "json", "csv"}

// Write writes t to out in format (table, json or csv); with json and csv the notes go to
// notes, so out stays data.
func Write(out, notes io.Writer, format string, t Table) error {
	switch format {
	case "json", "csv":
		for _, n := range t.Notes {
			fmt.Fprintln(notes, n)
		}
		if format == "json" {
			return WriteJSON(out, t)
		}
		return writeCSV(out, t)
	}
	writeTable(out, t)
	return nil
}

// WriteJSON writes t's JSON value, or its rows as objects keyed like its CSV header (jsonRows),
// indented.
func WriteJSON(w io.Writer, t Table) error {
	if s, ok := w.(TableSink); ok {
		s.WroteTable(t)
	}
	v := t.JSON
	if v == nil {
		v = jsonRows(t)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// TableSink is a writer that also keeps each Table written to it as JSON, so that a test can
// describe what a command wrote from the values it wrote (docs/schema, RowColumns).
type TableSink interface{ WroteTable(Table) }

// JSONKey turns a column title such as "$/GPU-h on-demand" into "gpu_h_on_demand": the one key
// style of every output.
func JSONKey(col string) string {
	var b strings.Builder
	under := false
	for _, c := range strings.ToLower(col) {
		if c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			if under && b.Len() > 0 {
				b.WriteByte('_')
			}
			b.WriteRune(c)
			under = false
		} else {
			under = true
		}
	}
	return b.String()
}

func writeTable(w io.Writer, t Table) {
	t = fitWidth(t)
	if t.Title != "" {
		fmt.Fprintln(w, t.Title)
	}
	tw := table.NewWriter()
	tw.SetOutputMirror(w)
	tw.SetStyle(table.StyleLight)
	header := make(table.Row, len(t.Columns))
	for i, c := range t.Columns {
		header[i] = c
	}
	tw.AppendHeader(header)
	for _, row := range t.Rows {
		tr := make(table.Row, len(row))
		for i, c := range row {
			tr[i] = c
		}
		tw.AppendRow(tr)
	}
	var cfg []table.ColumnConfig
	for _, i := range t.Right {
		cfg = append(cfg, table.ColumnConfig{Number: i + 1, Align: text.AlignRight})
	}
	tw.SetColumnConfigs(cfg)
	tw.Render()
	for _, n := range t.Notes {
		fmt.Fprintln(w, n)
	}
}

// dropColumns returns row without the columns at the given indexes.
func dropColumns(row []string, drop []int) []string {
	if len(drop) == 0 {
		return row
	}
	out := make([]string, 0, len(row))
	for i, c := range row {
		if !slices.Contains(drop, i) {
			out = append(out, c)
		}
	}
	return out
}

// sparkLevels draw a value from 0 to 100 in eight steps.
var sparkLevels = []rune("▁▂▃▄▅▆▇█")

// Sparkline draws percentages as a line of block characters, one per value; NaN is a gap.
// At most width values are drawn: the latest.
func Sparkline(values []float64, width int) string {
	if len(values) > width {
		values = values[len(values)-width:]
	}
	var buf [64 * utf8.UTFMax]byte // a report by GPU draws one a row: the line made in place
	out := buf[:0]
	for _, v := range values {
		if v != v {
			out = append(out, ' ')
			continue
		}
		out = utf8.AppendRune(out, sparkLevels[min(len(sparkLevels)-1, max(0, int(v/100*float64(len(sparkLevels)))))])
	}
	return string(out)
}

// Percent formats a percentage with one decimal, "–" when absent (NaN).
func Percent(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	var b [32]byte // strconv writes what fmt's %.1f does, without fmt's reflection
	return string(append(strconv.AppendFloat(b[:0], v, 'f', 1, 64), '%'))
}

// Hours formats GPU-hours: two decimals below ten, so a few minutes do not show as 0.0.
func Hours(h float64) string {
	if h < 10 {
		return strconv.FormatFloat(h, 'f', 2, 64)
	}
	return strconv.FormatFloat(h, 'f', 1, 64)
}
