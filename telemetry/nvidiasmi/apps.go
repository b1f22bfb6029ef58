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

// AppsQuery is the --query-compute-apps field list ReadApps takes without a header line; with
// one, the columns may be any that include gpu_uuid and pid.
const AppsQuery = "timestamp,gpu_uuid,pid,process_name,used_gpu_memory"

// ReadApps parses recorded nvidia-smi --query-compute-apps=AppsQuery --format=csv output (with
// or without the header line and units) into processes, their time read in loc (UTC if nil).
// Lines that cannot be read are skipped and counted; "No running processes found" is no
// process. name names r in skips.
func ReadApps(r io.Reader, name string, loc *time.Location) ([]Process, Stats, error) {
	if loc == nil {
		loc = time.UTC
	}
	var st Stats
	var procs []Process
	cols := map[string]int{"timestamp": 0, "gpu_uuid": 1, "pid": 2, "process_name": 3, "used_gpu_memory": 4}
	width := 5
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for num := 1; sc.Scan(); num++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "No running processes found") {
			continue
		}
		fields := strings.Split(text, ",")
		if st.Lines == 0 && !startsWithDigit(fields[0]) && !strings.HasPrefix(strings.TrimSpace(fields[0]), "GPU-") {
			cols, width = appsHeader(fields)
			_, uuid := cols["gpu_uuid"]
			if _, pid := cols["pid"]; !pid || !uuid {
				return nil, st, gpucost.Errorf(gpucost.EInvalid, "%s line %d: the header has no gpu_uuid or no pid column; record with --query-compute-apps=%s --format=csv", name, num, AppsQuery)
			}
			continue
		}
		st.Lines++
		if msg, ok := driverMessage(text); ok {
			st.skip(name, num, "", "nvidia-smi: "+msg)
			continue
		}
		if len(fields) != width {
			st.skip(name, num, "", fmt.Sprintf("has %d fields, want %d; left out", len(fields), width))
			continue
		}
		p, why := appsLine(cols, fields, loc)
		if why != "" {
			st.skip(name, num, "", why+"; left out")
			continue
		}
		procs = append(procs, p)
	}
	if err := sc.Err(); err != nil {
		return procs, st, fmt.Errorf("read %s: %w", name, err)
	}
	st.Samples = len(procs)
	return procs, st, nil
}

func startsWithDigit(s string) bool {
	s = strings.TrimSpace(s)
	return s != "" && s[0] >= '0' && s[0] <= '9'
}

// appsHeader maps a header line's names ("used_gpu_memory [MiB]") to their positions.
func appsHeader(fields []string) (map[string]int, int) {
	cols := map[string]int{}
	for i, f := range fields {
		name, _, _ := strings.Cut(strings.TrimSpace(f), " [")
		switch name = strings.ToLower(name); name {
		case "uuid":
			name = "gpu_uuid"
		case "name":
			name = "process_name"
		case "used_memory":
			name = "used_gpu_memory"
		}
		cols[name] = i
	}
	return cols, len(fields)
}

// appsLine reads one line into a process, or says why it cannot.
func appsLine(cols map[string]int, fields []string, loc *time.Location) (Process, string) {
	get := func(c string) (string, bool) {
		i, ok := cols[c]
		if !ok {
			return "", false
		}
		return strings.TrimSpace(fields[i]), true
	}
	p := Process{UsedMiB: gpucost.Absent}
	if f, ok := get("timestamp"); ok {
		t, err := time.ParseInLocation(TimeLayout, f, loc)
		if err != nil {
			return p, "timestamp " + strconv.Quote(f) + " is not " + TimeLayout
		}
		p.Time = t.UTC()
	}
	p.GPU, _ = get("gpu_uuid")
	f, _ := get("pid")
	pid, err := strconv.Atoi(f)
	if err != nil || pid <= 0 {
		return p, "pid " + strconv.Quote(f) + " is not a process id"
	}
	p.PID = pid
	p.Name, _ = get("process_name")
	if f, ok := get("used_gpu_memory"); ok {
		v, why := reading(f)
		if why != "" {
			return p, "used_gpu_memory " + why
		}
		p.UsedMiB = v
	}
	return p, ""
}
