package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/gpucost/gpucost/telemetry/dcgm"
	"github.com/gpucost/gpucost/telemetry/nvidiasmi"
	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
)

func newImportCmd(e *env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Load recorded data into the store",
	}
	cmd.AddCommand(newImportTelemetryCmd(e), newImportBillingCmd(e), newImportInventoryCmd(e), newImportListCmd(e), newBillsRemoveCmd(e))
	return cmd
}

// fileStats is what importing one file did.
type fileStats struct {
	File     string         `json:"file"`
	Lines    int            `json:"lines"`
	Samples  int            `json:"samples"`
	Skipped  int            `json:"skipped"`
	Skips    []string       `json:"skips,omitempty"`
	Unknown  map[string]int `json:"unknown_metrics,omitempty"`
	Rollups  int            `json:"rollups_written"`
	Repeated int            `json:"rollups_already_stored"`
}

func newImportTelemetryCmd(e *env) *cobra.Command {
	var (
		format string
		at     string
		host   string
	)
	cmd := &cobra.Command{
		Use:   "telemetry FILE...",
		Short: "Import recorded dcgm-exporter or nvidia-smi output",
		Long: `telemetry reads recorded GPU telemetry and stores its minute and hourly rollups, the same way
the agent does. dcgm files hold one or more /metrics scrapes; sample lines carry the
exposition format's millisecond timestamps, and lines without one take --at (default: the
file's modification time). nvidia-smi files hold the output of
  nvidia-smi --query-gpu=timestamp,index,uuid,name,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu --format=csv,noheader,nounits
with or without the header line.

Bad lines are reported with file and line and skipped; the rest is stored. Importing the same
file again stores nothing twice.`,
		Example: `  gpucost import telemetry --format dcgm scrapes/*.prom
  gpucost import telemetry --format dcgm --at 2026-11-01T10:00:00Z one-scrape.prom
  gpucost import telemetry --format nvidia-smi --host gpu-node-7 smi.csv`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := e.validOutput(); err != nil {
				return err
			}
			if format != "dcgm" && format != "nvidia-smi" {
				return gpucost.Errorf(gpucost.EInvalid, "--format %q: use dcgm or nvidia-smi", format)
			}
			var atTime time.Time
			if at != "" {
				t, err := time.Parse(time.RFC3339, at)
				if err != nil {
					return gpucost.Errorf(gpucost.EInvalid, "--at %q: use RFC 3339, such as 2026-11-01T10:00:00Z", at)
				}
				atTime = t
			}
			ctx := cmd.Context()
			db, err := e.openDB(ctx)
			if err != nil {
				return err
			}
			defer db.Close()
			var all []fileStats
			for _, name := range args {
				w, err := e.rollupWriter(ctx, db)
				if err != nil {
					return err
				}
				st, err := e.importTelemetryFile(ctx, w, name, format, host, atTime)
				if err != nil {
					return err
				}
				all = append(all, st)
			}
			return e.print(importResult(all))
		},
	}
	cmd.Flags().StringVar(&format, "format", "dcgm", "file format: dcgm or nvidia-smi")
	cmd.Flags().StringVar(&at, "at", "", "time of samples without a timestamp (RFC 3339; default the file's modification time)")
	cmd.Flags().StringVar(&host, "host", "", "host name for nvidia-smi files (default: the file name)")
	return cmd
}

// importTelemetryFile streams one file through its reader into w, with a progress bar on
// stderr, and returns what it did.
func (e *env) importTelemetryFile(ctx context.Context, w *telemetry.Writer, name, format, host string, at time.Time) (fileStats, error) {
	f, info, bar, err := e.openInput(name)
	if err != nil {
		return fileStats{}, err
	}
	defer f.Close()
	if at.IsZero() {
		at = info.ModTime()
	}
	r := io.TeeReader(f, bar)
	var addErr error
	emit := func(s gpucost.Sample) {
		if addErr == nil {
			addErr = w.Add(ctx, s)
		}
	}
	st := fileStats{File: name}
	switch format {
	case "dcgm":
		var ds dcgm.Stats
		ds, err = dcgm.Read(r, name, dcgm.ReadOptions{At: at}, emit)
		st.Lines, st.Samples, st.Skipped, st.Unknown = ds.Lines, ds.Samples, ds.Skipped, ds.Unknown
		st.Skips = skipStrings(ds.Skips)
	default:
		if host == "" {
			host = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		}
		var ns nvidiasmi.Stats
		ns, err = nvidiasmi.Read(r, name, host, emit)
		st.Lines, st.Samples, st.Skipped = ns.Lines, ns.Samples, ns.Skipped
		st.Skips = skipStrings(ns.Skips)
	}
	bar.Finish()
	if err == nil {
		err = addErr
	}
	if err != nil {
		return st, err
	}
	if err := w.Close(ctx); err != nil {
		return st, err
	}
	ws := w.Stats()
	st.Rollups, st.Repeated = ws.Written+ws.Merged+ws.Replaced, ws.Unchanged
	st.Skipped += w.Skipped()
	st.Skips = append(st.Skips, skipStrings(w.Skips())...)
	return st, nil
}

// openInput opens a file to import, with a progress bar over its bytes on stderr.
func (e *env) openInput(name string) (*os.File, os.FileInfo, *progressbar.ProgressBar, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, nil, nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", name, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", name, err)
	}
	return f, info, e.progress(info.Size(), filepath.Base(name), true), nil
}

func skipStrings(skips []gpucost.Skip) []string {
	out := make([]string, len(skips))
	for i, s := range skips {
		out[i] = s.String()
	}
	return out
}

// importResult shows per file what was read, skipped and stored, and the first skipped lines.
func importResult(all []fileStats) result {
	r := result{
		Columns: []string{"File", "Lines", "Samples", "Skipped", "Rollups stored", "Already stored"},
		Right:   []int{1, 2, 3, 4, 5},
		JSON:    all,
	}
	for _, st := range all {
		r.Rows = append(r.Rows, []string{st.File, fmt.Sprint(st.Lines), fmt.Sprint(st.Samples),
			fmt.Sprint(st.Skipped), fmt.Sprint(st.Rollups), fmt.Sprint(st.Repeated)})
		for i, s := range st.Skips {
			if i == 5 {
				r.Notes = append(r.Notes, fmt.Sprintf("  … and %d more skipped in %s", st.Skipped-5, st.File))
				break
			}
			r.Notes = append(r.Notes, "  skipped "+s)
		}
		for _, name := range slices.Sorted(maps.Keys(st.Unknown)) {
			n := st.Unknown[name]
			r.Notes = append(r.Notes, fmt.Sprintf("  unknown metric %s (%d lines) ignored in %s", name, n, st.File))
		}
	}
	return r
}
