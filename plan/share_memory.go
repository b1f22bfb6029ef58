package plan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// GPU memory in the sharing planner (docs/architecture.md "Sharing GPUs beyond MIG"). Where pods
// give the GPU memory they need, a GPU under time-slicing or MPS holds fractions while their
// thousandths sum to at most 1,000 and their memory to at most the GPU's: neither isolates
// memory, so all of it must fit at once. Fractions are packed on that two-dimensional vector,
// the larger of its two shares of a GPU first; under MIG each fraction takes the smallest
// profile with enough compute slices and enough memory slices, a profile of m memory slices
// holding m/8 of the GPU's memory (the profile names' nominal size: 3g.40gb on an 80 GB GPU).

// ShareGPU is the GPU the pods are packed onto.
type ShareGPU struct {
	Name      string // the model, such as A100-80GB; "" when only its memory is given
	MemoryMiB int    // what one GPU holds; 0 when unknown, which only pods without memory allow
	// MIGProfiles are the model's MIG profile names, smallest first (catalog.MIGProfiles); none
	// for a model without MIG, whose MIG figures are then those of a MIG GPU of its memory.
	MIGProfiles []string
}

// check refuses pod i when it gives memory that g cannot hold, or that no GPU is sized for.
func (g ShareGPU) check(i int, p SharePod) error {
	switch {
	case p.MemoryMiB < 0:
		return gpucost.Errorf(gpucost.EInvalid, "pod %d (%s): %d MiB of GPU memory: give 0 or more", i+1, p.Name, p.MemoryMiB)
	case p.MemoryMiB > 0 && g.MemoryMiB <= 0:
		return gpucost.Errorf(gpucost.EInvalid, "pod %d (%s) needs %d MiB of GPU memory, but no GPU memory is given: name the GPU model, or how much memory one GPU holds", i+1, p.Name, p.MemoryMiB)
	case p.MemoryMiB > g.MemoryMiB:
		return gpucost.Errorf(gpucost.EInvalid, "pod %d (%s) needs %d MiB of GPU memory on each GPU, more than one GPU holds (%d MiB): give a GPU with more memory, or split the pod", i+1, p.Name, p.MemoryMiB, g.MemoryMiB)
	}
	return nil
}

// ShareMemory is how GPU memory shaped the plan, all at once.
type ShareMemory struct {
	GPU          string `json:"gpu,omitempty"` // the model, "" when only its memory was given
	CapacityMiB  int    `json:"capacity_mib"`  // one GPU's memory
	Pods         int    `json:"pods_with_memory"`
	ComputeBound int    `json:"compute_lower_bound"` // the fractional bound by thousandths alone
	MemoryBound  int    `json:"memory_lower_bound"`  // by memory alone; Bound is the larger
	// ComputeOnly and MIGComputeOnly are what best-fit decreasing and MIG would need were memory
	// left out: the GPUs memory adds are the difference.
	ComputeOnly    int            `json:"fractional_gpus_compute_only"`
	MIGComputeOnly int            `json:"mig_gpus_compute_only"`
	MIGInstances   map[string]int `json:"mig_instances"` // by profile name, or by shape for a GPU without MIG names
}

// shareMemory is the memory section for the GPU pods, nil when none gives its memory.
func shareMemory(pods []SharePod, g ShareGPU) *ShareMemory {
	m := &ShareMemory{GPU: g.Name, CapacityMiB: g.MemoryMiB}
	for _, p := range pods {
		if p.MemoryMiB > 0 {
			m.Pods++
		}
	}
	if m.Pods == 0 {
		return nil
	}
	return m
}

// explain fills the bounds by dimension, the compute-only needs and the MIG instances by name.
func (m *ShareMemory) explain(pods []SharePod, r ShareResult, g ShareGPU) {
	var milli, mem []int
	whole := 0
	for _, p := range pods {
		if !p.fractional() {
			whole += p.GPUs
			continue
		}
		milli = append(milli, p.Milli)
		mem = append(mem, p.MemoryMiB)
	}
	m.ComputeBound = whole + binPackingL2(milli)
	m.MemoryBound = whole + binPackingL2Cap(mem, m.CapacityMiB)
	computeOnly, _, _ := shareNeed(pods, 0)
	m.ComputeOnly, m.MIGComputeOnly = computeOnly.Fractional, computeOnly.MIG
	names := migShapeNames(g.MIGProfiles)
	m.MIGInstances = map[string]int{}
	for k, n := range r.MIGProfiles {
		if n > 0 {
			m.MIGInstances[names[k]] = n
		}
	}
}

// migShapeNames names the six MIG shapes by the GPU's profile names, or by compute slices and
// eighths of memory where the names are unknown or do not parse.
func migShapeNames(profiles []string) [migKinds]string {
	var out [migKinds]string
	if ps, err := migParseProfiles(profiles); err == nil {
		for k, p := range ps {
			out[k] = p.Name
		}
		return out
	}
	for k, s := range migShapes {
		out[k] = fmt.Sprintf("%dg with %d/8 of memory", s.compute, s.memory)
	}
	return out
}

// notes say what memory did to the plan.
func (m *ShareMemory) notes(r ShareResult, g ShareGPU) []string {
	gpu := fmt.Sprintf("%d MiB", m.CapacityMiB)
	if m.GPU != "" {
		gpu = fmt.Sprintf("%d MiB (%s)", m.CapacityMiB, m.GPU)
	}
	a := r.AllAtOnce
	notes := []string{fmt.Sprintf("GPU memory: %d GPU pods give gpu_memory_mib; each GPU holds %s. Under time-slicing or MPS fractions share a GPU while their thousandths sum to at most 1,000 and their memory to at most that (neither isolates memory), packed larger share of a GPU first; the bound is the larger of compute's %d and memory's %d. Under MIG each fraction takes the smallest profile with enough compute and memory slices.",
		m.Pods, gpu, m.ComputeBound, m.MemoryBound)}
	if a.Fractional > m.ComputeOnly || a.MIG > m.MIGComputeOnly {
		notes = append(notes, fmt.Sprintf("Memory decides: all at once time-slicing or MPS needs %d GPUs where compute alone would pack into %d, and MIG %d where compute alone would take %d.",
			a.Fractional, m.ComputeOnly, a.MIG, m.MIGComputeOnly))
	} else {
		notes = append(notes, "Compute decides: memory adds no GPU all at once, under time-slicing, MPS or MIG.")
	}
	var inst []string
	for _, name := range migShapeNames(g.MIGProfiles) {
		if n := m.MIGInstances[name]; n > 0 {
			inst = append(inst, fmt.Sprintf("%d× %s", n, name))
		}
	}
	if len(inst) > 0 {
		notes = append(notes, "MIG instances all at once: "+strings.Join(inst, ", ")+".")
	}
	if g.Name != "" && len(g.MIGProfiles) == 0 {
		notes = append(notes, fmt.Sprintf("%s has no MIG: the MIG figures are those of a MIG GPU with its memory.", g.Name))
	}
	if r.Typed > 0 {
		notes = append(notes, fmt.Sprintf("Every GPU is taken to hold %s whatever the pods' gpu_spec: plan each gpu_spec's pods with its own GPU for its own memory.", gpu))
	}
	return notes
}

// shareMIGKind is the smallest MIG shape with the compute slices a fraction needs, ⌈milli·7/1000⌉
// (5 and 6 round up to the whole GPU's 7g), and the memory slices, ⌈MiB·8/memCap⌉ (none where
// memCap is 0).
func shareMIGKind(p SharePod, memCap int) int {
	c := ceilDiv(p.Milli*migComputeSlices, milliPerGPU)
	m := 0
	if memCap > 0 {
		m = ceilDiv(p.MemoryMiB*migMemorySlices, memCap)
	}
	for k, s := range migShapes {
		if s.compute >= c && s.memory >= m {
			return k
		}
	}
	return migKinds - 1
}

// shareRoom is one GPU's free thousandths and MiB.
type shareRoom struct{ milli, mem int }

// packWithMemory packs fractions on thousandths and memory together: best-fit and first-fit
// decreasing by typed group and then those of any model, and the larger of the two dimensions'
// L2 bounds; it returns the GPUs of each.
func packWithMemory(typed [][]SharePod, anyModel, all []SharePod, memCap int) (bfd, ffd, bound int) {
	for _, g := range typed {
		sortLargerShareFirst(g, memCap)
	}
	sortLargerShareFirst(anyModel, memCap)
	var bestRoom, firstRoom []shareRoom
	for _, g := range typed {
		var opened int
		var own []shareRoom
		own, opened = bestFitInto2D(nil, g, memCap)
		bestRoom = append(bestRoom, own...)
		bfd += opened
		firstRoom = append(firstRoom, firstFitInto2D(nil, g, memCap)...)
	}
	_, opened := bestFitInto2D(bestRoom, anyModel, memCap)
	bfd += opened
	ffd = len(firstFitInto2D(firstRoom, anyModel, memCap))
	milli, mem := make([]int, len(all)), make([]int, len(all))
	for i, p := range all {
		milli[i], mem[i] = p.Milli, p.MemoryMiB
	}
	return bfd, ffd, max(binPackingL2(milli), binPackingL2Cap(mem, memCap))
}

// sortLargerShareFirst orders fractions by the larger of their two shares of a GPU (thousandths
// of 1,000, MiB of memCap), then by the sum of the two, largest first; ties by thousandths and
// MiB, so that the order is the same however the pods came.
func sortLargerShareFirst(pods []SharePod, memCap int) {
	share := func(p SharePod) (int64, int64) { // both scaled by 1,000 × memCap
		return int64(p.Milli) * int64(memCap), int64(p.MemoryMiB) * milliPerGPU
	}
	slices.SortFunc(pods, func(a, b SharePod) int {
		ac, am := share(a)
		bc, bm := share(b)
		return cmp.Or(cmp.Compare(max(bc, bm), max(ac, am)), cmp.Compare(bc+bm, ac+am),
			cmp.Compare(b.Milli, a.Milli), cmp.Compare(b.MemoryMiB, a.MemoryMiB))
	})
}

// bestFitInto2D packs pods (sorted larger share first) onto the GPUs of room, each onto the GPU
// that holds it and is left with the least room (free thousandths and memory, each as a share of
// a GPU, summed; ties to the GPU opened first), opening GPUs as needed. It returns the room of
// all the GPUs and how many it opened.
func bestFitInto2D(room []shareRoom, pods []SharePod, memCap int) ([]shareRoom, int) {
	opened := 0
	for _, p := range pods {
		best, bestLeft := -1, int64(0)
		for i, r := range room {
			if r.milli < p.Milli || r.mem < p.MemoryMiB {
				continue
			}
			left := int64(r.milli-p.Milli)*int64(memCap) + int64(r.mem-p.MemoryMiB)*milliPerGPU
			if best < 0 || left < bestLeft {
				best, bestLeft = i, left
			}
		}
		if best < 0 {
			room = append(room, shareRoom{milliPerGPU - p.Milli, memCap - p.MemoryMiB})
			opened++
			continue
		}
		room[best].milli -= p.Milli
		room[best].mem -= p.MemoryMiB
	}
	return room, opened
}

// firstFitInto2D packs pods (sorted larger share first) onto the first GPU of room, in opening
// order, that holds both their thousandths and their memory, opening GPUs as needed; it returns
// the room of all of them.
func firstFitInto2D(room []shareRoom, pods []SharePod, memCap int) []shareRoom {
	for _, p := range pods {
		i := slices.IndexFunc(room, func(r shareRoom) bool { return r.milli >= p.Milli && r.mem >= p.MemoryMiB })
		if i < 0 {
			room = append(room, shareRoom{milliPerGPU - p.Milli, memCap - p.MemoryMiB})
			continue
		}
		room[i].milli -= p.Milli
		room[i].mem -= p.MemoryMiB
	}
	return room
}
