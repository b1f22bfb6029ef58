package nvidiasmi

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// PmonRow is one process's line of nvidia-smi pmon output: its share of one GPU over one
// interval. pmon prints a line per process per GPU each interval, and one with pid "-" for a
// GPU without processes.
type PmonRow struct {
	Time     time.Time // the interval's time: its date and time columns, or Start + Interval × its number
	Interval int       // the interval's number in the file, from 0
	GPU      int       // the device index
	PID      int       // 0 for a GPU's line without a process
	Type     string    // "C", "G", "C+G"
	Name     string    // the command
	SM       float64   // percent of the interval the process ran kernels; Absent where pmon printed "-"
	Mem      float64   // percent of the interval its memory was read or written; Absent likewise
	FBMiB    float64   // framebuffer it holds (pmon -s m); Absent if not printed
}

// PmonReader reads recorded nvidia-smi pmon output, with or without -o D, -o T or -o DT.
type PmonReader struct {
	// Start is the time of the first interval. It is needed when the output has no time column
	// (pmon without -o T) and gives the date when it has a time but no date (-o T).
	Start time.Time
	// Interval is the time between intervals of output without a time column: pmon's -d,
	// 1 s if zero.
	Interval time.Duration
	Location *time.Location // the time zone of the date and time columns; nil means UTC
}

// pmonLayouts are how pmon -o D and -o T write their columns.
const (
	pmonDate = "20060102"
	pmonTime = "15:04:05"
)

// pmonHeader is the column of each field of a pmon line, from its header line
// ("# gpu pid type sm mem enc dec command", "#Date Time gpu pid …").
type pmonHeader struct {
	date, time, gpu, pid, typ, sm, mem, fb, command int
	n                                               int
}

// parsePmonHeader reads a header line; false if the line is not one (a units line, a comment).
func parsePmonHeader(line string) (pmonHeader, bool) {
	f := strings.Fields(strings.TrimPrefix(strings.TrimSpace(line), "#"))
	h := pmonHeader{date: -1, time: -1, gpu: -1, pid: -1, typ: -1, sm: -1, mem: -1, fb: -1, command: -1, n: len(f)}
	for i, name := range f {
		switch strings.ToLower(name) {
		case "date":
			h.date = i
		case "time":
			h.time = i
		case "gpu":
			h.gpu = i
		case "pid":
			h.pid = i
		case "type":
			h.typ = i
		case "sm":
			h.sm = i
		case "mem":
			h.mem = i
		case "fb":
			h.fb = i
		case "command":
			h.command = i
		}
	}
	return h, h.gpu >= 0 && h.pid >= 0
}

// Read parses pmon output and returns its rows in order. Output without a time column needs
// Start; output with a time but no date uses Start's date, moving to the next day when the time
// goes back. Lines that cannot be read are skipped and counted; Read fails if none can.
func (pr PmonReader) Read(r io.Reader, name string) ([]PmonRow, Stats, error) {
	var st Stats
	var rows []PmonRow
	loc := pr.Location
	if loc == nil {
		loc = time.UTC
	}
	step := pr.Interval
	if step <= 0 {
		step = time.Second
	}
	iv := pmonIntervals{pr: pr, loc: loc, step: step, n: -1, seen: map[[2]int]bool{}}
	var (
		h        pmonHeader
		haveHead bool
	)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for num := 1; sc.Scan(); num++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			if nh, ok := parsePmonHeader(line); ok {
				if haveHead && nh != h {
					st.skip(name, num, "", "the header changed (a second pmon run in one file?); its lines are read by the new header")
				}
				h, haveHead = nh, true
			}
			continue
		}
		if !haveHead {
			return nil, st, gpucost.Errorf(gpucost.EInvalid, "%s line %d: no \"# gpu pid …\" header line before it: is this nvidia-smi pmon output?", name, num)
		}
		if err := pr.checkStart(h, name); err != nil {
			return nil, st, err
		}
		st.Lines++
		f := strings.Fields(line)
		if len(f) < h.n-1 || h.command < 0 && len(f) != h.n {
			st.skip(name, num, "", fmt.Sprintf("has %d fields, want %d; left out", len(f), h.n))
			continue
		}
		row, why := h.row(f)
		if why != "" {
			st.skip(name, num, "", why+"; line left out")
			continue
		}
		if why := iv.place(h, f, &row); why != "" {
			st.skip(name, num, "", why+"; line left out")
			continue
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		return rows, st, fmt.Errorf("read %s: %w", name, err)
	}
	if len(rows) == 0 {
		return nil, st, gpucost.Errorf(gpucost.EInvalid, "%s holds no nvidia-smi pmon lines", name)
	}
	return rows, st, nil
}

// checkStart says what to give when output of header h cannot be placed in time without Start.
func (pr PmonReader) checkStart(h pmonHeader, name string) error {
	switch {
	case !pr.Start.IsZero() || h.date >= 0:
		return nil
	case h.time < 0:
		return gpucost.Errorf(gpucost.EInvalid, "%s has no time column, so its intervals cannot be placed in time: give --start (the time of its first interval) and --interval (pmon's -d, default 1s), or record with nvidia-smi pmon -o DT", name)
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s has a time column but no date: give --start on the day of its first line, or record with nvidia-smi pmon -o DT", name)
}

// pmonIntervals places pmon's rows in time. A new interval starts when the time columns
// change, or, without them, when a GPU's process comes round again.
type pmonIntervals struct {
	pr      PmonReader
	loc     *time.Location
	step    time.Duration
	n       int             // the current interval, -1 before the first
	seen    map[[2]int]bool // (gpu, pid) of the current interval
	lastKey string          // the date and time columns of the current interval
	day     time.Time       // -o T: the date the times fall on
	last    time.Time       // the current interval's time
}

// place sets row's time and interval from its fields f, or says why it cannot.
func (iv *pmonIntervals) place(h pmonHeader, f []string, row *PmonRow) string {
	if h.date >= 0 || h.time >= 0 {
		if key := h.timeKey(f); iv.n < 0 || key != iv.lastKey {
			t, why := iv.pr.lineTime(h, f, iv.loc, &iv.day, iv.last)
			if why != "" {
				return why
			}
			iv.n++
			iv.lastKey, iv.last = key, t
		}
		row.Time = iv.last
	} else {
		if iv.n < 0 || iv.seen[[2]int{row.GPU, row.PID}] {
			iv.n++
			clear(iv.seen)
		}
		row.Time = iv.pr.Start.Add(time.Duration(iv.n) * iv.step).UTC()
	}
	iv.seen[[2]int{row.GPU, row.PID}] = true
	row.Interval = iv.n
	return ""
}

// timeKey is the date and time fields of a line.
func (h pmonHeader) timeKey(f []string) string {
	var k string
	if h.date >= 0 {
		k = f[h.date]
	}
	if h.time >= 0 {
		k += " " + f[h.time]
	}
	return k
}

// lineTime is the time of a line with date or time columns; day carries -o T's date forward.
func (pr PmonReader) lineTime(h pmonHeader, f []string, loc *time.Location, day *time.Time, last time.Time) (time.Time, string) {
	var d time.Time
	if h.date >= 0 {
		var err error
		if d, err = time.ParseInLocation(pmonDate, f[h.date], loc); err != nil {
			return time.Time{}, fmt.Sprintf("date %q is not YYYYMMDD", f[h.date])
		}
	} else {
		if day.IsZero() {
			s := pr.Start.In(loc)
			*day = time.Date(s.Year(), s.Month(), s.Day(), 0, 0, 0, 0, loc)
		}
		d = *day
	}
	if h.time < 0 {
		return d.UTC(), ""
	}
	c, err := time.Parse(pmonTime, f[h.time])
	if err != nil {
		return time.Time{}, fmt.Sprintf("time %q is not HH:MM:SS", f[h.time])
	}
	t := time.Date(d.Year(), d.Month(), d.Day(), c.Hour(), c.Minute(), c.Second(), 0, loc)
	if h.date < 0 && !last.IsZero() && t.Before(last) { // -o T past midnight
		*day = day.AddDate(0, 0, 1)
		t = t.AddDate(0, 0, 1)
	}
	return t.UTC(), ""
}

// row reads a line's fields; the command takes the rest of the line.
func (h pmonHeader) row(f []string) (PmonRow, string) {
	r := PmonRow{SM: gpucost.Absent, Mem: gpucost.Absent, FBMiB: gpucost.Absent}
	gpu, err := strconv.Atoi(f[h.gpu])
	if err != nil || gpu < 0 {
		return r, fmt.Sprintf("gpu %q is not a device index", f[h.gpu])
	}
	r.GPU = gpu
	if p := f[h.pid]; p != "-" {
		if r.PID, err = strconv.Atoi(p); err != nil || r.PID <= 0 {
			return r, fmt.Sprintf("pid %q is not a process id", p)
		}
	}
	field := func(i int) string {
		if i < 0 || i >= len(f) {
			return "-"
		}
		return f[i]
	}
	if t := field(h.typ); t != "-" {
		r.Type = t
	}
	if h.command >= 0 && h.command < len(f) {
		if c := strings.Join(f[h.command:], " "); c != "-" {
			r.Name = c
		}
	}
	for _, x := range []struct {
		col  int
		to   *float64
		max  float64
		what string
	}{{h.sm, &r.SM, 100, "sm"}, {h.mem, &r.Mem, 100, "mem"}, {h.fb, &r.FBMiB, -1, "fb"}} {
		v := field(x.col)
		if v == "-" {
			continue
		}
		n, why := reading(v)
		if why != "" {
			return r, x.what + " " + why
		}
		if x.max > 0 && n > x.max {
			return r, fmt.Sprintf("%s %s is above %v", x.what, v, x.max)
		}
		*x.to = n
	}
	return r, ""
}

// PmonSamples turns pmon rows into one sample per GPU and interval, on host: its utilisation
// is the sum of the SM percentages its processes report in the interval, capped at 100 (pmon
// counts each process's kernel time, and kernels of several processes can overlap). An
// interval whose GPU has no process is 0%; one whose processes all printed "-" has no
// utilisation. The GPU is named as nvidia-smi recordings without a uuid name it: "gpu" and its
// index.
func PmonSamples(rows []PmonRow, host string) []gpucost.Sample {
	var out []gpucost.Sample
	at := map[[2]int]int{} // (interval, gpu) → its sample in out
	for _, r := range rows {
		k := [2]int{r.Interval, r.GPU}
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			s := gpucost.NewSample(r.Time, gpucost.GPU{UUID: "gpu" + strconv.Itoa(r.GPU), Host: host, Index: r.GPU})
			out = append(out, s)
		}
		s := &out[i]
		switch {
		case r.PID == 0 && gpucost.IsAbsent(s.Util):
			s.Util = 0
		case !gpucost.IsAbsent(r.SM):
			if gpucost.IsAbsent(s.Util) {
				s.Util = 0
			}
			s.Util = min(100, s.Util+r.SM)
		}
	}
	return out
}

// ReadPmon reads pmon output and returns its samples (see PmonSamples) on host.
func (pr PmonReader) ReadPmon(r io.Reader, name, host string) ([]gpucost.Sample, Stats, error) {
	rows, st, err := pr.Read(r, name)
	if err != nil {
		return nil, st, err
	}
	samples := PmonSamples(rows, host)
	st.Samples = len(samples)
	return samples, st, nil
}
