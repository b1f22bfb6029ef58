package plan

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// memoryPods are plan/testdata/share_gpu_memory.csv's GPU pods: six chats of 100 thousandths and
// 30 GiB each, and one whole GPU, all in the same hour.
func memoryPods() []SharePod {
	var pods []SharePod
	for range 6 {
		pods = append(pods, SharePod{Name: "chat", GPUs: 1, Milli: 100, MemoryMiB: 30 << 10, End: 3600})
	}
	return append(pods, SharePod{Name: "train", GPUs: 1, Milli: 1000, End: 3600}, SharePod{Name: "etl", End: 3600})
}

var a100x80 = ShareGPU{Name: "A100-80GB", MemoryMiB: 80 << 10, MIGProfiles: []string{"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"}}

// TestPlanShareMemory: memory, not compute, decides. On an 80 GiB GPU the six chats' 600
// thousandths would share one GPU, but 30 GiB each lets two share (90 GiB > 80): 3 GPUs, and the
// whole one makes 4 (bound: compute 2, memory ⌈180/80⌉ + 1 = 4). Under MIG compute alone gives
// each a 1g.10gb (seven to a GPU: 1 + 1); 30 GiB needs 3 of 8 memory slices, so 3g.40gb, two to a
// GPU: 3 + 1. On a 40 GiB GPU no two chats fit together, and each takes MIG's 7g.40gb: 7 and 7.
func TestPlanShareMemory(t *testing.T) {
	for _, tc := range []struct {
		name     string
		gpu      ShareGPU
		want     ShareNeed
		mem      ShareMemory
		instance string
	}{
		{"A100-80GB", a100x80, ShareNeed{Whole: 7, Fractional: 4, FFD: 4, Bound: 4, MIG: 4, MIGBound: 4, Requests: 7},
			ShareMemory{GPU: "A100-80GB", CapacityMiB: 81920, Pods: 6, ComputeBound: 2, MemoryBound: 4, ComputeOnly: 2, MIGComputeOnly: 2}, "3g.40gb"},
		{"40 GiB", ShareGPU{MemoryMiB: 40 << 10}, ShareNeed{Whole: 7, Fractional: 7, FFD: 7, Bound: 7, MIG: 7, MIGBound: 7, Requests: 7},
			ShareMemory{CapacityMiB: 40960, Pods: 6, ComputeBound: 2, MemoryBound: 7, ComputeOnly: 2, MIGComputeOnly: 2}, "7g with 8/8 of memory"},
	} {
		r, err := PlanShareOn(memoryPods(), tc.gpu)
		if err != nil {
			t.Fatal(err)
		}
		m := *r.Memory
		inst := m.MIGInstances
		m.MIGInstances = nil
		if r.AllAtOnce != tc.want || r.Peak != tc.want || !reflect.DeepEqual(m, tc.mem) || len(inst) != 1 || inst[tc.instance] != 6 {
			t.Errorf("PlanShareOn(%s) = %+v at once, %+v at the peak, memory %+v %v; want %+v both, %+v, 6× %s", tc.name, r.AllAtOnce, r.Peak, m, inst, tc.want, tc.mem, tc.instance)
		}
		if r.GPUHours.NoSharing != 7 || r.GPUHours.Fractional != float64(tc.want.Fractional) || r.GPUHours.MIG != float64(tc.want.MIG) {
			t.Errorf("PlanShareOn(%s) GPU-hours = %+v; want 7 whole, %d fractional and MIG", tc.name, r.GPUHours, tc.want.Fractional)
		}
		if notes := strings.Join(r.Notes, "\n"); !strings.Contains(notes, "Memory decides") || !strings.Contains(notes, "6× "+tc.instance) {
			t.Errorf("PlanShareOn(%s) notes:\n%s\nwant memory deciding and 6× %s", tc.name, notes, tc.instance)
		}
	}
	// Without memory the same pods plan as before, on any GPU, with no memory section.
	pods := memoryPods()
	for i := range pods {
		pods[i].MemoryMiB = 0
	}
	plain, _ := PlanShare(pods)
	on, _ := PlanShareOn(pods, a100x80)
	if plain.Memory != nil || on.Memory != nil || plain.AllAtOnce != on.AllAtOnce || plain.AllAtOnce.Fractional != 2 || plain.AllAtOnce.MIG != 2 {
		t.Errorf("pods without memory: PlanShare %+v, PlanShareOn %+v; want 2 and 2 both, no memory section", plain.AllAtOnce, on.AllAtOnce)
	}
}

// TestPlanShareMemoryErrors: memory no GPU holds, memory with no GPU size, negative memory.
func TestPlanShareMemoryErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		pod  SharePod
		gpu  ShareGPU
		want string
	}{
		{"too big", SharePod{Name: "big", GPUs: 1, Milli: 500, MemoryMiB: 90000}, a100x80, "pod 1 (big) needs 90000 MiB of GPU memory on each GPU, more than one GPU holds (81920 MiB)"},
		{"whole too big", SharePod{Name: "big", GPUs: 2, Milli: 1000, MemoryMiB: 90000}, a100x80, "more than one GPU holds"},
		{"no GPU memory", SharePod{Name: "x", GPUs: 1, Milli: 500, MemoryMiB: 100}, ShareGPU{}, "no GPU memory is given"},
		{"negative", SharePod{Name: "x", GPUs: 1, Milli: 500, MemoryMiB: -1}, a100x80, "give 0 or more"},
	} {
		if _, err := PlanShareOn([]SharePod{tc.pod}, tc.gpu); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: PlanShareOn = %v; want an error with %q", tc.name, err, tc.want)
		}
	}
}

// randomFractions draws n fractions, some typed, with memory up to maxMem MiB.
func randomFractions(rng *rand.Rand, n, maxMem int) []SharePod {
	pods := make([]SharePod, n)
	for i := range pods {
		pods[i] = SharePod{GPUs: 1, Milli: 1 + rng.IntN(999), MemoryMiB: rng.IntN(maxMem + 1), Types: []string{"", "", "A100", "T4"}[rng.IntN(4)]}
	}
	return pods
}

// groups splits fractions as shareNeed does.
func groups(pods []SharePod) (typed [][]SharePod, anyModel []SharePod) {
	byTypes := map[string][]SharePod{}
	for _, p := range pods {
		if p.Types == "" {
			anyModel = append(anyModel, p)
		} else {
			byTypes[p.Types] = append(byTypes[p.Types], p)
		}
	}
	for _, t := range []string{"A100", "T4"} {
		if len(byTypes[t]) > 0 {
			typed = append(typed, byTypes[t])
		}
	}
	return typed, anyModel
}

// TestPackWithMemoryZero: with no memory the two-dimensional packers give what packing by
// thousandths gives, so memory changes nothing where pods give none.
func TestPackWithMemoryZero(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 5))
	for range 300 {
		pods := randomFractions(rng, 1+rng.IntN(60), 0)
		typed, anyModel := groups(pods)
		b1, f1, l1 := packCompute(typed, anyModel, pods)
		b2, f2, l2 := packWithMemory(typed, anyModel, pods, 81920)
		if b1 != b2 || f1 != f2 || l1 != l2 {
			t.Fatalf("%d pods without memory: by compute %d, %d, %d; with memory %d, %d, %d", len(pods), b1, f1, l1, b2, f2, l2)
		}
	}
}

// TestPackWithMemoryBounds: on random fractions with memory, no packing beats the bound, each
// needs at least the compute-only packing's bound, and none uses more GPUs than fractions.
func TestPackWithMemoryBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(19, 6))
	for range 300 {
		pods := randomFractions(rng, 1+rng.IntN(60), 81920)
		typed, anyModel := groups(pods)
		bfd, ffd, bound := packWithMemory(typed, anyModel, pods, 81920)
		_, _, computeBound := packCompute(typed, anyModel, pods)
		if bound > bfd || bound > ffd || bound < computeBound || bfd > len(pods) || ffd > len(pods) {
			t.Fatalf("%d pods: BFD %d, FFD %d, bound %d (compute's %d)", len(pods), bfd, ffd, bound, computeBound)
		}
	}
}

// TestBestFitInto2D: a fraction goes where it leaves the least room, counting both dimensions as
// shares of a GPU: of a GPU with 500 thousandths and 60 GiB free and one with 300 and 10 GiB, 200
// and 5 GiB goes on the second (0.1 + 0.0625 left against 0.3 + 0.6875), where first fit would
// take the first; 200 and 20 GiB then fits only the first.
func TestBestFitInto2D(t *testing.T) {
	room := []shareRoom{{500, 60 << 10}, {300, 10 << 10}}
	room, opened := bestFitInto2D(room, []SharePod{{Milli: 200, MemoryMiB: 5 << 10}, {Milli: 200, MemoryMiB: 20 << 10}}, 80<<10)
	if opened != 0 || room[0] != (shareRoom{300, 40 << 10}) || room[1] != (shareRoom{100, 5 << 10}) {
		t.Errorf("bestFitInto2D = %v, opened %d; want [{300 40960} {100 5120}], none opened", room, opened)
	}
	first := firstFitInto2D([]shareRoom{{500, 60 << 10}, {300, 10 << 10}}, []SharePod{{Milli: 200, MemoryMiB: 5 << 10}}, 80<<10)
	if first[0] != (shareRoom{300, 55 << 10}) {
		t.Errorf("firstFitInto2D = %v; want the first GPU taken", first)
	}
}

// BenchmarkPlanShareOpenbMemory plans the 8,152 openb pods with GPU memory drawn for each (openb
// gives none) on an 80 GiB GPU: two dimensions stay within the 5 s target.
func BenchmarkPlanShareOpenbMemory(b *testing.B) {
	pods := readOpenb(b)
	rng := rand.New(rand.NewPCG(8, 152))
	for i := range pods {
		pods[i].MemoryMiB = rng.IntN(80 << 10)
	}
	for b.Loop() {
		if _, err := PlanShareOn(pods, a100x80); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPlanShareMemoryNotes: a GPU without MIG says what its MIG figures are (100 thousandths and
// half of a 16 GiB GPU take a 3g, the smallest shape with 4 memory slices); typed pods are
// told every GPU holds the one model's memory; a GPU size with no pod memory packs by compute.
func TestPlanShareMemoryNotes(t *testing.T) {
	pods := memoryPods()
	pods[0].MemoryMiB, pods[1].MemoryMiB, pods[1].Types = 8<<10, 8<<10, "T4"
	r, err := PlanShareOn(pods[:2], ShareGPU{Name: "T4", MemoryMiB: 16 << 10})
	if err != nil {
		t.Fatal(err)
	}
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{"T4 has no MIG: the MIG figures are those of a MIG GPU with its memory", "Every GPU is taken to hold 16384 MiB (T4) whatever the pods' gpu_spec", "Compute decides", "2× 3g with 4/8 of memory"} {
		if !strings.Contains(notes, want) {
			t.Errorf("PlanShareOn(T4, one typed pod) notes lack %q:\n%s", want, notes)
		}
	}
	for i := range pods {
		pods[i].MemoryMiB = 0
	}
	r, _ = PlanShareOn(pods, a100x80)
	if notes := strings.Join(r.Notes, "\n"); r.Memory != nil || !strings.Contains(notes, "Each GPU holds 81920 MiB, but no pod gives its GPU memory") {
		t.Errorf("PlanShareOn(no pod memory) memory %+v, notes:\n%s\nwant none and the note", r.Memory, notes)
	}
}
