// Package csvtelemetry reads GPU utilisation from a plain CSV file with a documented header, the
// way into gpucost for telemetry that comes from neither an agent nor a driver tool: cluster
// traces, exporters' dumps, spreadsheets. The format is described in Doc, which
// `gpucost import telemetry --help` prints.
package csvtelemetry

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Doc describes the format for people; `gpucost import telemetry --help` prints it.
const Doc = `CSV files (--format csv) have a header line naming their columns, in any order:
  timestamp         required: RFC 3339 (2026-11-01T10:00:00Z, offsets allowed) or
                    "2026-11-01 10:00:00" (UTC); fractions of a second are allowed
  gpu               required: the GPU's UUID, or its device index on the host
  util              required: utilisation, 0-100 percent of time a kernel ran
  memory_used_mib   required: framebuffer memory in use, MiB
  memory_total_mib  required: framebuffer memory in all, MiB
  power_w           optional: power draw, W
  host              optional: the host (default --host, else the file name)
  model             optional: the GPU model, such as "NVIDIA L40S" (--model overrides it)
  labels            optional: who used the GPU, as k=v;k=v (pod=web-1;team=search)
Names are matched without regard to case, and spaces or hyphens count as underscores, so
"memory used" and "Memory-Used" are memory_used_mib; "utilization" and "utilisation" are util;
"memory_used", "memory_total" and "power" are accepted too. A unit in brackets is checked
rather than dropped: "util [%]", "memory used [MiB]", "power [W]". Columns starting with x_
are ignored; any other column is refused. An empty cell, N/A or [N/A] is a reading not taken,
except in timestamp, gpu and util, which every line needs.
A file with any bad line stores nothing: the error names the file, line, column and what to do.`

// column is a field of a telemetry CSV file.
type column uint8

const (
	colIgnored column = iota // x_…: ignored
	colTimestamp
	colGPU
	colUtil
	colMemUsed
	colMemTotal
	colPower
	colHost
	colModel
	colLabels
	numColumns
)

// names are the canonical column names, as Doc lists them.
var names = [numColumns]string{colIgnored: "x_", colTimestamp: "timestamp", colGPU: "gpu", colUtil: "util",
	colMemUsed: "memory_used_mib", colMemTotal: "memory_total_mib", colPower: "power_w", colHost: "host",
	colModel: "model", colLabels: "labels"}

// required are the columns every file's header must name.
var required = []column{colTimestamp, colGPU, colUtil, colMemUsed, colMemTotal}

// aliases maps normalised header names (see normalise) to columns.
var aliases = map[string]column{
	"timestamp": colTimestamp, "time": colTimestamp,
	"gpu":  colGPU,
	"util": colUtil, "utilization": colUtil, "utilisation": colUtil,
	"memory_used_mib": colMemUsed, "memory_used": colMemUsed,
	"memory_total_mib": colMemTotal, "memory_total": colMemTotal,
	"power_w": colPower, "power": colPower,
	"host": colHost, "model": colModel, "labels": colLabels,
}

// units are the units a header may name in brackets for each column; those without any take
// none.
var units = map[column]string{colUtil: "%", colMemUsed: "MiB", colMemTotal: "MiB", colPower: "W"}

// normalise returns a header name in lower case with spaces and hyphens as underscores, and the
// unit it names in brackets, if any: "Memory Used [MiB]" is "memory_used", "MiB".
func normalise(h string) (name, unit string) {
	h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
	if i := strings.IndexByte(h, '['); i >= 0 && strings.HasSuffix(h, "]") {
		h, unit = strings.TrimSpace(h[:i]), strings.TrimSpace(h[i+1:len(h)-1])
	}
	h = strings.ToLower(h)
	h = strings.Join(strings.FieldsFunc(h, func(r rune) bool { return r == ' ' || r == '-' || r == '_' }), "_")
	return h, unit
}

// Options say how to read a file.
type Options struct {
	Host string // the host of rows without a host column or value
}

// Stats says what a Read did.
type Stats struct {
	Lines   int // data lines read (not the header)
	Samples int // samples emitted
}

// errorAt is the EInvalid error of a bad header or line: the file, line, column number and
// name (col 0 for the whole line), and what is wrong and what to do.
func errorAt(name string, line, col int, colName, format string, args ...any) error {
	where := fmt.Sprintf("%s line %d", name, line)
	if col > 0 {
		where += fmt.Sprintf(" column %d (%s)", col, colName)
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s: %s", where, fmt.Sprintf(format, args...))
}

// layout is the column of each field of a file, by position.
type layout struct {
	cols   []column
	header []string // as written, for messages
	at     [numColumns]int
}

// parseHeader reads the header line's columns and refuses unknown, repeated and missing ones.
func parseHeader(rec []string, name string) (layout, error) {
	l := layout{cols: make([]column, len(rec)), header: rec}
	for i := range l.at {
		l.at[i] = -1
	}
	for i, h := range rec {
		n, unit := normalise(h)
		if strings.HasPrefix(n, "x_") {
			continue
		}
		c, ok := aliases[n]
		if !ok {
			return l, errorAt(name, 1, i+1, strings.TrimSpace(h), "unknown column: rename it to one of %s, or prefix it with x_ to have it ignored",
				strings.Join(names[1:], ", "))
		}
		if unit != "" && !strings.EqualFold(unit, units[c]) {
			want := "no unit"
			if units[c] != "" {
				want = "[" + units[c] + "]"
			}
			return l, errorAt(name, 1, i+1, strings.TrimSpace(h), "unit [%s]: %s takes %s; convert the column", unit, names[c], want)
		}
		if l.at[c] >= 0 {
			return l, errorAt(name, 1, i+1, strings.TrimSpace(h), "%s is also column %d: keep one of them", names[c], l.at[c]+1)
		}
		l.cols[i], l.at[c] = c, i
	}
	for _, c := range required {
		if l.at[c] < 0 {
			return l, errorAt(name, 1, 0, "", "the header has no %s column; it needs %s (see gpucost import telemetry --help)",
				names[c], "timestamp, gpu, util, memory_used_mib, memory_total_mib")
		}
	}
	return l, nil
}

// Read parses a telemetry CSV file r, called name, and calls emit with each sample once every
// line has been read: a file with a bad line emits nothing, and the error says where and why.
func Read(r io.Reader, name string, o Options, emit func(gpucost.Sample)) (Stats, error) {
	var st Stats
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	rec, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return st, gpucost.Errorf(gpucost.EInvalid, "%s is empty: a telemetry CSV file starts with a header line (see gpucost import telemetry --help)", name)
	}
	if err != nil {
		return st, gpucost.Errorf(gpucost.EInvalid, "read %s: %w", name, err)
	}
	l, err := parseHeader(append([]string(nil), rec...), name)
	if err != nil {
		return st, err
	}
	var samples []gpucost.Sample
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return st, gpucost.Errorf(gpucost.EInvalid, "read %s: %w; fix the quoting on that line", name, err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		st.Lines++
		if len(rec) != len(l.cols) {
			return st, errorAt(name, line, 0, "", "%d fields, but the header names %d columns: add the missing cells or remove the extra ones", len(rec), len(l.cols))
		}
		s, err := l.sample(rec, name, line, o)
		if err != nil {
			return st, err
		}
		samples = append(samples, s)
	}
	if len(samples) == 0 {
		return st, gpucost.Errorf(gpucost.EInvalid, "%s holds a header but no samples", name)
	}
	for _, s := range samples {
		emit(s)
	}
	st.Samples = len(samples)
	return st, nil
}

// sample makes a sample of one line.
func (l layout) sample(rec []string, name string, line int, o Options) (gpucost.Sample, error) {
	s := gpucost.NewSample(time.Time{}, gpucost.GPU{Host: o.Host, Index: -1})
	for i, c := range l.cols {
		f := strings.TrimSpace(rec[i])
		if why := set(&s, c, f); why != "" {
			return s, errorAt(name, line, i+1, strings.TrimSpace(l.header[i]), "%s", why)
		}
	}
	return s, nil
}

// set reads field f of column c into s, or says what is wrong with it and what to do.
func set(s *gpucost.Sample, c column, f string) string {
	switch c {
	case colIgnored:
		return ""
	case colTimestamp:
		t, err := ParseTime(f)
		if err != nil {
			return err.Error()
		}
		s.Time = t
	case colGPU:
		if f == "" {
			return "empty: name the GPU by its UUID or device index"
		}
		if n, err := strconv.Atoi(f); err == nil && n >= 0 {
			s.GPU.Index, s.GPU.UUID = n, "gpu"+f // as nvidia-smi recordings without a uuid are stored
		} else {
			s.GPU.UUID = f
		}
	case colHost:
		if f != "" {
			s.GPU.Host = f
		}
	case colModel:
		s.GPU.Model = f
	case colLabels:
		l, why := parseLabels(f)
		s.Labels = l
		return why
	default:
		v, why := number(f)
		if why != "" {
			return why
		}
		switch c {
		case colUtil:
			if gpucost.IsAbsent(v) {
				return "empty: every line needs its utilisation (leave out a line whose GPU reported none)"
			}
			if v > 100 {
				return fmt.Sprintf("%v is above 100: util is a percentage (multiply a 0-1 fraction by 100)", v)
			}
			s.Util = v
		case colMemUsed:
			s.MemUsedMiB = v
		case colMemTotal:
			s.MemTotalMiB = v
		case colPower:
			s.PowerW = v
		}
	}
	return ""
}

// number reads a reading: empty or N/A is Absent.
func number(f string) (float64, string) {
	switch f {
	case "", "N/A", "[N/A]":
		return gpucost.Absent, ""
	}
	v, err := strconv.ParseFloat(f, 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Sprintf("%q is not a number: write a plain decimal such as 42.5, without its unit", f)
	case v < 0:
		return 0, fmt.Sprintf("%q is negative: readings are 0 or more", f)
	}
	return v, ""
}

// parseLabels reads "k=v;k=v". Keys are lower-cased; neither keys nor values may hold "," or
// "=", which the store's label strings separate with.
func parseLabels(f string) (gpucost.Labels, string) {
	if f == "" {
		return nil, ""
	}
	l := gpucost.Labels{}
	for kv := range strings.SplitSeq(f, ";") {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		switch {
		case !ok || k == "":
			return nil, fmt.Sprintf("%q is not key=value: write labels as k=v;k=v", kv)
		case strings.ContainsAny(k, ",=") || strings.Contains(v, ",") || strings.Contains(v, "="):
			return nil, fmt.Sprintf("%q: a label holds neither \",\" nor a second \"=\"", kv)
		}
		if _, dup := l[k]; dup {
			return nil, fmt.Sprintf("label %s is given twice: keep one", k)
		}
		l[k] = v
	}
	return l, ""
}

// ParseTime reads a timestamp as the format documents it: RFC 3339, or "2006-01-02 15:04:05"
// in UTC (a fraction of a second may follow the seconds, an offset the time).
func ParseTime(f string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339, "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05"} {
		if t, err := time.Parse(layout, f); err == nil {
			if t.Year() < 2000 || t.Year() >= 2100 {
				return time.Time{}, fmt.Errorf("%q is not a plausible time (a broken clock?): fix or remove the line", f)
			}
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("%q is not a time: write RFC 3339 (2026-11-01T10:00:00Z) or 2026-11-01 10:00:00 (UTC)", f)
}
