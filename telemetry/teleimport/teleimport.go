// Package teleimport is the front door of recorded GPU telemetry: gpucost import telemetry
// reads dcgm-exporter scrapes, nvidia-smi recordings and plain CSV files through it into a
// telemetry.Writer, which stores their minute and hourly rollups as the agent's are stored.
package teleimport

import (
	"context"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry"
	"github.com/gpucost/gpucost/telemetry/csvtelemetry"
	"github.com/gpucost/gpucost/telemetry/dcgm"
	"github.com/gpucost/gpucost/telemetry/nvidiasmi"
)

// Format names the format of a recording.
type Format string

// The formats a recording may come in.
const (
	DCGM      Format = "dcgm"            // dcgm-exporter /metrics scrapes
	NvidiaSMI Format = "nvidia-smi"      // nvidia-smi --query-gpu CSV output
	CSV       Format = "csv"             // a CSV file with the header csvtelemetry.Doc documents
	SMIXML    Format = "nvidia-smi-xml"  // nvidia-smi -q -x reports
	SMIPmon   Format = "nvidia-smi-pmon" // nvidia-smi pmon output
)

// formats lists the formats for messages.
const formats = "dcgm, nvidia-smi, nvidia-smi-xml, nvidia-smi-pmon or csv"

// ParseFormat returns the format s names, or an EInvalid error that lists the formats.
func ParseFormat(s string) (Format, error) {
	switch f := Format(s); f {
	case DCGM, NvidiaSMI, CSV, SMIXML, SMIPmon:
		return f, nil
	}
	return "", gpucost.Errorf(gpucost.EInvalid, "--format %q: use "+formats, s)
}

// Options say how to read a recording.
type Options struct {
	Format Format
	// At is the time of samples without a timestamp; zero means the file's modification time.
	At time.Time
	// Host names the host of an nvidia-smi recording, and of CSV rows without a host; empty
	// means the file's name without its extension.
	Host string
	// Model, when set, is the GPU model of every sample, for a recording whose name column is
	// missing or names a GPU the catalog does not know ("GRID A100-10C" is known: a vGPU profile).
	Model string
	// GPU names the GPU of an nvidia-smi recording whose query had no uuid or index: a UUID or a
	// device index.
	GPU string
	// Start is the time of the first interval of nvidia-smi pmon output without a date and time
	// column, and gives the date of output with a time but no date; Interval is the time between
	// intervals (pmon's -d; 1 s if zero).
	Start    time.Time
	Interval time.Duration
}

// Stats is what importing one file did.
type Stats struct {
	File     string         `json:"file"`
	Lines    int            `json:"lines"`
	Samples  int            `json:"samples"`
	Skipped  int            `json:"skipped"`
	Skips    []string       `json:"skips,omitempty"`
	Unknown  map[string]int `json:"unknown_metrics,omitempty"`
	Rollups  int            `json:"rollups_written"`
	Repeated int            `json:"rollups_already_stored"`
}

// Progress is told the bytes an import reads, and when the file is done: a progress bar.
type Progress interface {
	io.Writer
	Finish() error
}

// Importer reads recordings into the store its writers write to.
type Importer struct {
	// Writer returns a new writer for each file: Import closes it.
	Writer func(ctx context.Context) (*telemetry.Writer, error)
	// Progress, when set, makes the progress report of a file of size bytes called name.
	Progress func(name string, size int64) Progress
}

// ImportFiles imports each file in turn and returns what each did; it stops at the first file
// that fails.
func (im *Importer) ImportFiles(ctx context.Context, paths []string, o Options) ([]Stats, error) {
	var all []Stats
	for _, path := range paths {
		st, err := im.ImportFile(ctx, path, o)
		if err != nil {
			return all, err
		}
		all = append(all, st)
	}
	return all, nil
}

// ImportFile streams the file at path through its format's reader into a new writer, closes
// the writer and returns what it did. A file that cannot be opened is an EInvalid error.
func (im *Importer) ImportFile(ctx context.Context, path string, o Options) (Stats, error) {
	w, err := im.Writer(ctx)
	if err != nil {
		return Stats{}, err
	}
	f, err := os.Open(path)
	if err != nil {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return Stats{}, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", path, err)
	}
	if o.At.IsZero() {
		o.At = info.ModTime()
	}
	var r io.Reader = f
	if im.Progress != nil {
		bar := im.Progress(filepath.Base(path), info.Size())
		r = io.TeeReader(f, bar)
		defer bar.Finish()
	}
	return Import(ctx, w, r, path, o)
}

// Import reads the recording r, called name, into w, closes w and returns what it did: lines
// read, samples, the lines and samples skipped (the reader's and the writer's, the first of
// them as file:line strings), and the rollups written and those the store held already.
func Import(ctx context.Context, w *telemetry.Writer, r io.Reader, name string, o Options) (Stats, error) {
	var addErr error
	st, err := read(r, name, o, func(s gpucost.Sample) {
		if addErr == nil {
			addErr = w.Add(ctx, s)
		}
	})
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

// read parses the recording r, called name, in its format and calls emit with each sample,
// its model replaced by o.Model where that is set.
func read(r io.Reader, name string, o Options, emit func(gpucost.Sample)) (Stats, error) {
	if o.Model != "" {
		next := emit
		emit = func(s gpucost.Sample) {
			s.GPU.Model = o.Model
			next(s)
		}
	}
	st := Stats{File: name}
	var err error
	switch o.Format {
	case DCGM:
		var ds dcgm.Stats
		ds, err = dcgm.Read(r, name, dcgm.ReadOptions{At: o.At}, emit)
		st.Lines, st.Samples, st.Skipped, st.Unknown = ds.Lines, ds.Samples, ds.Skipped, ds.Unknown
		st.Skips = skipStrings(ds.Skips)
	case NvidiaSMI:
		var ns nvidiasmi.Stats
		ns, err = nvidiasmi.Reader{Host: o.host(name), GPU: o.GPU}.Read(r, name, emit)
		st.Lines, st.Samples, st.Skipped = ns.Lines, ns.Samples, ns.Skipped
		st.Skips = skipStrings(ns.Skips)
	case SMIXML:
		var logs []nvidiasmi.XMLLog
		var ns nvidiasmi.Stats
		logs, ns, err = nvidiasmi.Reader{Host: o.host(name)}.ReadXML(r, name)
		for _, log := range logs {
			for _, s := range log.Samples {
				emit(s)
			}
		}
		st.Lines, st.Samples, st.Skipped = ns.Lines, ns.Samples, ns.Skipped
		st.Skips = skipStrings(ns.Skips)
	case SMIPmon:
		var samples []gpucost.Sample
		var ns nvidiasmi.Stats
		samples, ns, err = nvidiasmi.PmonReader{Start: o.Start, Interval: o.Interval}.ReadPmon(r, name, o.host(name))
		for _, s := range samples {
			emit(s)
		}
		st.Lines, st.Samples, st.Skipped = ns.Lines, ns.Samples, ns.Skipped
		st.Skips = skipStrings(ns.Skips)
	case CSV:
		var cs csvtelemetry.Stats
		cs, err = csvtelemetry.Read(r, name, csvtelemetry.Options{Host: o.host(name)}, emit)
		st.Lines, st.Samples = cs.Lines, cs.Samples
	default:
		_, err = ParseFormat(string(o.Format))
	}
	return st, err
}

// Models returns the GPU models the samples of the files at paths name, sorted, reading them
// without storing anything; "" stands for samples that name none. It fails where importing
// the files would.
func Models(paths []string, o Options) ([]string, error) {
	seen := map[string]bool{}
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w", path, err)
		}
		fo := o
		if fo.At.IsZero() {
			if info, err := f.Stat(); err == nil {
				fo.At = info.ModTime()
			}
		}
		_, err = read(f, path, fo, func(s gpucost.Sample) { seen[s.GPU.Model] = true })
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	return slices.Sorted(maps.Keys(seen)), nil
}

// host is the host of a recording called name without a host of its own: o.Host, else the
// file's name without its extension.
func (o Options) host(name string) string {
	if o.Host != "" {
		return o.Host
	}
	return strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
}

func skipStrings(skips []gpucost.Skip) []string {
	out := make([]string, len(skips))
	for i, s := range skips {
		out[i] = s.String()
	}
	return out
}
