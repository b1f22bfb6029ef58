package csvtelemetry

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func read(t *testing.T, text string) ([]gpucost.Sample, Stats, error) {
	t.Helper()
	var got []gpucost.Sample
	st, err := Read(strings.NewReader(text), "util.csv", Options{Host: "file-host"}, func(s gpucost.Sample) { got = append(got, s) })
	return got, st, err
}

// TestReadCanonical reads every column in the canonical spelling, in a free order.
func TestReadCanonical(t *testing.T) {
	text := "gpu,timestamp,util,memory_used_mib,memory_total_mib,power_w,host,model,labels,x_note\n" +
		"GPU-a,2026-11-01T10:00:00Z,42.5,1000,46068,120.5,node-1,NVIDIA L40S,pod=web-1;Team=search,hello\n" +
		"3,2026-11-01 10:00:01.5,0,,46068,N/A,,,,\n" +
		"GPU-a,2026-11-01T12:00:02+02:00,100,2000,46068,[N/A],node-1,NVIDIA L40S,,\n"
	got, st, err := read(t, text)
	if err != nil || st.Lines != 3 || st.Samples != 3 || len(got) != 3 {
		t.Fatalf("Read = %d samples, %+v, %v; want 3", len(got), st, err)
	}
	a := got[0]
	want := gpucost.GPU{UUID: "GPU-a", Host: "node-1", Model: "NVIDIA L40S", Index: -1}
	if a.GPU != want || !a.Time.Equal(time.Date(2026, 11, 1, 10, 0, 0, 0, time.UTC)) || a.Util != 42.5 ||
		a.MemUsedMiB != 1000 || a.MemTotalMiB != 46068 || a.PowerW != 120.5 || a.Labels.String() != "pod=web-1,team=search" {
		t.Errorf("line 2 = %+v", a)
	}
	b := got[1]
	want = gpucost.GPU{UUID: "gpu3", Host: "file-host", Index: 3}
	if b.GPU != want || b.Time != time.Date(2026, 11, 1, 10, 0, 1, 5e8, time.UTC) || b.Util != 0 ||
		!gpucost.IsAbsent(b.MemUsedMiB) || !gpucost.IsAbsent(b.PowerW) || b.Labels != nil {
		t.Errorf("line 3 = %+v", b)
	}
	if c := got[2]; !c.Time.Equal(time.Date(2026, 11, 1, 10, 0, 2, 0, time.UTC)) || c.Time.Location() != time.UTC || !gpucost.IsAbsent(c.PowerW) {
		t.Errorf("line 4 = %+v; want 10:00:02 UTC, no power", c)
	}
}

// TestReadAliases reads the spaced spellings and units in brackets Doc lists.
func TestReadAliases(t *testing.T) {
	for _, header := range []string{
		"Timestamp, GPU, Util [%], Memory Used [MiB], Memory Total [MiB], Power [W]",
		"timestamp,gpu,utilization,memory used,memory total,power_w",
		"\ufefftime,gpu,utilisation,memory-used,Memory_Total_MiB,power",
	} {
		got, _, err := read(t, header+"\n2026-11-01 10:00:00, GPU-a, 50, 1, 2, 3\n")
		if err != nil || len(got) != 1 || got[0].Util != 50 || got[0].MemUsedMiB != 1 || got[0].MemTotalMiB != 2 || got[0].PowerW != 3 {
			t.Errorf("Read(%q) = %v, %v; want util 50, memory 1/2, power 3", header, got, err)
		}
	}
}

// TestReadRefuses names the file, line, column number and name, and what to do, and emits
// nothing from a file with one bad line.
func TestReadRefuses(t *testing.T) {
	const head = "timestamp,gpu,util,memory_used_mib,memory_total_mib\n"
	const good = "2026-11-01T10:00:00Z,GPU-a,1,2,3\n"
	for _, tc := range []struct{ name, text, want string }{
		{"unknown column", "timestamp,gpu,util,memory_used_mib,memory_total_mib,temp\n" + good,
			"util.csv line 1 column 6 (temp): unknown column: rename it to one of timestamp, gpu, util, memory_used_mib, memory_total_mib, power_w, host, model, labels, or prefix it with x_ to have it ignored"},
		{"missing column", "timestamp,gpu,util,memory_used_mib\n" + good,
			"util.csv line 1: the header has no memory_total_mib column; it needs timestamp, gpu, util, memory_used_mib, memory_total_mib (see gpucost import telemetry --help)"},
		{"wrong unit", "timestamp,gpu,util,memory_used [GiB],memory_total_mib\n" + good,
			"util.csv line 1 column 4 (memory_used [GiB]): unit [GiB]: memory_used_mib takes [MiB]; convert the column"},
		{"repeated column", "timestamp,gpu,util,memory used,memory_total_mib,memory_used_mib\n" + good,
			"util.csv line 1 column 6 (memory_used_mib): memory_used_mib is also column 4: keep one of them"},
		{"bad time", head + good + "2026/11/01 10:00:00,GPU-a,1,2,3\n",
			`util.csv line 3 column 1 (timestamp): "2026/11/01 10:00:00" is not a time: write RFC 3339 (2026-11-01T10:00:00Z) or 2026-11-01 10:00:00 (UTC)`},
		{"fraction util", head + "2026-11-01T10:00:00Z,GPU-a,101,2,3\n",
			"util.csv line 2 column 3 (util): 101 is above 100: util is a percentage (multiply a 0-1 fraction by 100)"},
		{"unit in cell", head + "2026-11-01T10:00:00Z,GPU-a,5,2 MiB,3\n",
			`util.csv line 2 column 4 (memory_used_mib): "2 MiB" is not a number: write a plain decimal such as 42.5, without its unit`},
		{"no util", head + "2026-11-01T10:00:00Z,GPU-a,N/A,2,3\n",
			"util.csv line 2 column 3 (util): empty: every line needs its utilisation (leave out a line whose GPU reported none)"},
		{"no gpu", head + "2026-11-01T10:00:00Z,,5,2,3\n",
			"util.csv line 2 column 2 (gpu): empty: name the GPU by its UUID or device index"},
		{"short line", head + "2026-11-01T10:00:00Z,GPU-a,5,2\n",
			"util.csv line 2: 4 fields, but the header names 5 columns: add the missing cells or remove the extra ones"},
		{"bad labels", "timestamp,gpu,util,memory_used_mib,memory_total_mib,labels\n2026-11-01T10:00:00Z,GPU-a,5,2,3,pod\n",
			`util.csv line 2 column 6 (labels): "pod" is not key=value: write labels as k=v;k=v`},
		{"header only", head, "util.csv holds a header but no samples"},
	} {
		var emitted int
		_, err := Read(strings.NewReader(tc.text), "util.csv", Options{}, func(gpucost.Sample) { emitted++ })
		if err == nil || err.Error() != tc.want || gpucost.ErrorCode(err) != gpucost.EInvalid || emitted != 0 {
			t.Errorf("Read(%s) = %v, %d emitted;\nwant %q, none emitted", tc.name, err, emitted, tc.want)
		}
	}
}

// FuzzRead checks that no input panics and that every sample read is one the store takes.
func FuzzRead(f *testing.F) {
	f.Add("timestamp,gpu,util,memory_used_mib,memory_total_mib,labels\n2026-11-01T10:00:00Z,GPU-a,5,2,3,a=b\n")
	f.Add("time,gpu,utilisation [%],memory used,memory total\n2026-11-01 10:00:00,0,100,,\n2026-11-01 10:00:00,0,,1,\n")
	f.Fuzz(func(t *testing.T, text string) {
		_, _ = Read(strings.NewReader(text), "fuzz.csv", Options{}, func(s gpucost.Sample) {
			if s.Time.IsZero() || s.GPU.UUID == "" || gpucost.IsAbsent(s.Util) || s.Util > 100 || s.Util < 0 || s.MemUsedMiB < 0 {
				panic(fmt.Sprintf("bad sample %+v", s))
			}
		})
	})
}
