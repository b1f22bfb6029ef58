package traffic

import (
	"fmt"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

// perContainerQPS is a Prometheus-style export of three containers' requests per second,
// scraped every 15 s with a few milliseconds of jitter, one container starting late and one
// missing a scrape: 10/s, 12/s and 8/s.
func perContainerQPS() string {
	var b strings.Builder
	b.WriteString("timestamp,container,value\n")
	t0 := time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC)
	for i := range 20 {
		for c, rate := range []float64{10, 12, 8} {
			if c == 2 && i < 4 || c == 1 && i == 9 {
				continue
			}
			at := t0.Add(time.Duration(i)*15*time.Second + time.Duration(c*7)*time.Millisecond)
			fmt.Fprintf(&b, "%s,vllm-%d,%g\n", at.Format(time.RFC3339Nano), c, rate)
		}
	}
	return b.String()
}

func TestReadPerSourceSamplesAreSummed(t *testing.T) {
	tr, err := Read(strings.NewReader(perContainerQPS()), "qps.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Format != Samples || tr.Step != 15*time.Second || tr.Sources != 3 || len(tr.Rates) != 20 || tr.Carried != 1 {
		t.Fatalf("Read(per-container QPS) = %s, step %v, %d sources, %d intervals, %d carried; want samples, 15s, 3, 20, 1",
			tr.Format, tr.Step, tr.Sources, len(tr.Rates), tr.Carried)
	}
	for i, r := range tr.Rates {
		want := 30.0
		if i < 4 {
			want = 22 // the third container starts at the fifth scrape
		}
		if math.Abs(r-want) > 1e-9 {
			t.Errorf("rate %d = %v, want %v (the containers' sum)", i, r, want)
		}
	}
	if s := strings.Join(tr.Summary(), " "); !strings.Contains(s, "3 sources' requests per second summed") {
		t.Errorf("Summary = %q; want the sources named", s)
	}
}

func TestReadTraceShapes(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		shape      Format
		want       Format
		err        string
	}{
		{"request log with token counts", "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.97,4808,10\n2023-11-16 18:17:04.03,3180,8\n", "", Timestamps, ""},
		{"bare request log", "time\n2026-01-01T00:00:00Z\n2026-01-01T00:00:01Z\n", "", Timestamps, ""},
		{"rate series", "timestamp,rate\n2026-01-01T00:00:00Z,5\n2026-01-01T00:01:00Z,6\n", "", Rates, ""},
		{"qps series", "time,qps\n2026-01-01T00:00:00Z,5\n2026-01-01T00:01:00Z,6\n", "", Rates, ""},
		{"per-pod rates", "timestamp,pod,rate\n2026-01-01T00:00:00Z,a,5\n2026-01-01T00:00:00Z,b,6\n", "", Samples, ""},
		{"unlabelled source column", "timestamp,where,qps_x\n2026-01-01T00:00:00Z,a,5\n2026-01-01T00:00:00Z,b,6\n", "", Samples, ""},
		{"value without a source", "timestamp,value\n2026-01-01T00:00:00Z,5\n2026-01-01T00:01:00Z,6\n", "", "",
			"cannot tell its shape from timestamp,value with a first row of 2026-01-01T00:00:00Z,5"},
		{"value given as rates", "timestamp,value\n2026-01-01T00:00:00Z,5\n2026-01-01T00:01:00Z,6\n", Rates, Rates, ""},
		{"unknown field", "timestamp,colour\n2026-01-01T00:00:00Z,red\n", "", "", "--trace-shape requests, rates or samples"},
		{"unknown field as requests", "timestamp,colour\n2026-01-01T00:00:00Z,red\n", Timestamps, Timestamps, ""},
		{"samples without a source", "timestamp,rate\n2026-01-01T00:00:00Z,5\n", Samples, "", "needs a source column"},
	} {
		tr, err := Read(strings.NewReader(tc.data), "f.csv", Options{Format: tc.shape, Step: time.Minute, Gaps: GapZero})
		switch {
		case tc.err != "":
			if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: Read = %v; want an EInvalid error with %q", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: Read: %v", tc.name, err)
		case tr.Format != tc.want:
			t.Errorf("%s: Read format = %s, want %s", tc.name, tr.Format, tc.want)
		}
	}
}

func TestReadSamplesRefusesCounters(t *testing.T) {
	var b strings.Builder
	b.WriteString("timestamp,container,value\n")
	for i := range 10 {
		fmt.Fprintf(&b, "2026-01-01T00:%02d:00Z,a,%d\n2026-01-01T00:%02d:00Z,b,%d\n", i, 100+600*i, i, 50+500*i)
	}
	_, err := Read(strings.NewReader(b.String()), "total.csv", Options{})
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "like a counter") {
		t.Errorf("Read(counter samples) = %v; want an EInvalid error about counters", err)
	}
}

// TestDetectAzure: the real Azure log is a request log.
func TestDetectAzure(t *testing.T) {
	f, err := os.Open(azureHead)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if got, err := Detect(f); err != nil || got != Timestamps {
		t.Errorf("Detect(Azure) = %s, %v; want timestamps", got, err)
	}
}

// TestReadTokenCounts: a request log's token columns are summed with their squares and
// products; a bad count is an error naming the line and column.
func TestReadTokenCounts(t *testing.T) {
	tr, err := Read(strings.NewReader("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03.97,100,10\n2023-11-16 18:17:04.03,300,30\n"), "log.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := TokenCounts{Requests: 2, Input: 400, Output: 40, Input2: 100000, Output2: 1000, InputOut: 10000}
	if tr.Tokens == nil || *tr.Tokens != want {
		t.Errorf("Tokens = %+v, want %+v", tr.Tokens, want)
	}
	_, err = Read(strings.NewReader("time,prompt_tokens,completion_tokens\n2026-01-01T00:00:00Z,12,x\n"), "log.csv", Options{})
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "log.csv:2:3: token count \"x\"") {
		t.Errorf("Read(bad token count) = %v; want an EInvalid error at 2:3", err)
	}
	if tr, err := Read(strings.NewReader("time\n2026-01-01T00:00:00Z\n"), "log.csv", Options{}); err != nil || tr.Tokens != nil {
		t.Errorf("Read(no token columns) = %+v, %v; want no token counts", tr, err)
	}
}
