package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
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
		w.Write(r.Columns)
		w.WriteAll(r.Rows)
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
