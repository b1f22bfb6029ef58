package dcgm

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/telemetry/dcgmfields"
)

const (
	gpu0 = `{gpu="0",UUID="GPU-a",modelName="NVIDIA L4",Hostname="h1"}`
	gpu1 = `{gpu="1",UUID="GPU-b",modelName="NVIDIA L4",Hostname="h1"}`
)

// scrapeText is two GPUs' readings, one metric per line: util, memory used and free, power.
func scrapeText(ts string) string {
	var b strings.Builder
	for _, m := range []struct{ name, v0, v1 string }{
		{dcgmfields.MetricGPUUtil, "10", "20"}, {dcgmfields.MetricFBUsed, "100", "200"}, {dcgmfields.MetricFBFree, "900", "800"}, {dcgmfields.MetricPowerUsage, "50.5", "60"},
	} {
		fmt.Fprintf(&b, "# HELP %s x\n# TYPE %s gauge\n%s%s %s%s\n%s%s %s%s\n", m.name, m.name, m.name, gpu0, m.v0, ts, m.name, gpu1, m.v1, ts)
	}
	return b.String()
}

// replaceLine replaces line n (from 1) of text.
func replaceLine(text string, n int, line string) string {
	lines := strings.Split(text, "\n")
	lines[n-1] = line
	return strings.Join(lines, "\n")
}

func TestReadBadInput(t *testing.T) {
	good := scrapeText(" 1700000000000")
	for _, c := range []struct {
		name        string
		text        string
		wantSamples int
		wantSkipped int
		wantSkip    string // "LINE: text in the reason"
		check       func(t *testing.T, s []gpucost.Sample, st Stats)
	}{
		{name: "good", text: good, wantSamples: 2},
		{name: "malformed value", text: replaceLine(good, 3, dcgmfields.MetricGPUUtil+gpu0+" abc"), wantSamples: 2, wantSkipped: 1,
			wantSkip: `3: DCGM_FI_DEV_GPU_UTIL: malformed line: expected float as value, got "abc"`,
			check: func(t *testing.T, s []gpucost.Sample, _ Stats) {
				// GPU-b's line comes first now, and so does its sample.
				if !gpucost.IsAbsent(s[1].Util) || s[1].MemUsedMiB != 100 || s[0].Util != 20 {
					t.Errorf("samples = %+v; want GPU-a's util absent and the rest read", s)
				}
			}},
		{name: "malformed labels", text: replaceLine(good, 4, dcgmfields.MetricGPUUtil+`{gpu="1",UUID=GPU-b} 20`), wantSamples: 2, wantSkipped: 1,
			wantSkip: `4: DCGM_FI_DEV_GPU_UTIL: malformed labels: expected '"' at start of label value, found 'G'`},
		{name: "garbage line", text: replaceLine(good, 8, "}}}{{ not a metric"), wantSamples: 2, wantSkipped: 1, wantSkip: "8: malformed line"},
		{name: "unknown metric", text: good + "node_load1 3 1700000000000\nnode_load1 4 1700000000000\n", wantSamples: 2,
			wantSkip: "17: node_load1: not a DCGM metric",
			check: func(t *testing.T, _ []gpucost.Sample, st Stats) {
				if st.Unknown["node_load1"] != 2 {
					t.Errorf("Unknown = %v, want node_load1: 2", st.Unknown)
				}
			}},
		{name: "negative", text: replaceLine(good, 15, dcgmfields.MetricPowerUsage+gpu0+" -5 1700000000000"), wantSamples: 2, wantSkipped: 1,
			wantSkip: "15: DCGM_FI_DEV_POWER_USAGE: negative value -5; reading left out",
			check: func(t *testing.T, s []gpucost.Sample, _ Stats) {
				if !gpucost.IsAbsent(s[0].PowerW) || s[0].Util != 10 {
					t.Errorf("sample = %+v; want power absent, util 10", s[0])
				}
			}},
		{name: "NaN", text: replaceLine(good, 7, dcgmfields.MetricFBUsed+gpu0+" NaN 1700000000000"), wantSamples: 2, wantSkipped: 1,
			wantSkip: "7: DCGM_FI_DEV_FB_USED: value is NaN; reading left out",
			check: func(t *testing.T, s []gpucost.Sample, _ Stats) {
				if !gpucost.IsAbsent(s[0].MemUsedMiB) || !gpucost.IsAbsent(s[0].MemTotalMiB) {
					t.Errorf("sample = %+v; want memory absent", s[0])
				}
			}},
		{name: "+Inf", text: replaceLine(good, 7, dcgmfields.MetricFBUsed+gpu0+" +Inf"), wantSamples: 2, wantSkipped: 1, wantSkip: "7: DCGM_FI_DEV_FB_USED: value is infinite"},
		{name: "util above 100", text: replaceLine(good, 4, dcgmfields.MetricGPUUtil+gpu1+" 130 1700000000000"), wantSamples: 2, wantSkipped: 1,
			wantSkip: "4: DCGM_FI_DEV_GPU_UTIL: value 130 is above 100"},
		{name: "truncated mid-line", text: good + dcgmfields.MetricGPUUtil + `{gpu="0",UUI`, wantSamples: 2, wantSkipped: 1,
			wantSkip: "17: truncated: the last line has no newline"},
		{name: "no newline at end", text: strings.TrimSuffix(good, "\n"), wantSamples: 2, wantSkipped: 1,
			wantSkip: "16: truncated",
			check: func(t *testing.T, s []gpucost.Sample, _ Stats) {
				if s[0].PowerW != 50.5 || !gpucost.IsAbsent(s[1].PowerW) {
					t.Errorf("samples = %+v; want the cut line's power absent", s)
				}
			}},
		{name: "no GPU labels", text: good + dcgmfields.MetricGPUUtil + `{Hostname="h1"} 5 1700000000001` + "\n", wantSamples: 2, wantSkipped: 1,
			wantSkip: "17: DCGM_FI_DEV_GPU_UTIL: labels name no GPU (no UUID or gpu label); line left out"},
		{name: "no timestamp, no scrape time", text: scrapeText(""), wantSamples: 0, wantSkipped: 8,
			wantSkip: "3: DCGM_FI_DEV_GPU_UTIL: no timestamp on the line and no scrape time given"},
		{name: "duplicate", text: replaceLine(good, 4, dcgmfields.MetricGPUUtil+gpu0+" 11 1700000000000"), wantSamples: 2, wantSkipped: 1,
			wantSkip: "4: DCGM_FI_DEV_GPU_UTIL: a second reading for this GPU and time; the first is kept"},
		{name: "spurious text after timestamp", text: replaceLine(good, 3, dcgmfields.MetricGPUUtil+gpu0+" 1 2 3"), wantSamples: 2, wantSkipped: 1,
			wantSkip: `3: DCGM_FI_DEV_GPU_UTIL: malformed line: spurious string after timestamp: " 3"`},
		{name: "line too long", text: good + dcgmfields.MetricGPUUtil + `{x="` + strings.Repeat("x", 70000) + `"} 1` + "\n", wantSamples: 2, wantSkipped: 1,
			wantSkip: "17: line longer than 64 KiB"},
		{name: "clock skew: year 1970", text: replaceLine(good, 3, dcgmfields.MetricGPUUtil+gpu0+" 10 1000"), wantSamples: 2, wantSkipped: 1,
			wantSkip: "3: DCGM_FI_DEV_GPU_UTIL: timestamp 1970-01-01T00:00:01Z is not a plausible time (a broken clock?); line left out"},
		{name: "clock skew: year 33658", text: replaceLine(good, 3, dcgmfields.MetricGPUUtil+gpu0+" 10 1000000000000000"), wantSamples: 2, wantSkipped: 1,
			wantSkip: "3: DCGM_FI_DEV_GPU_UTIL: timestamp"},
		{name: "CRLF", text: strings.ReplaceAll(good, "\n", "\r\n"), wantSamples: 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, workers := range []int{1, 2} {
				samples, stats, err := readAll(t, c.text, ReadOptions{Workers: workers})
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if len(samples) != c.wantSamples || stats.Skipped != c.wantSkipped || stats.Samples != c.wantSamples {
					t.Errorf("Read(workers=%d) = %d samples, stats %+v; want %d samples, %d skipped", workers, len(samples), stats, c.wantSamples, c.wantSkipped)
				}
				if c.wantSkip != "" && (len(stats.Skips) == 0 || !strings.HasPrefix(stats.Skips[0].String(), "test.prom:"+c.wantSkip)) {
					t.Errorf("Read(workers=%d) skips = %v; want the first to begin test.prom:%s", workers, stats.Skips, c.wantSkip)
				}
				if c.check != nil && len(samples) == c.wantSamples {
					c.check(t, samples, stats)
				}
			}
		})
	}
}

func TestReadNotDCGM(t *testing.T) {
	for _, c := range []struct{ name, text, want string }{
		{"empty", "", "test.prom holds no DCGM metrics"},
		{"JSON", `{"status":"success","data":{"resultType":"vector","result":[]}}` + "\n", "test.prom is not dcgm-exporter text: test.prom:1: malformed line"},
		{"nvidia-smi CSV", strings.Repeat("2026/11/01 10:00:00.123, 0, GPU-a, NVIDIA A100-SXM4-80GB, 35, 1024, 81920, 95.5, 40\n", 20),
			"test.prom is not dcgm-exporter text"},
		{"binary", strings.Repeat("\x00\x01\x02\n", 40), "binary data"},
		{"node_exporter", "# TYPE node_load1 gauge\nnode_load1 0.5\nnode_cpu_seconds_total{cpu=\"0\"} 7\n",
			"holds no DCGM metrics, only others such as node_cpu_seconds_total, node_load1"},
	} {
		_, _, err := readAll(t, c.text, ReadOptions{At: scrapeTime})
		if err == nil || !strings.Contains(err.Error(), c.want) || gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("%s: Read = %v, want an invalid-input error containing %q", c.name, err, c.want)
		}
	}
}

// TestReadScrapes splits concatenated scrapes without timestamps at the repeated HELP lines and
// at # EOF, so each gives its own samples.
func TestReadScrapes(t *testing.T) {
	text := scrapeText("") + scrapeText("") + "# EOF\n" + dcgmfields.MetricGPUUtil + gpu0 + " 7\n"
	samples, stats, err := readAll(t, text, ReadOptions{At: scrapeTime})
	if err != nil || len(samples) != 5 || stats.Skipped != 0 {
		t.Fatalf("Read = %d samples, %v, %+v; want 5 (two scrapes of two GPUs, then one)", len(samples), err, stats)
	}
	if samples[4].Util != 7 || !gpucost.IsAbsent(samples[4].PowerW) {
		t.Errorf("last sample = %+v, want util 7 alone", samples[4])
	}
}

func TestReadLabels(t *testing.T) {
	text := dcgmfields.MetricGPUUtil + `{gpu="2",UUID="GPU-p",modelName="NVIDIA A100-SXM4-40GB",GPU_I_PROFILE="1g.5gb",GPU_I_ID="9",Hostname="h",` +
		`DCGM_FI_DRIVER_VERSION="535",pci_bus_id="0:1",device="nvidia2",container="dcgm-exporter",namespace="gpu-operator",` +
		`pod="dcgm-exporter-x",exported_pod="train-0",exported_namespace="ml",exported_container="main",hpc_job="",` +
		`job="dcgm",instance="10.0.0.1:9400",Team="vision",pod_uid="u-1"} 3` + "\n" +
		dcgmfields.MetricGPUUtil + `{gpu="3",Hostname="h",hpc_job="1234"} 4` + "\n" +
		dcgmfields.MetricGPUUtil + `{UUID="GPU-q"} 5` + "\n"
	samples, stats, err := readAll(t, text, ReadOptions{At: scrapeTime, Host: "fallback"})
	if err != nil || len(samples) != 3 || stats.Skipped != 0 {
		t.Fatalf("Read = %v, %v, %+v", samples, err, stats)
	}
	for i, want := range []struct {
		gpu    gpucost.GPU
		labels string
	}{
		{gpucost.GPU{UUID: "GPU-p/9", Host: "h", Model: "NVIDIA A100-SXM4-40GB", Index: 2, Parent: "GPU-p", Profile: "1g.5gb"},
			"container=main,namespace=ml,pod=train-0,pod_uid=u-1,team=vision"},
		{gpucost.GPU{UUID: "gpu3", Host: "h", Index: 3}, "job=1234"},
		{gpucost.GPU{UUID: "GPU-q", Host: "fallback", Index: -1}, ""},
	} {
		if samples[i].GPU != want.gpu || samples[i].Labels.String() != want.labels {
			t.Errorf("sample %d = %+v %q, want %+v %q", i, samples[i].GPU, samples[i].Labels.String(), want.gpu, want.labels)
		}
	}
}

func TestReadMaxSkew(t *testing.T) {
	at := time.UnixMilli(1700000000000)
	text := replaceLine(scrapeText(" 1700000000000"), 4, dcgmfields.MetricGPUUtil+gpu1+" 20 1700000600001")
	_, stats, err := readAll(t, text, ReadOptions{At: at, MaxSkew: 10 * time.Minute})
	want := "test.prom:4: DCGM_FI_DEV_GPU_UTIL: timestamp 2023-11-14T22:23:20.001Z is 10m0.001s from the scrape time (clock skew?)"
	if err != nil || stats.Skipped != 1 || !strings.HasPrefix(stats.Skips[0].String(), want) {
		t.Errorf("Read = %v, %+v; want one skip %q", err, stats, want)
	}
}

// TestReadManySkips keeps the first MaxSkips skips and counts them all.
func TestReadManySkips(t *testing.T) {
	var b strings.Builder
	b.WriteString(scrapeText(" 1700000000000"))
	for i := range 150 {
		fmt.Fprintf(&b, "%s{gpu=\"%d\"} -1 1700000000000\n", dcgmfields.MetricPowerUsage, i+5)
	}
	_, stats, err := readAll(t, b.String(), ReadOptions{})
	if err != nil || stats.Skipped != 150 || len(stats.Skips) != MaxSkips {
		t.Errorf("Read = %v, skipped %d with %d kept; want 150 and %d", err, stats.Skipped, len(stats.Skips), MaxSkips)
	}
}
