// Package nvidiasmi reads GPU samples from NVIDIA's nvidia-smi: the Collector runs it with
// --query-gpu and --query-compute-apps and attributes each GPU to the pods and jobs of the
// processes using it (from /proc); Read parses recorded --query-gpu CSV output.
package nvidiasmi

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// RecordQuery is the --query-gpu field list gpucost import telemetry documents for recording
// nvidia-smi output: Read takes a file without a header line to hold these columns, or those of
// QueryGPU when its lines have one field more.
const RecordQuery = "timestamp,index,uuid,name,utilization.gpu,memory.used,memory.total,power.draw,temperature.gpu"

// RecordCommand is the nvidia-smi command line whose output gpucost import telemetry reads.
const RecordCommand = "nvidia-smi --query-gpu=" + RecordQuery + " --format=csv,noheader,nounits"

// QueryGPU is the --query-gpu field list the Collector asks for: RecordQuery and
// mig.mode.current, which says why a GPU reports no utilisation.
const QueryGPU = RecordQuery + ",mig.mode.current"

// QueryApps is the --query-compute-apps field list the Collector asks for.
const QueryApps = "gpu_uuid,pid,process_name,used_memory"

// TimeLayout is how nvidia-smi writes its timestamp column, in the host's local time.
const TimeLayout = "2006/01/02 15:04:05.000"

// Timestamps outside these years are a broken clock or a corrupt line, not GPU readings.
var (
	minTime = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	maxTime = time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC)
)

// column is a --query-gpu field gpucost reads.
type column uint8

const (
	colOther column = iota // a field gpucost does not use
	colTimestamp
	colIndex
	colUUID
	colName
	colUtil
	colMemUsed
	colMemTotal
	colPower
	colTemp
	colMIG
)

// columns maps nvidia-smi field names (and the aliases --help-query-gpu lists) to columns.
var columns = map[string]column{
	"timestamp": colTimestamp, "index": colIndex, "uuid": colUUID, "gpu_uuid": colUUID,
	"name": colName, "gpu_name": colName, "utilization.gpu": colUtil,
	"memory.used": colMemUsed, "memory.total": colMemTotal,
	"power.draw": colPower, "power.draw.instant": colPower, "power.draw.average": colPower,
	"temperature.gpu": colTemp, "mig.mode.current": colMIG,
}

// layout is the column of each CSV field.
type layout []column

// defaultLayout is the layout of QueryGPU; recordLayout that of RecordQuery.
var (
	defaultLayout = parseHeader(strings.Split(QueryGPU, ","))
	recordLayout  = parseHeader(strings.Split(RecordQuery, ","))
)

// headerless returns the layout of a line without a header before it: that of RecordQuery or
// QueryGPU, whichever has as many fields as the line, and QueryGPU's otherwise, so that the
// line is reported as having the wrong number of fields.
func headerless(fields []string) layout {
	if len(fields) == len(recordLayout) {
		return recordLayout
	}
	return defaultLayout
}

// parseHeader returns the layout a header line gives, such as
// "timestamp, index, uuid, utilization.gpu [%]", and the fields it does not know.
func parseHeader(fields []string) layout {
	l := make(layout, len(fields))
	for i, f := range fields {
		name, _, _ := strings.Cut(strings.TrimSpace(f), " [")
		l[i] = columns[strings.ToLower(name)]
	}
	return l
}

// isHeader reports whether a line's fields name columns rather than hold values: one of them
// is uuid, index or timestamp.
func isHeader(fields []string) bool {
	for _, f := range fields {
		name, _, _ := strings.Cut(strings.TrimSpace(f), " [")
		if c := columns[strings.ToLower(name)]; c == colUUID || c == colIndex || c == colTimestamp {
			return true
		}
	}
	return false
}

// has reports whether the layout holds column c.
func (l layout) has(c column) bool {
	for _, x := range l {
		if x == c {
			return true
		}
	}
	return false
}

// problem is a field of a row that could not be read.
type problem struct {
	field, reason string
}

// row is one --query-gpu line made into a sample.
type row struct {
	s        gpucost.Sample
	mig      bool      // MIG mode is enabled: utilisation is not reported
	problems []problem // readings left out
}

// problem returns the problem with column c, if there is one.
func (r *row) problem(c column) (problem, bool) {
	for _, p := range r.problems {
		if p.field == fieldName(c) {
			return p, true
		}
	}
	return problem{}, false
}

// parse makes a row of fields, of the GPU g unless they name another. It returns a reason if
// the line cannot give a sample at all.
func (l layout) parse(fields []string, g gpucost.GPU, loc *time.Location) (row, string) {
	if len(fields) != len(l) {
		return row{}, "has " + strconv.Itoa(len(fields)) + " fields, want " + strconv.Itoa(len(l))
	}
	if l.has(colUUID) || l.has(colIndex) {
		g.UUID, g.Index = "", -1
	}
	r := row{s: gpucost.NewSample(time.Time{}, g)}
	for i, c := range l {
		f := strings.TrimSpace(fields[i])
		if why := r.set(c, f, loc); why != "" {
			r.problems = append(r.problems, problem{fieldName(c), why})
		}
	}
	switch {
	case r.s.GPU.UUID == "" && r.s.GPU.Index < 0:
		return r, "names no GPU (no uuid or index)"
	case r.s.GPU.UUID == "":
		r.s.GPU.UUID = "gpu" + strconv.Itoa(r.s.GPU.Index)
	}
	return r, ""
}

// set reads one field into the row and says why it could not, or returns "".
func (r *row) set(c column, f string, loc *time.Location) string {
	switch c {
	case colOther:
		return ""
	case colTimestamp:
		t, err := time.ParseInLocation(TimeLayout, f, loc)
		if err != nil {
			return "timestamp " + strconv.Quote(f) + " is not " + TimeLayout
		}
		if t.Before(minTime) || !t.Before(maxTime) {
			return "timestamp " + strconv.Quote(f) + " is not a plausible time (a broken clock?)"
		}
		r.s.Time = t.UTC()
		return ""
	case colIndex:
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return strconv.Quote(f) + " is not a device index"
		}
		r.s.GPU.Index = n
		return ""
	case colUUID:
		if !missing(f) {
			r.s.GPU.UUID = f
		}
		return ""
	case colName:
		if !missing(f) {
			r.s.GPU.Model = f
		}
		return ""
	case colMIG:
		r.mig = f == "Enabled"
		return ""
	}
	v, why := reading(f)
	if why == "" && !gpucost.IsAbsent(v) {
		why = r.put(c, v)
	}
	return why
}

// put stores a valid reading, or says why it is not one.
func (r *row) put(c column, v float64) string { return putReading(&r.s, c, v) }

// putReading stores a valid reading of column c in s, or says why it is not one.
func putReading(s *gpucost.Sample, c column, v float64) string {
	switch c {
	case colUtil:
		if v > 100 {
			return "utilisation " + strconv.FormatFloat(v, 'g', -1, 64) + " is above 100"
		}
		s.Util = v
	case colMemUsed:
		s.MemUsedMiB = v
	case colMemTotal:
		s.MemTotalMiB = v
	case colPower:
		s.PowerW = v
	case colTemp:
		s.TempC = v
	}
	return ""
}

// missing reports whether a field says the value is not available: nvidia-smi writes [N/A] or
// [Not Supported] for readings a GPU does not have, such as utilisation in MIG mode.
func missing(f string) bool {
	return f == "" || f == "[N/A]" || f == "N/A" || f == "[Not Supported]" || f == "Not Supported"
}

// reading parses a numeric field such as "35", "35 %" or "95.50 W". A missing value is
// Absent; a failure nvidia-smi reports ("[Unknown Error]", "[GPU is lost]") or text that is
// not a number is Absent with a reason.
func reading(f string) (float64, string) {
	if missing(f) {
		return gpucost.Absent, ""
	}
	if strings.HasPrefix(f, "[") {
		return gpucost.Absent, "nvidia-smi reported " + f
	}
	num, _, _ := strings.Cut(f, " ")
	v, err := strconv.ParseFloat(num, 64)
	switch {
	case err != nil:
		return gpucost.Absent, strconv.Quote(f) + " is not a number"
	case math.IsNaN(v) || math.IsInf(v, 0):
		return gpucost.Absent, "value " + f + " is not finite"
	case v < 0:
		return gpucost.Absent, "negative value " + f
	}
	return v, ""
}

// columnNames are the canonical names of the columns, for messages.
var columnNames = [...]string{colOther: "field", colTimestamp: "timestamp", colIndex: "index", colUUID: "uuid",
	colName: "name", colUtil: "utilization.gpu", colMemUsed: "memory.used", colMemTotal: "memory.total",
	colPower: "power.draw", colTemp: "temperature.gpu", colMIG: "mig.mode.current"}

func fieldName(c column) string { return columnNames[c] }
