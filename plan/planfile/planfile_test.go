package planfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/traffic"
)

// write writes data to a file named name in a new folder and returns its path.
func write(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// wantInvalid fails t unless err is an EInvalid error containing want.
func wantInvalid(t *testing.T, call string, err error, want string) {
	t.Helper()
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), want) {
		t.Errorf("%s = %v (code %s); want EInvalid with %q", call, err, gpucost.ErrorCode(err), want)
	}
}

func TestReadUsage(t *testing.T) {
	path := write(t, "usage.csv", "hour,Usage\n0,4\n1,6.5\n")
	u, err := ReadUsage(path)
	if err != nil || len(u) != 2 || u[0] != 4 || u[1] != 6.5 {
		t.Errorf("ReadUsage = %v, %v; want [4 6.5]", u, err)
	}
	_, err = ReadUsage(write(t, "bad.csv", "usage\n4\n-1\n"))
	wantInvalid(t, "ReadUsage(-1)", err, `bad.csv:3:1: usage "-1" is not a non-negative number`)
	_, err = ReadUsage(write(t, "none.csv", "hours\n4\n"))
	wantInvalid(t, "ReadUsage(no usage column)", err, "none.csv: line 1: no usage column")
	_, err = ReadUsage(filepath.Join(t.TempDir(), "missing.csv"))
	wantInvalid(t, "ReadUsage(missing)", err, "--usage: open ")
}

func TestReadMIGWorkloads(t *testing.T) {
	ws, err := ReadMIGWorkloads(write(t, "w.csv", "name,memory_gb,compute_share\nchat, 20 ,0.3\nembed,5,0.1\n"))
	if err != nil || len(ws) != 2 || ws[0].Name != "chat" || ws[0].MemoryGB != 20 || ws[1].ComputeShare != 0.1 {
		t.Errorf("ReadMIGWorkloads = %+v, %v", ws, err)
	}
	_, err = ReadMIGWorkloads("")
	wantInvalid(t, "ReadMIGWorkloads(no file)", err, "--workloads FILE.csv is required: name, memory_gb, compute_share")
	_, err = ReadMIGWorkloads(write(t, "w.csv", "name,memory_gb,compute_share\nchat,20,lots\n"))
	wantInvalid(t, "ReadMIGWorkloads(lots)", err, `--workloads `)
	wantInvalid(t, "ReadMIGWorkloads(lots)", err, `w.csv:2:3: compute_share "lots" is not a non-negative number`)
}

func TestReadLatencyProfile(t *testing.T) {
	p, err := ReadLatencyProfile(write(t, "p.csv", "batch_size,latency_ms\n1,10\n8,24\n"))
	if err != nil || p.Service(1) != 10*time.Millisecond {
		t.Errorf("ReadLatencyProfile = %v, %v; want 10ms for a batch of 1", p, err)
	}
	_, err = ReadLatencyProfile(filepath.Join(t.TempDir(), "missing.csv"))
	wantInvalid(t, "ReadLatencyProfile(missing)", err, "--batch-profile: open ")
	path := write(t, "p.csv", "size\n1\n")
	if _, err = ReadLatencyProfile(path); err == nil || !strings.HasPrefix(err.Error(), "--batch-profile "+path+": ") {
		t.Errorf("ReadLatencyProfile(no latency column) = %v; want an error naming --batch-profile and the file", err)
	}
}

// TestReadTrace: a request log is binned by the minute unless --step says otherwise; a rate
// file keeps its rows' spacing; bad options name their flag.
func TestReadTrace(t *testing.T) {
	log := write(t, "log.csv", "timestamp\n2026-11-02T00:00:01Z\n2026-11-02T00:00:30Z\n2026-11-02T00:01:10Z\n")
	tr, err := ReadTrace(log, TraceOptions{Gaps: "auto"})
	if err != nil || tr.Format != traffic.Timestamps || tr.Step != time.Minute || len(tr.Rates) != 2 {
		t.Fatalf("ReadTrace(request log) = %+v, %v; want 2 one-minute intervals", tr, err)
	}
	if tr, err := ReadTrace(log, TraceOptions{Gaps: "auto", Step: "30s"}); err != nil || tr.Step != 30*time.Second {
		t.Errorf("ReadTrace(--step 30s) = %+v, %v; want 30 s intervals", tr, err)
	}
	rates := write(t, "rates.csv", "timestamp,rate\n2026-11-02T00:00:00Z,5\n2026-11-02T00:05:00Z,7\n")
	if tr, err := ReadTrace(rates, TraceOptions{Gaps: "auto"}); err != nil || tr.Format != traffic.Rates || tr.Step != 5*time.Minute {
		t.Errorf("ReadTrace(rate file) = %+v, %v; want its 5 min spacing", tr, err)
	}
	for _, tc := range []struct {
		name string
		o    TraceOptions
		want string
	}{
		{"", TraceOptions{Gaps: "auto"}, "--trace FILE is required"},
		{log, TraceOptions{Gaps: "sometimes"}, "--gaps: "},
		{log, TraceOptions{Gaps: "auto", Step: "-1s"}, `--step "-1s": give an interval`},
		{filepath.Join(t.TempDir(), "none.csv"), TraceOptions{Gaps: "auto"}, "--trace: open "},
		{write(t, "empty.csv", ""), TraceOptions{Gaps: "auto"}, "--trace "},
	} {
		_, err := ReadTrace(tc.name, tc.o)
		wantInvalid(t, "ReadTrace("+tc.name+")", err, tc.want)
	}
}
