package nvidiasmi

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// MaxSkips is how many skipped records Stats keeps; it counts them all.
const MaxSkips = 100

// Stats says what a read or a Collect did.
type Stats struct {
	Lines    int            // data lines read (not the header)
	Samples  int            // samples emitted
	Skipped  int            // lines or readings left out
	Skips    []gpucost.Skip // the first MaxSkips of them
	Unknown  map[string]int // header columns gpucost does not use, once each
	Vanished []string       // Collect: UUIDs of GPUs in the last Collect that are missing from this one
}

func (s *Stats) skip(file string, line int, field, reason string) {
	s.Skipped++
	if len(s.Skips) < MaxSkips {
		s.Skips = append(s.Skips, gpucost.Skip{File: file, Line: line, Field: field, Reason: reason})
	}
}

// Reader reads recorded nvidia-smi --query-gpu CSV output.
type Reader struct {
	Host     string         // the host the GPUs are on
	Location *time.Location // the time zone of the timestamp column; nil means UTC
	// GPU names the GPU of a recording whose query had neither uuid nor index (such as
	// --query-gpu=timestamp,utilization.gpu,…): a UUID, or a device index ("0"). Lines that
	// name their GPU keep it.
	GPU string
}

// Read parses a recording of `nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]`
// output, with timestamps in UTC, and calls emit with each sample. name names r in skips.
func Read(r io.Reader, name string, host string, emit func(gpucost.Sample)) (Stats, error) {
	return Reader{Host: host}.Read(r, name, emit)
}

// Read parses a recording: with a header line its columns may be any --query-gpu fields that
// include timestamp and uuid or index; without one they are those of RecordQuery or, when the
// first line has one field more, QueryGPU. Bad lines and
// readings are skipped and counted; Read fails only if r cannot be read or holds no sample.
func (rd Reader) Read(r io.Reader, name string, emit func(gpucost.Sample)) (Stats, error) {
	loc := rd.Location
	if loc == nil {
		loc = time.UTC
	}
	var st Stats
	var l layout // nil until a header line gives one
	seenData := false
	br := bufio.NewReaderSize(r, 64<<10)
	for num := 1; ; num++ {
		line, err := br.ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return st, fmt.Errorf("read %s line %d: %w", name, num, err)
		}
		if line == "" {
			break
		}
		if err != nil { // io.EOF before the newline
			st.skip(name, num, "", "truncated: the last line has no newline (was the file cut short?); left out")
			break
		}
		text := strings.TrimRight(line, "\r\n")
		if strings.TrimSpace(text) == "" {
			continue
		}
		fields := strings.Split(text, ",")
		if !seenData && isHeader(fields) {
			l = rd.header(fields, name, num, &st)
			continue
		}
		seenData = true
		st.Lines++
		if l == nil {
			l = headerless(fields)
		}
		if s, ok := rd.line(l, fields, text, name, num, loc, &st); ok {
			emit(s)
			st.Samples++
		}
	}
	if st.Samples == 0 {
		if len(st.Skips) > 0 {
			return st, gpucost.Errorf(gpucost.EInvalid, "%s holds no nvidia-smi --query-gpu samples: %s", name, st.Skips[0])
		}
		return st, gpucost.Errorf(gpucost.EInvalid, "%s holds no nvidia-smi --query-gpu samples", name)
	}
	return st, nil
}

// header reads a header line's layout and notes the columns gpucost does not use.
func (rd Reader) header(fields []string, name string, num int, st *Stats) layout {
	l := parseHeader(fields)
	for i, c := range l {
		if c == colOther {
			if st.Unknown == nil {
				st.Unknown = map[string]int{}
			}
			st.Unknown[strings.TrimSpace(fields[i])]++
		}
	}
	if !l.has(colUUID) && !l.has(colIndex) && rd.GPU == "" {
		st.skip(name, num, "uuid", "the header has no uuid or index column: its lines name no GPU; give the GPU's UUID or index with --gpu, or record with --query-gpu="+RecordQuery)
	}
	if !l.has(colTimestamp) {
		st.skip(name, num, "timestamp", "the header has no timestamp column: its lines cannot be placed in time")
	}
	return l
}

// line turns one data line into a sample; false if it gives none.
func (rd Reader) line(l layout, fields []string, text, name string, num int, loc *time.Location, st *Stats) (gpucost.Sample, bool) {
	if msg, ok := driverMessage(text); ok {
		st.skip(name, num, "", "nvidia-smi: "+msg)
		return gpucost.Sample{}, false
	}
	r, why := l.parse(fields, rd.gpu(), loc)
	if why != "" {
		st.skip(name, num, "", "line "+why+"; left out")
		return gpucost.Sample{}, false
	}
	if r.s.Time.IsZero() {
		why := "no timestamp"
		if p, ok := r.problem(colTimestamp); ok {
			why = p.reason
		}
		st.skip(name, num, "timestamp", why+"; line left out")
		return gpucost.Sample{}, false
	}
	for _, p := range r.problems {
		st.skip(name, num, p.field, p.reason+"; reading left out")
	}
	return r.s, true
}

// gpu is the GPU of lines that name none: rd.GPU as a UUID or a device index.
func (rd Reader) gpu() gpucost.GPU {
	g := gpucost.GPU{Host: rd.Host, Index: -1, UUID: rd.GPU}
	if n, err := strconv.Atoi(rd.GPU); err == nil && n >= 0 {
		g.Index, g.UUID = n, "gpu"+rd.GPU // as a recording with an index column but no uuid
	}
	return g
}

// driverMessage recognises the lines nvidia-smi prints instead of a GPU's row, and returns the
// message.
func driverMessage(line string) (string, bool) {
	for _, m := range []string{"No devices were found", "GPU is lost", "Unable to determine the device handle",
		"NVIDIA-SMI has failed", "fallen off the bus", "Failed to initialize NVML"} {
		if strings.Contains(line, m) {
			return strings.TrimSpace(line), true
		}
	}
	return "", false
}
