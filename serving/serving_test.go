package serving

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// TestHourCountsWeek averages request counts by hour of the week over the hours covered, and
// fills an hour of the week never covered from its hour of the day.
func TestHourCountsWeek(t *testing.T) {
	from := time.Date(2026, 11, 2, 0, 0, 0, 0, time.UTC) // a Monday
	w := NewHourCounts(from, from.Add(14*24*time.Hour))
	w.Add(from.Add(-time.Hour), 49*time.Hour, 1) // an hour before the period, then Monday and Tuesday: 1/s
	w.Add(from.Add(7*24*time.Hour+30*time.Minute), time.Hour, 2)
	week, err := w.Week()
	if err != nil {
		t.Fatal(err)
	}
	// Monday 00:00 and 01:00: 3,600 in week one's hour and 3,600 (2/s) in week two's half
	// hour: 7,200 over 1.5 hours.
	for _, h := range []int{0, 1} {
		if got := week[time.Monday][h]; got != 4800 {
			t.Errorf("Monday %02d:00 = %v, want 4800", h, got)
		}
	}
	if got := week[time.Friday][5]; got != 3600 {
		t.Errorf("Friday 05:00, never covered = %v, want 3600 from the 05:00 hours covered", got)
	}
	if w.CoveredHours() != 49 || w.Total() != 48*3600+7200 {
		t.Errorf("covered %v hours, %v requests; want 49, 180,000", w.CoveredHours(), w.Total())
	}
	w = NewHourCounts(from, from.Add(24*time.Hour))
	w.Add(from, 23*time.Hour, 1)
	if _, err := w.Week(); err == nil || !strings.Contains(err.Error(), "never 23:00–24:00") {
		t.Errorf("23 hours: %v, want never 23:00–24:00", err)
	}
}

// FuzzParsePools: any file gives pools or an EInvalid error naming the file, never a
// panic.
func FuzzParsePools(f *testing.F) {
	f.Add("pools:\n  - namespace: serving\n    slo: p99=200ms\n    service_time: 40ms\n    concurrency: 1\n    gpus_per_replica: 1\n    requests: demo-requests.csv\n")
	f.Add("pools:\n  - namespace: s\n    slo: p99.9=1s\n    service_time: 30ms\n    prometheus: {url: 'http://prom:9090', query: 'sum(rate(x[1h]))'}\n")
	f.Add("pools:\n  - namespace: serving\n   slo: p99=200ms\n")
	f.Add("pools: [{namespace: a, slo: 1s, service_time: 2s, requests: r.csv}, {namespace: a}]")
	f.Fuzz(func(t *testing.T, data string) {
		pools, err := ParsePools("serving.yaml", []byte(data))
		if err != nil {
			if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "serving.yaml") {
				t.Errorf("ParsePools(%q) = %v; want an EInvalid error naming the file", data, err)
			}
			return
		}
		for _, p := range pools {
			if p.Namespace == "" || p.ServiceTime <= 0 || p.ServiceTime >= p.SLO || p.Concurrency < 1 || (p.Requests == "") == (p.PromURL == "") {
				t.Errorf("ParsePools(%q) gave %+v", data, p)
			}
		}
	})
}

// TestServingRequestsAzure reads the real Azure LLM inference trace (code), a request log of
// 8,819 requests from 18:17 to 19:14, as a pool's requests: every request is counted in its
// hour, and an hour of the day it never covers is an error that says so.
func TestServingRequestsAzure(t *testing.T) {
	const azure = "../shared/datasets/azure/AzureLLMInferenceTrace_code.csv"
	if _, err := os.Stat(azure); err != nil {
		t.Skipf("the Azure trace is not beside the repository (%v); clone gpucost with shared/ beside it", err)
	}
	day := time.Date(2023, 11, 16, 0, 0, 0, 0, time.UTC)
	w := NewHourCounts(day, day.Add(24*time.Hour))
	desc, err := ReadRequestsFile(azure, w)
	if err != nil {
		t.Fatal(err)
	}
	if w.Total() != 8819 || w.Requests[18]+w.Requests[19] != 8819 || w.Covered[18] != 43*60 || !strings.Contains(desc, "timestamps, 58 intervals of 1m0s from 2023-11-16 18:17:00") {
		t.Errorf("Azure trace: %v requests (%v at 18:00, %v at 19:00), %v s of 18:00 covered, %s; want 8,819 in 18:00–20:00 from 18:17",
			w.Total(), w.Requests[18], w.Requests[19], w.Covered[18], desc)
	}
	if _, err := w.Week(); err == nil || !strings.Contains(err.Error(), "covers 1 hours of the period and never 00:00–01:00 UTC") {
		t.Errorf("an hour of requests by hour of the week: %v, want never 00:00–01:00", err)
	}
}
