package plan

import (
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/gpucost/gpucost"
)

// testMIGPlacements restates docs/architecture.md "MIG" independently of mig.go: for each compute size
// and memory-slice count, the allowed starts.
var testMIGPlacements = map[[2]int][]int{
	{1, 1}: {0, 1, 2, 3, 4, 5, 6}, {1, 2}: {0, 2, 4, 6}, {2, 2}: {0, 2, 4},
	{3, 4}: {0, 4}, {4, 4}: {0}, {7, 8}: {0},
}

func w(name string, gb, share float64) MIGWorkload {
	return MIGWorkload{Name: name, MemoryGB: gb, ComputeShare: share}
}

func TestPlanMIGProfileChoice(t *testing.T) {
	cases := []struct {
		gpu  string
		w    MIGWorkload
		want string
	}{
		{"A100-80GB", w("small", 10, 0.1), "1g.10gb"},
		{"A100-80GB", w("one-seventh", 8, 1.0/7), "1g.10gb"},
		{"A100-80GB", w("mem", 15, 0.1), "1g.20gb"},
		{"A100-80GB", w("2g", 15, 0.25), "2g.20gb"},
		{"A100-80GB", w("3g", 30, 0.2), "3g.40gb"},
		{"A100-80GB", w("4g", 30, 0.5), "4g.40gb"},
		{"A100-80GB", w("big", 50, 0.1), "7g.80gb"},
		{"A100-80GB", w("zero", 0, 0), "1g.10gb"},
		{"H100-80GB", w("h100", 20, 0.3), "3g.40gb"},
		{"h200", w("h200", 30, 0.1), "1g.35gb"},
		{"H200", w("h200big", 100, 0.1), "7g.141gb"},
		{"A100-40GB", w("a40", 6, 0.1), "1g.10gb"},
		{"H100-NVL", w("nvl", 40, 0.4), "3g.47gb"},
	}
	for _, c := range cases {
		res, err := PlanMIG(MIGInput{GPU: c.gpu, Workloads: []MIGWorkload{c.w}})
		if err != nil {
			t.Fatalf("PlanMIG(%s, %+v): %v", c.gpu, c.w, err)
		}
		if got := res.GPUs[0].Instances[0].Profile; got != c.want {
			t.Errorf("PlanMIG(%s, %+v) profile = %s, want %s", c.gpu, c.w, got, c.want)
		}
	}
}

func repeat(n int, gb, share float64) []MIGWorkload {
	var ws []MIGWorkload
	for i := range n {
		ws = append(ws, w(fmt.Sprintf("w%d", i), gb, share))
	}
	return ws
}

func TestPlanMIGLayouts(t *testing.T) {
	cases := []struct {
		name                 string
		ws                   []MIGWorkload
		gpus                 int
		strandedC, strandedM int
	}{
		{"seven 1g.10gb leave slice 7 stranded", repeat(7, 5, 0.1), 1, 0, 1},
		{"four 1g.20gb strand 3 compute", repeat(4, 15, 0.1), 1, 3, 0},
		{"six 1g.10gb leave room for 1g.20gb@6", repeat(6, 5, 0.1), 1, 0, 0},
		{"two 3g fill memory", repeat(2, 30, 0.4), 1, 1, 0},
		{"two 3g + 1g.10gb need two GPUs", append(repeat(2, 30, 0.4), w("x", 5, 0.1)), 2, 0, 0},
		{"4g + 3g", []MIGWorkload{w("a", 30, 0.5), w("b", 30, 0.4)}, 1, 0, 0},
		{"two 4g never share", repeat(2, 30, 0.5), 2, 0, 0},
		{"4g + two 1g.20gb strand 1 compute", append(repeat(2, 15, 0.1), w("x", 30, 0.5)), 1, 1, 0},
		{"three 2g + 1g.20gb", append(repeat(3, 15, 0.25), w("x", 15, 0.1)), 1, 0, 0},
		{"3g + two 2g: 3g must start at 4", append(repeat(2, 15, 0.25), w("x", 30, 0.4)), 1, 0, 0},
		{"7g each", repeat(3, 60, 0.9), 3, 0, 0},
	}
	for _, c := range cases {
		res, err := PlanMIG(MIGInput{GPU: "A100-80GB", Workloads: c.ws})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		checkMIGResult(t, c.name, res, c.ws)
		if res.GPUsNeeded != c.gpus || res.StrandedComputeSlices != c.strandedC || res.StrandedMemorySlices != c.strandedM {
			t.Errorf("%s: PlanMIG = %d GPUs, stranded %d compute %d memory (%+v), want %d, %d, %d",
				c.name, res.GPUsNeeded, res.StrandedComputeSlices, res.StrandedMemorySlices, res.GPUs,
				c.gpus, c.strandedC, c.strandedM)
		}
	}
}

// checkMIGResult verifies a result against the docs/architecture.md rules without mig.go's tables: every
// workload placed once on a profile that fits it, starts allowed, no overlap, ≤ 7 compute.
func checkMIGResult(t *testing.T, name string, res MIGResult, ws []MIGWorkload) {
	t.Helper()
	seen := map[string]int{}
	prof := map[string]MIGProfile{}
	for _, p := range res.Profiles {
		prof[p.Name] = p
	}
	byName := map[string]MIGWorkload{}
	for _, w := range ws {
		byName[w.Name] = w
	}
	for _, g := range res.GPUs {
		var mask, compute, free int
		for _, in := range g.Instances {
			seen[in.Workload]++
			p := prof[in.Profile]
			wl := byName[in.Workload]
			need := max(1, int(math.Ceil(wl.ComputeShare*7-1e-9)))
			if p.MemoryGB < wl.MemoryGB || p.ComputeSlices < need {
				t.Errorf("%s: %s on %s does not fit it", name, in.Workload, in.Profile)
			}
			ok := false
			for _, s := range testMIGPlacements[[2]int{p.ComputeSlices, p.MemorySlices}] {
				ok = ok || s == in.Start
			}
			m := (1<<p.MemorySlices - 1) << in.Start
			if !ok || m&mask != 0 || m >= 1<<8 {
				t.Errorf("%s: GPU %d: %s@%d is not a valid placement in %s", name, g.GPU, in.Profile, in.Start, g.Layout)
			}
			mask |= m
			compute += p.ComputeSlices
		}
		for m := mask; m < 1<<8; m = m<<1 | 1 {
			free++
		}
		if compute > 7 || g.FreeComputeSlices != 7-compute || g.StrandedComputeSlices > g.FreeComputeSlices ||
			g.StrandedMemorySlices > g.FreeMemorySlices || g.StrandedComputeSlices < 0 || g.StrandedMemorySlices < 0 {
			t.Errorf("%s: GPU %d %s: compute %d, free/stranded %+v", name, g.GPU, g.Layout, compute, g)
		}
	}
	for _, w := range ws {
		if seen[w.Name] != 1 {
			t.Errorf("%s: workload %s placed %d times", name, w.Name, seen[w.Name])
		}
	}
	if res.GPUsNeeded != len(res.GPUs) || res.GPUsNeeded < res.LowerBound || res.GPUsSaved < 0 ||
		res.WholeGPUs != len(ws) || math.IsNaN(res.SavedPercent) || res.SavedPercent < 0 {
		t.Errorf("%s: totals %d GPUs, bound %d, saved %d (%v%%), whole %d", name, res.GPUsNeeded,
			res.LowerBound, res.GPUsSaved, res.SavedPercent, res.WholeGPUs)
	}
}

// bruteFits reports whether shapes (compute, memory slices) have a valid layout, by trying
// every start for each in turn.
func bruteFits(shapes [][2]int, mask, compute int) bool {
	if len(shapes) == 0 {
		return true
	}
	s := shapes[0]
	if compute+s[0] > 7 {
		return false
	}
	for _, st := range testMIGPlacements[s] {
		m := (1<<s[1] - 1) << st
		if m&mask == 0 && m < 1<<8 && bruteFits(shapes[1:], mask|m, compute+s[0]) {
			return true
		}
	}
	return false
}

// bruteMinGPUs tries every assignment of instances to GPUs (GPU i opened only after i−1).
func bruteMinGPUs(shapes [][2]int) int {
	best := len(shapes)
	groups := make([][][2]int, 0, len(shapes))
	var rec func(i int)
	rec = func(i int) {
		if len(groups) >= best {
			return
		}
		if i == len(shapes) {
			for _, g := range groups {
				if !bruteFits(g, 0, 0) {
					return
				}
			}
			best = len(groups)
			return
		}
		for g := range groups {
			groups[g] = append(groups[g], shapes[i])
			rec(i + 1)
			groups[g] = groups[g][:len(groups[g])-1]
		}
		groups = append(groups, [][2]int{shapes[i]})
		rec(i + 1)
		groups = groups[:len(groups)-1]
	}
	rec(0)
	return best
}

func randomMIGWorkloads(r *rand.Rand, n int, gbMax float64) []MIGWorkload {
	ws := make([]MIGWorkload, n)
	for i := range ws {
		share := []float64{0.05, 0.14, 0.2, 0.28, 0.4, 0.5, 0.57, 0.8, 1}[r.IntN(9)]
		if r.IntN(3) == 0 {
			share = r.Float64()
		}
		ws[i] = w(fmt.Sprintf("w%d", i), r.Float64()*gbMax*r.Float64(), share)
	}
	return ws
}

func TestPlanMIGMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 2))
	ffdWorse := 0
	const instances = 3000
	for it := range instances {
		gpu := []string{"A100-40GB", "A100-80GB", "H100-80GB", "H100-94GB", "H200"}[it%5]
		ws := randomMIGWorkloads(r, 1+r.IntN(6), 60)
		res, err := PlanMIG(MIGInput{GPU: gpu, Workloads: ws})
		if err != nil {
			continue // too big for this GPU: checked in TestPlanMIGErrors
		}
		name := fmt.Sprintf("instance %d (%s %+v)", it, gpu, ws)
		checkMIGResult(t, name, res, ws)
		var shapes [][2]int
		var d [migKinds]int
		for _, g := range res.GPUs {
			for _, in := range g.Instances {
				shapes = append(shapes, [2]int{in.ComputeSlices, in.MemorySlices})
				d[slicesIndexShape(in.ComputeSlices, in.MemorySlices)]++
			}
		}
		if want := bruteMinGPUs(shapes); res.GPUsNeeded != want || !res.Optimal || res.Method != "exact" {
			t.Fatalf("%s: PlanMIG = %d GPUs (%s), brute force %d", name, res.GPUsNeeded, res.Method, want)
		}
		if len(migFFD(d)) > res.GPUsNeeded {
			ffdWorse++
		}
	}
	t.Logf("exact = brute force on %d instances of ≤ 6 workloads; first-fit decreasing alone would need more GPUs on %d", instances, ffdWorse)
}

func slicesIndexShape(c, m int) int {
	for k, s := range migShapes {
		if s.compute == c && s.memory == m {
			return k
		}
	}
	return -1
}

func TestPlanMIGLargeProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for it := range 200 {
		ws := randomMIGWorkloads(r, 20+r.IntN(300), 80)
		res, err := PlanMIG(MIGInput{GPU: "A100-80GB", Workloads: ws})
		if err != nil {
			t.Fatal(err)
		}
		checkMIGResult(t, fmt.Sprintf("large instance %d", it), res, ws)
	}
}

func TestPlanMIGProfilesFromCatalog(t *testing.T) {
	// B200's list as catalog.Spec("B200").MIG gives it: not in the built-in table.
	in := MIGInput{GPU: "B200", Profiles: []string{"1g.23gb", "1g.45gb", "2g.45gb", "3g.90gb", "4g.90gb", "7g.180gb"},
		Workloads: []MIGWorkload{w("a", 40, 0.1), w("b", 80, 0.4), w("c", 20, 0.1)}}
	res, err := PlanMIG(in)
	if err != nil {
		t.Fatal(err)
	}
	checkMIGResult(t, "B200", res, in.Workloads)
	if res.GPUsNeeded != 1 || res.GPUs[0].Layout != "3g.90gb@0 + 1g.23gb@4 + 1g.45gb@6" {
		t.Errorf("PlanMIG(B200) = %d GPUs, %q; want 1, 3g.90gb@0 + 1g.23gb@4 + 1g.45gb@6", res.GPUsNeeded, res.GPUs[0].Layout)
	}
}

func TestPlanMIGErrors(t *testing.T) {
	cases := []struct {
		name string
		in   MIGInput
		want string
	}{
		{"unknown GPU", MIGInput{GPU: "T4", Workloads: repeat(1, 1, 0.1)}, "use one of A100-40GB"},
		{"no workloads", MIGInput{GPU: "H200"}, "no workloads"},
		{"share above 1", MIGInput{GPU: "H200", Workloads: repeat(1, 1, 1.5)}, "whole GPUs"},
		{"NaN share", MIGInput{GPU: "H200", Workloads: repeat(1, 1, math.NaN())}, "0..1"},
		{"negative memory", MIGInput{GPU: "H200", Workloads: repeat(1, -1, 0.1)}, "GB ≥ 0"},
		{"too big", MIGInput{GPU: "A100-80GB", Workloads: repeat(1, 100, 0.1)}, "H200: 7g.141gb"},
		{"bad profile", MIGInput{GPU: "X", Profiles: []string{"big"}, Workloads: repeat(1, 1, 0.1)}, "not a MIG profile name"},
		{"no 7g", MIGInput{GPU: "X", Profiles: []string{"1g.10gb"}, Workloads: repeat(1, 1, 0.1)}, "no whole-GPU 7g"},
		{"missing shape", MIGInput{GPU: "X", Profiles: []string{"1g.10gb", "7g.80gb"}, Workloads: repeat(1, 1, 0.1)}, "no 1g profile with 2"},
	}
	for _, c := range cases {
		_, err := PlanMIG(c.in)
		var e *gpucost.Error
		if !errors.As(err, &e) || e.Code != gpucost.EInvalid || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: PlanMIG err = %v, want EInvalid containing %q", c.name, err, c.want)
		}
	}
}

const openbPods = "../../shared/datasets/alibaba/gpu-v2023/csv/openb_pod_list_default.csv"

// openbWorkloads reads the single-GPU pods of the Alibaba openb trace (gpu_milli is the compute
// share; the trace gives no GPU memory, so memGB(share) supplies it) and the multi-GPU pods'
// GPU count, which MIG cannot share.
func openbWorkloads(tb testing.TB, memGB func(share float64) float64) (ws []MIGWorkload, multiGPUs int) {
	f, err := os.Open(openbPods)
	if errors.Is(err, os.ErrNotExist) {
		tb.Skipf("openb pod list absent (%s): clone shared/ beside the repository", openbPods)
	}
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		tb.Fatal(err)
	}
	for _, row := range rows[1:] {
		n, err1 := strconv.Atoi(row[3])
		milli, err2 := strconv.Atoi(row[4])
		if err1 != nil || err2 != nil {
			tb.Fatalf("openb %s: num_gpu %q gpu_milli %q", row[0], row[3], row[4])
		}
		switch {
		case n == 1:
			share := float64(milli) / 1000
			ws = append(ws, w(row[0], memGB(share), share))
		case n > 1:
			multiGPUs += n
		}
	}
	return ws, multiGPUs
}

func TestPlanMIGOpenb(t *testing.T) {
	for _, c := range []struct {
		name  string
		memGB func(float64) float64
	}{
		{"compute only (trace has no GPU memory)", func(float64) float64 { return 0 }},
		{"memory ∝ compute share of 80 GB", func(s float64) float64 { return s * 80 }},
	} {
		ws, multi := openbWorkloads(t, c.memGB)
		res, err := PlanMIG(MIGInput{GPU: "A100-80GB", Workloads: ws})
		if err != nil {
			t.Fatal(err)
		}
		checkMIGResult(t, "openb", res, ws)
		t.Logf("openb on A100-80GB, %s: %d single-GPU pods need %d GPUs with MIG against %d whole GPUs: %d saved (%.1f%%); lower bound %d, %s; stranded %d compute / %d memory slices; multi-GPU pods add %d whole GPUs to both",
			c.name, len(ws), res.GPUsNeeded, res.WholeGPUs, res.GPUsSaved, res.SavedPercent,
			res.LowerBound, res.Method, res.StrandedComputeSlices, res.StrandedMemorySlices, multi)
	}
}

func BenchmarkPlanMIGOpenb(b *testing.B) {
	ws, _ := openbWorkloads(b, func(float64) float64 { return 0 })
	for b.Loop() {
		if _, err := PlanMIG(MIGInput{GPU: "A100-80GB", Workloads: ws}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPlanMIGExact(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	ws := randomMIGWorkloads(r, 40, 60)
	for b.Loop() {
		if _, err := PlanMIG(MIGInput{GPU: "A100-80GB", Workloads: ws}); err != nil {
			b.Fatal(err)
		}
	}
}

func TestPlanMIGFFDNeverBeatsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	worse := 0
	for range 500 {
		var d [migKinds]int
		for k := range d {
			d[k] = r.IntN(6)
		}
		exact, ffd := len(migExact(d)), len(migFFD(d))
		if exact > ffd || exact < migLowerBound(d) {
			t.Fatalf("demand %v: exact %d, first-fit decreasing %d, bound %d", d, exact, ffd, migLowerBound(d))
		}
		if ffd > exact {
			worse++
		}
	}
	t.Logf("first-fit decreasing needed more GPUs than the exact search on %d of 500 demands of up to 30 instances", worse)
}
