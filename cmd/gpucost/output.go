package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// result is what a command prints: a table for people and CSV, and a value for JSON.
type result struct {
	Title   string
	Columns []string
	Rows    [][]string
	Notes   []string // printed under the table; with csv and json, on stderr so stdout stays data
	JSON    any      // what --output json prints; the rows as objects when nil
	// Right lists the columns to align right (numbers, money).
	Right []int
	// TableOnly lists the columns only people read, such as sparklines, left out of CSV.
	TableOnly []int
}

// validOutput checks the --output flag.
func (e *env) validOutput() error {
	switch e.output {
	case "table", "json", "csv":
		return nil
	}
	return gpucost.Errorf(gpucost.EInvalid, "--output %q: use table, json or csv", e.output)
}

// print writes r in the --output format.
func (e *env) print(r result) error {
	if err := e.validOutput(); err != nil {
		return err
	}
	switch e.output {
	case "json", "csv":
		for _, n := range r.Notes {
			fmt.Fprintln(e.stderr, n)
		}
		if e.output == "json" {
			return writeJSON(e.stdout, r)
		}
		w := csv.NewWriter(e.stdout)
		w.Write(dropColumns(r.Columns, r.TableOnly))
		for _, row := range r.Rows {
			w.Write(dropColumns(row, r.TableOnly))
		}
		w.Flush()
		return w.Error()
	}
	writeTable(e.stdout, r)
	return nil
}

func writeJSON(w io.Writer, r result) error {
	v := r.JSON
	if v == nil {
		rows := make([]map[string]string, len(r.Rows))
		for i, row := range r.Rows {
			m := make(map[string]string, len(row))
			for j, c := range row {
				m[jsonKey(r.Columns[j])] = c
			}
			rows[i] = m
		}
		v = rows
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// jsonKey turns a column title such as "$/GPU-h on-demand" into "gpu_h_on_demand".
func jsonKey(col string) string {
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

func writeTable(w io.Writer, r result) {
	if r.Title != "" {
		fmt.Fprintln(w, r.Title)
	}
	t := table.NewWriter()
	t.SetOutputMirror(w)
	t.SetStyle(table.StyleLight)
	header := make(table.Row, len(r.Columns))
	for i, c := range r.Columns {
		header[i] = c
	}
	t.AppendHeader(header)
	for _, row := range r.Rows {
		tr := make(table.Row, len(row))
		for i, c := range row {
			tr[i] = c
		}
		t.AppendRow(tr)
	}
	var cfg []table.ColumnConfig
	for _, i := range r.Right {
		cfg = append(cfg, table.ColumnConfig{Number: i + 1, Align: text.AlignRight})
	}
	t.SetColumnConfigs(cfg)
	t.Render()
	for _, n := range r.Notes {
		fmt.Fprintln(w, n)
	}
}

// progress returns a progress bar on stderr, shown only when stderr is a terminal: logs and CI
// get no control characters. max is the total, or -1 when unknown.
func (e *env) progress(max int64, desc string, bytes bool) *progressbar.ProgressBar {
	f, ok := e.stderr.(*os.File)
	visible := ok && term.IsTerminal(int(f.Fd()))
	return progressbar.NewOptions64(max, progressbar.OptionSetWriter(e.stderr),
		progressbar.OptionSetDescription(desc), progressbar.OptionShowBytes(bytes), progressbar.OptionShowCount(),
		progressbar.OptionSetVisibility(visible), progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionClearOnFinish())
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

// sparkline draws percentages as a line of block characters, one per value; NaN is a gap.
// At most width values are drawn: the latest.
func sparkline(values []float64, width int) string {
	if len(values) > width {
		values = values[len(values)-width:]
	}
	out := make([]rune, len(values))
	for i, v := range values {
		if v != v {
			out[i] = ' '
			continue
		}
		out[i] = sparkLevels[min(len(sparkLevels)-1, max(0, int(v/100*float64(len(sparkLevels)))))]
	}
	return string(out)
}
