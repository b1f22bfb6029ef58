package main

import (
	"encoding/csv"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/inventory"
	"github.com/gpucost/gpucost/plan"
	"github.com/gpucost/gpucost/plan/planfile"
	"github.com/gpucost/gpucost/serving"
)

// maxFuzzCSV is the largest file the CSV fuzz targets read. The small CSV inputs of the CLI
// (inventories, workloads, usage, request counts) break on a header and a few rows; larger
// inputs only slow each run.
const maxFuzzCSV = 64 << 10

// maxFuzzMIG is the most workloads FuzzReadMIGWorkloads plans: more than plan.PlanMIG solves
// exactly, so both of its methods run, and few enough that each input plans in microseconds.
const maxFuzzMIG = 64

// csvFuzzFile writes each input to one file in the fuzz worker's temporary folder: the readers
// take a path, as their flags do, and a folder per input would cost more than the read.
type csvFuzzFile struct{ path string }

func newCSVFuzzFile(f *testing.F, name string) *csvFuzzFile {
	return &csvFuzzFile{path: filepath.Join(f.TempDir(), name)}
}

// write writes data to the file, or skips t when data is over maxFuzzCSV.
func (c *csvFuzzFile) write(t *testing.T, data string) {
	t.Helper()
	if len(data) > maxFuzzCSV {
		t.Skip("larger than maxFuzzCSV")
	}
	if err := os.WriteFile(c.path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
}

// checkCSVError fails t unless err is an EInvalid error naming the flag and the file.
func (c *csvFuzzFile) checkCSVError(t *testing.T, flag, data string, err error) {
	t.Helper()
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), flag+" "+c.path) && !strings.Contains(err.Error(), flag+": ") {
		t.Fatalf("read %q = %v (code %s); want an EInvalid error naming %s and the file", data, err, gpucost.ErrorCode(err), flag)
	}
}

// csvRecords returns the records after the header as encoding/csv reads them, the count every
// reader that succeeds must have read, or -1 when encoding/csv refuses data.
func csvRecords(data string) int {
	r := csv.NewReader(strings.NewReader(data))
	r.FieldsPerRecord = -1
	n := -1
	for {
		_, err := r.Read()
		if errors.Is(err, io.EOF) {
			return max(n, 0)
		}
		if err != nil {
			return -1
		}
		n++
	}
}

// FuzzReadInventory reads arbitrary files as gpucost import inventory does: an EInvalid error
// naming the file, or an entry a record with a resource id, a host, a GPU model the catalog
// knows, no negative GPU count, and tags that are neither empty nor inventory columns.
func FuzzReadInventory(f *testing.F) {
	f.Add("resource_id,host,instance_type,gpus,team\ni-0abc123,gpu-node-7,p4d.24xlarge,8,ml-platform\n")
	f.Add("\ufeffResource_ID , HOST,provider,gpu_model,GPUs,Team,Project\n" +
		"vm-1,node-1,azure,a100 80gb,4,ml,\"x,y\"\n\"i-2\",\"node \"\"2\"\"\",aws,,,,\n")
	f.Add("resource_id,host\n,node-1\n")
	f.Add("resource_id,host,gpu_model\ni-1,h,B9000\n")
	f.Add("resource_id,host,gpus\ni-1,h,-1\ni-2,h,1e3\n")
	f.Add("resource_id,host,team,team\ni-1,h,a,b\ni-2,h\n")
	f.Add("resource_id\ni-1\n")
	f.Add("resource_id,host\n\"i-1,h\n")
	file := newCSVFuzzFile(f, "inventory.csv")
	f.Fuzz(func(t *testing.T, data string) {
		file.write(t, data)
		entries, err := inventory.ReadFile(file.path)
		if err != nil {
			file.checkCSVError(t, "import", data, err)
			return
		}
		if n := csvRecords(data); n >= 0 && n != len(entries) {
			t.Fatalf("inventory.ReadFile(%q) = %d entries; encoding/csv reads %d records", data, len(entries), n)
		}
		for _, e := range entries {
			if e.ResourceID == "" || e.Host == "" || e.GPUs < 0 {
				t.Fatalf("inventory.ReadFile(%q) gave %+v", data, e)
			}
			if e.GPUModel != "" {
				if canon, ok := catalog.Normalize(e.GPUModel); !ok || canon != e.GPUModel {
					t.Fatalf("inventory.ReadFile(%q) gave GPU model %q, which is not canonical", data, e.GPUModel)
				}
			}
			for k, v := range e.Tags {
				if k == "" && v == "" || v == "" || inventory.IsColumn(k) {
					t.Fatalf("inventory.ReadFile(%q) gave tag %q=%q", data, k, v)
				}
			}
		}
	})
}

// FuzzReadMIGWorkloads reads arbitrary files as plan mig --workloads does and plans what it
// reads: an EInvalid error naming the file, or workloads of finite, non-negative memory and
// compute share that plan.PlanMIG packs or refuses as EInvalid, never placing a workload twice.
func FuzzReadMIGWorkloads(f *testing.F) {
	f.Add("name,memory_gb,compute_share\nllama-8b,18,0.3\nembed,4,0.1\nbig,70,1\n")
	f.Add("Name , Memory_GB,Compute_Share\n\"a,b\",0,0\nc,80,0.0001\n")
	f.Add("name,memory_gb,compute_share\nx,81,0.5\n")
	f.Add("name,memory_gb,compute_share\nx,1e308,2\n")
	f.Add("name,memory_gb,compute_share\nx,NaN,0.1\ny,Inf,0.1\nz,-0,0x1p-3\n")
	f.Add("name,memory_gb\nx,1\n")
	f.Add("name,memory_gb,compute_share\n" + strings.Repeat("w,5,0.14\n", 20))
	profiles := migProfiles(f)
	file := newCSVFuzzFile(f, "workloads.csv")
	f.Fuzz(func(t *testing.T, data string) {
		file.write(t, data)
		ws, err := planfile.ReadMIGWorkloads(file.path)
		if err != nil {
			file.checkCSVError(t, "--workloads", data, err)
			return
		}
		if n := csvRecords(data); n >= 0 && n != len(ws) {
			t.Fatalf("planfile.ReadMIGWorkloads(%q) = %d workloads; encoding/csv reads %d records", data, len(ws), n)
		}
		for _, w := range ws {
			if !(w.MemoryGB >= 0 && w.ComputeShare >= 0) {
				t.Fatalf("planfile.ReadMIGWorkloads(%q) gave %+v", data, w)
			}
		}
		if len(ws) > maxFuzzMIG {
			return
		}
		res, err := plan.PlanMIG(plan.MIGInput{GPU: "A100-80GB", Workloads: ws, Profiles: profiles})
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("PlanMIG(%q) = %v; want an EInvalid error for workloads that do not fit", data, err)
			}
			return
		}
		placed := 0
		for _, g := range res.GPUs {
			placed += len(g.Instances)
		}
		if placed != len(ws) || res.GPUsNeeded != len(res.GPUs) || res.GPUsNeeded < res.LowerBound {
			t.Fatalf("PlanMIG(%q) placed %d of %d workloads on %d GPUs (needed %d, lower bound %d)", data, placed, len(ws), len(res.GPUs), res.GPUsNeeded, res.LowerBound)
		}
	})
}

// migProfiles returns the MIG profiles of the A100-80GB, as plan mig --gpu A100-80GB uses.
func migProfiles(f *testing.F) []string {
	spec, ok := catalog.Spec("A100-80GB")
	if !ok || len(spec.MIG) == 0 {
		f.Fatal("the catalog has no MIG profiles for the A100-80GB")
	}
	return spec.MIG
}

// FuzzReadUsageCSV reads arbitrary files as plan commit --usage does and finds the commitment
// for what it reads: an EInvalid error naming the file, or one non-negative usage an hour that
// plan.Commit turns into a result or an EInvalid error, with a commitment no larger than the
// peak hour.
func FuzzReadUsageCSV(f *testing.F) {
	f.Add("usage\n4\n6\n5.5\n0\n")
	f.Add("hour,Usage\n2026-01-01T00:00Z,3\n2026-01-01T01:00Z,\n")
	f.Add("usage\n1e308\n1e308\n")
	f.Add("usage\n+Inf\n")
	f.Add("usage\n-1\n")
	f.Add("usage,usage\n1,2\n")
	f.Add("Usage\r\n\"7\"\r\n")
	file := newCSVFuzzFile(f, "usage.csv")
	f.Fuzz(func(t *testing.T, data string) {
		file.write(t, data)
		usage, err := planfile.ReadUsage(file.path)
		if err != nil {
			file.checkCSVError(t, "--usage", data, err)
			return
		}
		if n := csvRecords(data); n >= 0 && n != len(usage) {
			t.Fatalf("planfile.ReadUsage(%q) = %d hours; encoding/csv reads %d records", data, len(usage), n)
		}
		peak := 0.0
		for _, u := range usage {
			if !(u >= 0) {
				t.Fatalf("planfile.ReadUsage(%q) gave usage %v", data, u)
			}
			peak = max(peak, u)
		}
		res, err := plan.Commit(plan.CommitInput{Usage: usage, OnDemand: gpucost.USD(3.06e9), Discount: 0.4, Term: "1y", Payment: "none"})
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid {
				t.Fatalf("Commit(%q) = %v; want an EInvalid error", data, err)
			}
			return
		}
		if res.Hours != len(usage) || !(res.Commitment >= 0 && res.Commitment <= peak) {
			t.Fatalf("Commit(%q) = %d hours, commitment %v; want %d hours, a commitment in [0, %v]", data, res.Hours, res.Commitment, len(usage), peak)
		}
	})
}

// FuzzReadRequestsCSV reads arbitrary files as report kpi --requests does, by team over
// November 2026: an EInvalid error naming the file, or non-negative request counts per team
// that add up to the counts of the rows dated in the period.
func FuzzReadRequestsCSV(f *testing.F) {
	f.Add("team,requests\nml,1000\nsearch,250.5\nml,1\n")
	f.Add("date,TEAM,requests\n2026-11-01,ml,10\n2026-10-31,ml,5\n2026-12-01,ml,7\n2026-11-30,,3\n")
	f.Add("date,team,requests\n2026-11-1,ml,10\n")
	f.Add("team,requests\nml,-1\n")
	f.Add("team,requests\nml,1e308\nml,1e308\n")
	f.Add("team\nml\n")
	f.Add("team,requests,team\na,1,b\n")
	from := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	to := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	file := newCSVFuzzFile(f, "requests.csv")
	f.Fuzz(func(t *testing.T, data string) {
		file.write(t, data)
		counts, err := serving.ReadGroupRequestsCSV(file.path, "team", from, to)
		if err != nil {
			file.checkCSVError(t, "--requests", data, err)
			return
		}
		want := requestsByTeam(data, from, to)
		for team, n := range counts {
			if !(n >= 0) || n != want[team] {
				t.Fatalf("readRequestsCSV(%q) gave %s %v requests; the rows in the period hold %v", data, team, n, want[team])
			}
		}
		if len(counts) != len(want) {
			t.Fatalf("readRequestsCSV(%q) = %v; the rows in the period hold %v", data, counts, want)
		}
	})
}

// requestsByTeam adds up the requests column of data per team, over the rows dated in [from,
// to) when there is a date column, reading data with encoding/csv: the reference the reader is
// checked against, for a file the reader took.
func requestsByTeam(data string, from, to time.Time) map[string]float64 {
	r := csv.NewReader(strings.NewReader(data))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil || len(recs) == 0 {
		return nil
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return strings.TrimSpace(rec[i])
		}
		return ""
	}
	out := map[string]float64{}
	for _, rec := range recs[1:] {
		if _, ok := col["date"]; ok {
			if d, err := time.Parse(time.DateOnly, get(rec, "date")); err != nil || d.Before(from) || !d.Before(to) {
				continue
			}
		}
		n, _ := strconv.ParseFloat(get(rec, "requests"), 64)
		out[get(rec, "team")] += n
	}
	return out
}

// FuzzReadRequestsFile reads arbitrary files as a serving pool's requests file (recommend
// --serving): a request log or a timestamp,rate CSV, counted into the hours of one week. An
// EInvalid error, or no negative or NaN count and no more than the week's hours covered.
func FuzzReadRequestsFile(f *testing.F) {
	f.Add("timestamp,rate\n2026-11-02T00:00:00Z,10\n2026-11-02T01:00:00Z,20\n2026-11-02T03:00:00Z,5\n")
	f.Add("timestamp\n2026-11-02T00:00:01Z\n2026-11-02T00:00:02.5Z\n2026-11-01T23:59:59Z\n")
	f.Add("TIMESTAMP\n1793577600.5\n1793577600.25\n")
	f.Add("timestamp,rate\n2026-11-02T00:00:00Z,-1\n")
	f.Add("timestamp,rate\n2026-11-09T00:00:00Z,1\n2026-10-26T00:00:00Z,1\n")
	f.Add("timestamp,rate\n")
	f.Add("timestamp,container,value\n2026-11-02T00:00:00Z,a,3\n2026-11-02T00:00:00Z,b,4\n2026-11-02T00:01:00Z,a,5\n")
	f.Add("timestamp,value\n2026-11-02T00:00:00Z,3\n")
	from := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC)
	to := from.Add(7 * 24 * time.Hour)
	file := newCSVFuzzFile(f, "requests.csv")
	f.Fuzz(func(t *testing.T, data string) {
		file.write(t, data)
		w := serving.NewHourCounts(from, to)
		if _, err := serving.ReadRequestsFile(file.path, w); err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "requests") {
				t.Fatalf("serving.ReadRequestsFile(%q) = %v (code %s); want an EInvalid error about the requests", data, err, gpucost.ErrorCode(err))
			}
			return
		}
		for h := range w.Requests {
			if !(w.Requests[h] >= 0) || !(w.Covered[h] >= 0 && w.Covered[h] <= 3600) {
				t.Fatalf("serving.ReadRequestsFile(%q): hour %d has %v requests over %v seconds", data, h, w.Requests[h], w.Covered[h])
			}
		}
	})
}
