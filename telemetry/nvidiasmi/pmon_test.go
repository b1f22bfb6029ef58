package nvidiasmi

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestReadPmonH200 reads the pmon -c 5 output captured on an H200 shared by a hog (pid 434)
// and a light job (pid 435): five intervals of two processes, placed in time by Start.
func TestReadPmonH200(t *testing.T) {
	data, err := os.ReadFile("testdata/h200-shared/pmon.txt")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := (PmonReader{}).Read(strings.NewReader(string(data)), "pmon.txt"); err == nil ||
		!strings.Contains(err.Error(), "pmon.txt has no time column") || !strings.Contains(err.Error(), "--start") {
		t.Errorf("Read without Start = %v; want an error asking for --start", err)
	}
	start := time.Date(2026, 11, 27, 4, 11, 0, 0, time.UTC)
	rows, st, err := PmonReader{Start: start}.Read(strings.NewReader(string(data)), "pmon.txt")
	if err != nil || len(rows) != 10 || st.Lines != 10 || st.Skipped != 0 {
		t.Fatalf("Read = %d rows, %+v, %v; want 10 rows, none skipped", len(rows), st, err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, fmt.Sprintf("%d@%s:gpu%d/%d/%s/%s/%v/%v", r.Interval, r.Time.Format("05"), r.GPU, r.PID, r.Type, r.Name, r.SM, r.Mem))
	}
	want := "0@00:gpu0/434/C/python3/98/23 0@00:gpu0/435/C/python3/NaN/NaN " +
		"1@01:gpu0/434/C/python3/98/23 1@01:gpu0/435/C/python3/NaN/NaN " +
		"2@02:gpu0/434/C/python3/98/23 2@02:gpu0/435/C/python3/NaN/NaN " +
		"3@03:gpu0/434/C/python3/82/19 3@03:gpu0/435/C/python3/16/3 " +
		"4@04:gpu0/434/C/python3/49/11 4@04:gpu0/435/C/python3/49/11"
	if strings.Join(got, " ") != want {
		t.Errorf("Read rows\n%s\nwant\n%s", strings.Join(got, " "), want)
	}
	samples := PmonSamples(rows, "h200")
	if len(samples) != 5 {
		t.Fatalf("PmonSamples = %d samples; want 5", len(samples))
	}
	for i, s := range samples {
		if s.Util != 98 || !s.Time.Equal(start.Add(time.Duration(i)*time.Second)) || s.GPU != (gpucost.GPU{UUID: "gpu0", Host: "h200", Index: 0}) {
			t.Errorf("sample %d = %+v; want gpu0 on h200 at 98%% (the processes' SM summed), %v", i, s, start.Add(time.Duration(i)*time.Second))
		}
	}
}

// TestReadPmonTimeColumns reads -o DT output of two GPUs, one without processes, and -o T output
// across midnight.
func TestReadPmonTimeColumns(t *testing.T) {
	dt := `#Date       Time        gpu         pid   type     sm    mem    enc    dec    command
#YYYYMMDD   HH:MM:SS    Idx           #    C/G      %      %      %      %    name
 20261102   10:00:00      0        100     C     70     20      -      -    python train.py
 20261102   10:00:00      0        101     C     50     10      -      -    vllm
 20261102   10:00:00      1          -     -      -      -      -      -    -
 20261102   10:00:01      0        100     C      -      -      -      -    python train.py
 20261102   10:00:01      0        101     C      -      -      -      -    vllm
 20261102   10:00:01      1          -     -      -      -      -      -    -
`
	rows, st, err := PmonReader{}.Read(strings.NewReader(dt), "dt.txt")
	if err != nil || len(rows) != 6 || st.Skipped != 0 || rows[0].Name != "python train.py" || rows[2].PID != 0 {
		t.Fatalf("Read(-o DT) = %+v, %+v, %v", rows, st, err)
	}
	s := PmonSamples(rows, "n")
	t0 := time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)
	if len(s) != 4 || s[0].Util != 100 || !s[0].Time.Equal(t0) || s[1].Util != 0 || s[1].GPU.UUID != "gpu1" ||
		!gpucost.IsAbsent(s[2].Util) || !s[2].Time.Equal(t0.Add(time.Second)) || s[3].Util != 0 {
		t.Errorf("PmonSamples(-o DT) = %+v; want gpu0 capped at 100, gpu1 idle, then gpu0 unknown, gpu1 idle", s)
	}

	tonly := "#Time        gpu         pid   type     sm    mem    enc    dec    command\n" +
		" 23:59:59      0        100     C     10     1      -      -    a\n" +
		" 00:00:00      0        100     C     20     1      -      -    a\n"
	if _, _, err := (PmonReader{}).Read(strings.NewReader(tonly), "t.txt"); err == nil || !strings.Contains(err.Error(), "no date: give --start") {
		t.Errorf("Read(-o T) without Start = %v; want an error asking for --start", err)
	}
	rows, _, err = PmonReader{Start: time.Date(2026, 11, 2, 23, 0, 0, 0, time.UTC)}.Read(strings.NewReader(tonly), "t.txt")
	if err != nil || len(rows) != 2 || !rows[0].Time.Equal(time.Date(2026, 11, 2, 23, 59, 59, 0, time.UTC)) ||
		!rows[1].Time.Equal(time.Date(2026, 11, 3, 0, 0, 0, 0, time.UTC)) || rows[1].Interval != 1 {
		t.Errorf("Read(-o T) = %+v, %v; want 23:59:59 on Nov 2, then midnight of Nov 3", rows, err)
	}
}

// TestReadPmonRefuses names what is wrong with output that is not pmon's.
func TestReadPmonRefuses(t *testing.T) {
	if _, _, err := (PmonReader{}).Read(strings.NewReader("0 434 C 98 23\n"), "x.txt"); err == nil || !strings.Contains(err.Error(), "is this nvidia-smi pmon output?") {
		t.Errorf("Read(no header) = %v", err)
	}
	rows, st, err := PmonReader{Start: time.Now()}.Read(strings.NewReader("# gpu pid type sm mem command\n0 434 C 180 1 a\n"), "x.txt")
	if err == nil || len(rows) != 0 || st.Skipped != 1 || !strings.Contains(st.Skips[0].Reason, "sm 180 is above 100") {
		t.Errorf("Read(sm 180) = %v, %+v, %v; want the line skipped and no rows", rows, st, err)
	}
}

// TestReadAppsH200 reads the --query-compute-apps output captured with pmon.txt.
func TestReadAppsH200(t *testing.T) {
	f, err := os.Open("testdata/h200-shared/query-compute-apps.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	procs, st, err := ReadApps(f, "query-compute-apps.csv", nil)
	at := time.Date(2026, 11, 27, 4, 11, 2, 836e6, time.UTC)
	want := []Process{
		{Time: at, GPU: "GPU-394b5914-a0f6-bd86-685c-15226d72588b", PID: 434, Name: "python3", UsedMiB: 1002},
		{Time: at, GPU: "GPU-394b5914-a0f6-bd86-685c-15226d72588b", PID: 435, Name: "python3", UsedMiB: 776},
	}
	if err != nil || st.Skipped != 0 || fmt.Sprint(procs) != fmt.Sprint(want) {
		t.Errorf("ReadApps = %+v, %+v, %v; want %+v", procs, st, err, want)
	}
	// Without the header, the columns are AppsQuery's; units may stay.
	procs, _, err = ReadApps(strings.NewReader("2026/11/27 04:11:02.836, GPU-x, 9, a b, 12 MiB\nNo running processes found\n"), "n.csv", nil)
	if err != nil || len(procs) != 1 || procs[0].PID != 9 || procs[0].Name != "a b" || procs[0].UsedMiB != 12 || procs[0].GPU != "GPU-x" {
		t.Errorf("ReadApps(no header) = %+v, %v", procs, err)
	}
}
