package traffic

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// azureHead is the first 1,000 requests of the Azure LLM inference trace (code), verbatim.
const azureHead = "testdata/azure_code_head.csv"

// azureFull is the whole trace in the shared datasets beside the repository.
const azureFull = "../../shared/datasets/azure/AzureLLMInferenceTrace_code.csv"

// TestReadAzureGolden bins the real trace's first 1,000 requests per minute and compares the
// rates and summary with the golden file (go test ./traffic -run Golden -update rewrites it).
func TestReadAzureGolden(t *testing.T) {
	f, err := os.Open(azureHead)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read(f, "azure_code_head.csv", Options{Step: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, s := range tr.Summary() {
		fmt.Fprintln(&b, s)
	}
	for i, r := range tr.Rates {
		fmt.Fprintf(&b, "%s %.0f requests %.4f/s\n", tr.Start.Add(time.Duration(i)*tr.Step).Format(time.DateTime), r*60, r)
	}
	golden := filepath.Join("testdata", "azure_code_head.golden")
	if *update {
		if err := os.WriteFile(golden, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != string(want) {
		t.Errorf("Read(%s) per minute:\n%s\nwant:\n%s", azureHead, got, want)
	}
	if tr.Requests != 1000 || tr.Rows != 1000 || tr.Start != time.Date(2023, 11, 16, 18, 17, 0, 0, time.UTC) {
		t.Errorf("Read(%s) = %v requests, %d rows from %v; want 1000 from 18:17", azureHead, tr.Requests, tr.Rows, tr.Start)
	}
}

// TestReadAzureFull reads the whole hour of the real trace at 1 s: 8,819 requests, minute counts
// as counted independently with awk (18:20 → 531, 18:31 → 585), and its silences listed.
func TestReadAzureFull(t *testing.T) {
	f, err := os.Open(azureFull)
	if err != nil {
		t.Skipf("the shared datasets are not beside the repository (%v)", err)
	}
	defer f.Close()
	tr, err := Read(f, "AzureLLMInferenceTrace_code.csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Requests != 8819 || tr.Step != time.Second || tr.Duplicates != 0 {
		t.Errorf("Read(azure) = %v requests at %v, %d duplicates; want 8819 at 1s, none", tr.Requests, tr.Step, tr.Duplicates)
	}
	m, err := Read(mustOpen(t, azureFull), "azure", Options{Step: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	for at, want := range map[string]float64{"18:20": 531, "18:31": 585, "18:58": 1, "19:02": 0} {
		tm, _ := time.Parse(time.DateTime, "2023-11-16 "+at+":00")
		i := int(tm.Sub(m.Start) / time.Minute)
		if got := m.Rates[i] * 60; got < want-1e-6 || got > want+1e-6 {
			t.Errorf("requests in %s = %v, want %v", at, got, want)
		}
	}
	// The longest silence, 217 s, ends on line 8102.
	if len(tr.Gaps) != 6 || tr.Gaps[5].Line != 8102 || tr.Gaps[5].Duration().Round(time.Second) != 217*time.Second {
		t.Errorf("Read(azure).Gaps = %v; want 6 silences over 2 min, 3m37s before line 8102", tr.Gaps)
	}
	if _, err := Read(mustOpen(t, azureFull), "azure", Options{Gaps: GapError}); err == nil || !strings.Contains(err.Error(), "--gaps zero") {
		t.Errorf("Read(azure, GapError) = %v; want the silences refused", err)
	}
}

func mustOpen(t *testing.T, name string) *os.File {
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func TestReadRates(t *testing.T) {
	in := "timestamp,rate\n2026-01-01T00:00:00Z,10\n2026-01-01T00:01:00Z,20\n2026-01-01T00:04:00Z,5\n"
	if _, err := Read(strings.NewReader(in), "r.csv", Options{}); err == nil || !strings.Contains(err.Error(), "r.csv:4: no rows for 3m0s") || !strings.Contains(err.Error(), "2 missing 1m0s intervals") {
		t.Errorf("Read(a rate file with a gap) = %v; want the gap named", err)
	}
	tr, err := Read(strings.NewReader(in), "r.csv", Options{Gaps: GapZero})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(tr.Rates) != "[10 20 0 0 5]" || tr.Step != time.Minute || tr.Requests != 35*60 || len(tr.Gaps) != 1 {
		t.Errorf("Read(GapZero) = %v at %v, %v requests, gaps %v", tr.Rates, tr.Step, tr.Requests, tr.Gaps)
	}
}

// TestReadBadInput checks that each kind of bad trace is an EInvalid error naming the place.
func TestReadBadInput(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", "", "is empty"},
		{"no header", "2023-11-16 18:17:03.97,1,2\n", "not a header"},
		{"unsorted log", "TIMESTAMP\n2023-11-16 18:17:03\n2023-11-16 18:17:05\n2023-11-16 18:17:04\n", "t.csv:4:1: 2023-11-16T18:17:04Z is earlier than 2023-11-16T18:17:05Z on line 3"},
		{"bad timestamp", "TIMESTAMP\nyesterday\n", "t.csv:2:1: \"yesterday\" is not a timestamp"},
		{"duplicate rate", "timestamp,rate\n1700000000,1\n1700000000,2\n", "t.csv:3:1: 2023-11-14T22:13:20Z is the same as the timestamp on line 2"},
		{"negative rate", "timestamp,rate\n1700000000,-1\n", "t.csv:2:2: rate \"-1\""},
		{"off grid", "timestamp,rate\n1700000000,1\n1700000060,1\n1700000150,1\n", "give rows at a fixed interval"},
		{"header only", "TIMESTAMP\n", "no requests"},
	}
	for _, tc := range cases {
		_, err := Read(strings.NewReader(tc.in), "t.csv", Options{})
		var e *gpucost.Error
		if err == nil || !errors.As(err, &e) || e.Code != gpucost.EInvalid || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Read = %v; want an EInvalid error with %q", tc.name, err, tc.want)
		}
	}
}

func TestReadSortAndDuplicates(t *testing.T) {
	in := "TIMESTAMP\n2023-11-16 18:17:03\n2023-11-16 18:17:05\n2023-11-16 18:17:05\n2023-11-16 18:17:01\n"
	tr, err := Read(strings.NewReader(in), "t.csv", Options{Sort: true})
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(tr.Rates) != "[1 0 1 0 2]" || tr.Duplicates != 1 || tr.Unsorted != 1 || tr.Start.Second() != 1 {
		t.Errorf("Read(sorted) = %v from %v, %d duplicates, %d unsorted", tr.Rates, tr.Start, tr.Duplicates, tr.Unsorted)
	}
}

// FuzzRead feeds the reader arbitrary traces seeded with the real one: it must not panic, and a
// trace it accepts must be self-consistent.
func FuzzRead(f *testing.F) {
	head, err := os.ReadFile(azureHead)
	if err != nil {
		f.Fatal(err)
	}
	lines := strings.SplitAfter(string(head), "\n")
	f.Add(strings.Join(lines[:40], ""), int64(time.Second))
	f.Add(strings.Join(lines[:200], ""), int64(time.Minute))
	f.Add("timestamp,rate\n2026-01-01T00:00:00Z,10\n2026-01-01T00:01:00Z,20\n", int64(0))
	f.Add("TIMESTAMP\n1700000000.5\n1700000000.25\n", int64(time.Millisecond))
	f.Add("timestamp,container,value\n2026-01-01T00:00:00Z,a,3\n2026-01-01T00:00:00.01Z,b,4\n2026-01-01T00:00:15Z,a,5\n", int64(0))
	f.Add("timestamp,pod,rate\n2026-01-01T00:00:00Z,a,1\n2026-01-01T00:05:00Z,a,2\n", int64(time.Minute))
	f.Add("time,prompt_tokens,completion_tokens\n2026-01-01T00:00:00Z,10,2\n2026-01-01T00:00:01Z,x,2\n", int64(0))
	f.Fuzz(func(t *testing.T, in string, step int64) {
		for _, o := range []Options{{Step: time.Duration(step), MaxIntervals: 1e5}, {Step: time.Duration(step), Sort: true, Gaps: GapZero, MaxIntervals: 1e5}} {
			tr, err := Read(strings.NewReader(in), "fuzz.csv", o)
			if err != nil {
				continue
			}
			if len(tr.Rates) == 0 || tr.Step <= 0 || tr.Rows == 0 {
				t.Fatalf("Read accepted %q as an empty trace: %+v", in, tr)
			}
			sum := 0.0
			for _, r := range tr.Rates {
				if r < 0 || r != r {
					t.Fatalf("Read(%q) rate %v", in, r)
				}
				sum += r * tr.Step.Seconds()
			}
			if d := sum - tr.Requests; d > 1e-6*max(1, tr.Requests) || d < -1e-6*max(1, tr.Requests) {
				t.Fatalf("Read(%q): rates sum to %v requests, Requests = %v", in, sum, tr.Requests)
			}
		}
	})
}
