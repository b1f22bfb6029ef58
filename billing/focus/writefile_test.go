package focus

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// TestWriteLinesFile checks that an export replaces its file only when the file read back holds
// the rows and totals written, and leaves no temporary file behind either way.
func TestWriteLinesFile(t *testing.T) {
	var sampleLines []gpucost.CostLine
	var totals gpucost.CostTotals
	if _, err := ReadFile(sample, func(l *gpucost.CostLine) error {
		sampleLines = append(sampleLines, Clone(l))
		totals.Add(l.BilledCost, l.EffectiveCost)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	writeErr := errors.New("disk full")
	for _, tt := range []struct {
		name    string
		file    string
		rows    int                        // the rows lines claims to have written
		totals  func() []gpucost.CostTotal // the totals lines claims
		err     error                      // what lines returns
		wantErr string
	}{
		{name: "csv", file: "out.csv", rows: len(sampleLines), totals: totals.Sorted},
		{name: "parquet", file: "out.parquet", rows: len(sampleLines), totals: totals.Sorted},
		{name: "rows miscounted", file: "out.csv", rows: len(sampleLines) + 1, totals: totals.Sorted,
			wantErr: "wrote " + strconv.Itoa(len(sampleLines)+1) + " rows, read back " + strconv.Itoa(len(sampleLines))},
		{name: "totals wrong", file: "out.csv", rows: len(sampleLines), totals: func() []gpucost.CostTotal {
			ts := totals.Sorted()
			one, _ := gpucost.ParseMoney("1", ts[0].Currency)
			ts[0].BilledCost = ts[0].BilledCost.Add(one)
			return ts
		}, wantErr: "totals read back"},
		{name: "write fails", file: "out.csv", rows: len(sampleLines), totals: totals.Sorted, err: writeErr, wantErr: "disk full"},
	} {
		dir := t.TempDir()
		path := filepath.Join(dir, tt.file)
		got, err := WriteLinesFile(path, WriterOptions{Format: FormatOf(path)}, func(write func(*gpucost.CostLine) error) (Written, error) {
			for i := range sampleLines {
				if err := write(&sampleLines[i]); err != nil {
					return Written{}, err
				}
			}
			return Written{Rows: tt.rows, Totals: tt.totals()}, tt.err
		})
		entries, _ := os.ReadDir(dir)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), "export to "+path) {
				t.Errorf("%s: WriteLinesFile(%s) = %v, want an error naming the file and %q", tt.name, tt.file, err, tt.wantErr)
			}
			if len(entries) != 0 {
				t.Errorf("%s: WriteLinesFile(%s) failed and left %d files, want none", tt.name, tt.file, len(entries))
			}
			continue
		}
		if err != nil || got.Rows != len(sampleLines) {
			t.Fatalf("%s: WriteLinesFile(%s) = %+v, %v; want %d rows", tt.name, tt.file, got, err, len(sampleLines))
		}
		if len(entries) != 1 || entries[0].Name() != tt.file {
			t.Errorf("%s: WriteLinesFile(%s) left %v, want only %s", tt.name, tt.file, entries, tt.file)
		}
		if _, st := readAll(t, path); st.Rows != len(sampleLines) {
			t.Errorf("%s: %s holds %d rows, want %d", tt.name, tt.file, st.Rows, len(sampleLines))
		}
	}
}

// TestWriteFileNoDir checks that an export to a folder that does not exist is invalid input.
func TestWriteFileNoDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing", "out.csv")
	_, err := WriteLinesFile(path, WriterOptions{}, func(func(*gpucost.CostLine) error) (Written, error) { return Written{}, nil })
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "export to "+path) {
		t.Errorf("WriteLinesFile(%s) = %v (%s), want %s naming the file", path, err, gpucost.ErrorCode(err), gpucost.EInvalid)
	}
}
