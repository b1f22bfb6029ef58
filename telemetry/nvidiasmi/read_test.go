package nvidiasmi

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
)

func readAll(t testing.TB, text string) ([]gpucost.Sample, Stats, error) {
	var out []gpucost.Sample
	st, err := Read(strings.NewReader(text), "gpus.csv", "dgx-07", func(s gpucost.Sample) { out = append(out, s) })
	return out, st, err
}

func TestReadGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/a100-8gpu/query-gpu.csv")
	if err != nil {
		t.Fatal(err)
	}
	samples, st, err := readAll(t, string(data))
	if err != nil || len(samples) != 8 || st.Skipped != 0 || st.Lines != 8 {
		t.Fatalf("Read = %d samples, %+v, %v", len(samples), st, err)
	}
	checkGolden(t, "testdata/a100-8gpu/read.golden.json", golden(samples))
}

// TestReadHeaderUnits reads the output of --format=csv, with a header and units.
func TestReadHeaderUnits(t *testing.T) {
	text := "timestamp, index, uuid, name, utilization.gpu [%], memory.used [MiB], memory.total [MiB], power.draw [W], temperature.gpu, pstate\n" +
		"2026/11/01 10:00:00.123, 0, GPU-2b5a9c1e-7f3d-4e8a-9b61-0c4d8e2f1a37, NVIDIA A100-SXM4-80GB, 97 %, 71234 MiB, 81920 MiB, 387.52 W, 64, P0\n" +
		"2026/11/01 10:00:01.123, 0, GPU-2b5a9c1e-7f3d-4e8a-9b61-0c4d8e2f1a37, NVIDIA A100-SXM4-80GB, [N/A], 71234 MiB, 81920 MiB, [N/A], 64, P0\r\n"
	samples, st, err := readAll(t, text)
	if err != nil || len(samples) != 2 || st.Skipped != 0 || st.Unknown["pstate"] != 1 {
		t.Fatalf("Read = %d samples, %+v, %v", len(samples), st, err)
	}
	s := samples[0]
	want := gpucost.GPU{UUID: "GPU-2b5a9c1e-7f3d-4e8a-9b61-0c4d8e2f1a37", Host: "dgx-07", Model: "NVIDIA A100-SXM4-80GB", Index: 0}
	if s.GPU != want || s.Util != 97 || s.MemUsedMiB != 71234 || s.MemTotalMiB != 81920 || s.PowerW != 387.52 || s.TempC != 64 ||
		!s.Time.Equal(time.Date(2026, 11, 1, 10, 0, 0, 123e6, time.UTC)) {
		t.Errorf("sample = %+v", s)
	}
	if !gpucost.IsAbsent(samples[1].Util) || !gpucost.IsAbsent(samples[1].PowerW) {
		t.Errorf("sample = %+v; want util and power absent", samples[1])
	}
}

// TestReadLocation reads timestamps in the recording host's time zone.
func TestReadLocation(t *testing.T) {
	loc := time.FixedZone("CET", 3600)
	var got []gpucost.Sample
	_, err := Reader{Host: "h", Location: loc}.Read(strings.NewReader("2026/11/01 10:00:00.000, 0, GPU-a, L4, 1, 2, 3, 4, 5, Disabled\n"),
		"x", func(s gpucost.Sample) { got = append(got, s) })
	if err != nil || len(got) != 1 || !got[0].Time.Equal(time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)) {
		t.Errorf("Read = %v, %v; want 09:00 UTC", got, err)
	}
}

func TestReadBadInput(t *testing.T) {
	const ok = "2026/11/01 10:00:00.123, 0, GPU-a, NVIDIA L4, 35, 1024, 23034, 40.5, 50, [N/A]\n"
	for _, c := range []struct {
		name, text  string
		wantSamples int
		wantSkip    string
	}{
		{"fields", ok + "2026/11/01 10:00:00.123, 1, GPU-b, NVIDIA L4, 35\n", 1, "gpus.csv:2: line has 5 fields, want 10; left out"},
		{"number", ok + strings.Replace(ok, " 40.5,", " 4o.5,", 1), 2, `gpus.csv:2: power.draw: "4o.5" is not a number; reading left out`},
		{"negative", ok + strings.Replace(ok, " 1024,", " -1024,", 1), 2, "gpus.csv:2: memory.used: negative value -1024; reading left out"},
		{"NaN", ok + strings.Replace(ok, " 35,", " NaN,", 1), 2, "gpus.csv:2: utilization.gpu: value NaN is not finite; reading left out"},
		{"util above 100", ok + strings.Replace(ok, " 35,", " 135,", 1), 2, "gpus.csv:2: utilization.gpu: utilisation 135 is above 100; reading left out"},
		{"unknown error", ok + strings.Replace(ok, " 50,", " [Unknown Error],", 1), 2, "gpus.csv:2: temperature.gpu: nvidia-smi reported [Unknown Error]; reading left out"},
		{"timestamp", ok + strings.Replace(ok, "10:00:00.123", "10h", 1), 1, `gpus.csv:2: timestamp: timestamp "2026/11/01 10h" is not 2006/01/02 15:04:05.000; line left out`},
		{"clock", ok + strings.Replace(ok, "2026/11/01", "1970/01/01", 1), 1, `gpus.csv:2: timestamp: timestamp "1970/01/01 10:00:00.123" is not a plausible time (a broken clock?); line left out`},
		{"index", ok + strings.Replace(ok, " 0,", " x,", 1), 2, `gpus.csv:2: index: "x" is not a device index; reading left out`},
		{"no GPU", ok + strings.NewReplacer(" 0,", " x,", " GPU-a,", " [N/A],").Replace(ok), 1, "gpus.csv:2: line names no GPU (no uuid or index); left out"},
		{"GPU lost", ok + "Unable to determine the device handle for GPU 00000000:90:00.0: GPU is lost.  Reboot the system to recover this GPU\n" + ok,
			2, "gpus.csv:2: nvidia-smi: Unable to determine the device handle for GPU 00000000:90:00.0: GPU is lost."},
		{"truncated", ok + ok[:40], 1, "gpus.csv:2: truncated: the last line has no newline"},
		{"no timestamp column", "uuid, utilization.gpu\nGPU-a, 5\n" + ok, 0, "gpus.csv:1: timestamp: the header has no timestamp column"},
	} {
		samples, st, err := readAll(t, c.text)
		if c.wantSamples == 0 {
			if err == nil || !strings.Contains(err.Error(), c.wantSkip) {
				t.Errorf("%s: Read = %v, want an error containing %q", c.name, err, c.wantSkip)
			}
			continue
		}
		if err != nil || len(samples) != c.wantSamples || st.Skipped != 1 || !strings.HasPrefix(st.Skips[0].String(), c.wantSkip) {
			t.Errorf("%s: Read = %d samples, %+v, %v; want %d samples and one skip %q", c.name, len(samples), st, err, c.wantSamples, c.wantSkip)
		}
	}
}

func TestReadNotNvidiaSmi(t *testing.T) {
	for _, text := range []string{"", "hello\nworld\n", "# HELP DCGM_FI_DEV_GPU_UTIL x\nDCGM_FI_DEV_GPU_UTIL{gpu=\"0\"} 5\n", "No devices were found\n"} {
		if _, _, err := readAll(t, text); err == nil || gpucost.ErrorCode(err) != gpucost.EInvalid ||
			!strings.Contains(err.Error(), "gpus.csv holds no nvidia-smi --query-gpu samples") {
			t.Errorf("Read(%q) = %v, want an invalid-input error", text, err)
		}
	}
}

func FuzzRead(f *testing.F) {
	for _, file := range []string{"a100-8gpu/query-gpu.csv", "a100-mig/query-gpu.csv", "na-fields/query-gpu.csv", "gpu-lost/query-gpu.2.csv"} {
		data, err := os.ReadFile("testdata/" + file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("timestamp, uuid, utilization.gpu [%], power.draw [W]\n2026/11/01 10:00:00.000, GPU-a, 5 %, 30.5 W\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		samples, st, err := readAll(t, string(data))
		if err == nil && len(samples) == 0 {
			t.Fatal("Read succeeded with no samples")
		}
		if st.Samples != len(samples) || len(st.Skips) > MaxSkips || len(st.Skips) > st.Skipped {
			t.Fatalf("stats %+v do not add up with %d samples", st, len(samples))
		}
		for _, s := range samples {
			for _, v := range []float64{s.Util, s.MemUsedMiB, s.MemTotalMiB, s.PowerW, s.TempC} {
				if !gpucost.IsAbsent(v) && (v < 0 || v > 1e308) {
					t.Fatalf("sample %+v has an invalid reading %v", s, v)
				}
			}
			if s.Util > 100 || s.GPU.UUID == "" || s.Time.IsZero() {
				t.Fatalf("sample %+v is not valid", s)
			}
		}
	})
}

// BenchmarkCollectParse is the Collector's own work for an 8-GPU host — parsing nvidia-smi's
// output and reading the processes' cgroups — without running nvidia-smi.
func BenchmarkCollectParse(b *testing.B) {
	gpus, _ := os.ReadFile("testdata/a100-8gpu/query-gpu.csv")
	apps, _ := os.ReadFile("testdata/a100-8gpu/compute-apps.csv")
	c := &Collector{ProcRoot: fakeProc(b), Run: func(_ context.Context, _ string, args ...string) ([]byte, error) {
		if strings.HasPrefix(args[0], "--query-gpu=") {
			return gpus, nil
		}
		return apps, nil
	}}
	for b.Loop() {
		if s, err := c.Collect(context.Background()); err != nil || len(s) != 8 {
			b.Fatal(err)
		}
	}
}

// BenchmarkCollectFake includes starting nvidia-smi (the fake script, twice a Collect).
func BenchmarkCollectFake(b *testing.B) {
	c := fake(b, "a100-8gpu")
	for b.Loop() {
		if s, err := c.Collect(context.Background()); err != nil || len(s) != 8 {
			b.Fatal(err)
		}
	}
}

// BenchmarkCollectLoop is a Collect with Loop and AppsEvery set, as an agent runs it: rows from
// the running nvidia-smi, processes asked for every 10 s.
func BenchmarkCollectLoop(b *testing.B) {
	c := fake(b, "a100-8gpu")
	c.Loop, c.AppsEvery = 50*time.Millisecond, 10*time.Second
	defer c.Close()
	if _, err := c.Collect(context.Background()); err != nil {
		b.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, ok := c.loop.rows(); ok {
			break
		}
		if time.Now().After(deadline) {
			b.Fatal("the loop printed no round")
		}
	}
	for b.Loop() {
		if s, err := c.Collect(context.Background()); err != nil || len(s) != 8 {
			b.Fatal(err)
		}
	}
}
