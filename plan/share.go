package plan

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// The sharing planner (docs/architecture.md "Sharing GPUs beyond MIG") packs GPU requests onto
// GPUs three ways, side by side: whole GPUs (every request takes its own), fractional sharing
// (time-slicing or MPS: requests of a GPU's thousandths share it while they sum to at most
// 1,000) and MIG (each fraction takes the smallest MIG profile with as many compute slices,
// ⌈milli·7/1000⌉). Requests of several GPUs, or of a whole one, take whole GPUs in every way.
// Fractions are packed by best-fit decreasing and, for comparison, first-fit decreasing, beside
// Martello and Toth's L2 lower bound; MIG by the MIG planner's packer beside its bound. The
// plan is made for the requests all at once (as the openb trace is replayed by its scheduler
// simulator), at the peak of the requests running together, and over time as GPU-hours, with
// the GPUs repacked whenever a request starts or ends. Where requests give their GPU memory,
// memory packs beside compute (share_memory.go).

// milliPerGPU is a GPU in thousandths, openb's gpu_milli unit.
const milliPerGPU = 1000

// SharePod is one pod's GPU request and when it ran.
type SharePod struct {
	Name  string
	GPUs  int   // whole GPUs requested; 1 with Milli below 1,000 is a fraction of one
	Milli int   // thousandths of one GPU, for a fractional request; 1,000 otherwise
	Start int64 // seconds, creation time
	End   int64 // seconds, deletion time; End ≤ Start is a request that never ran
	// Types are the GPU models the pod may run on (openb's gpu_spec, such as "V100M32|A100"); ""
	// is any. A fraction shares a GPU only with fractions of the same Types or of none.
	Types string
	// MemoryMiB is the GPU memory the pod needs on each GPU it takes (gpu_memory_mib); 0 is
	// none given. A fraction's memory packs beside its thousandths (share_memory.go).
	MemoryMiB int
}

func (p SharePod) fractional() bool { return p.GPUs == 1 && p.Milli > 0 && p.Milli < milliPerGPU }

// ShareNeed is the GPUs one way of sharing needs.
type ShareNeed struct {
	Whole      int `json:"whole_gpus"`      // requests of whole GPUs (or of no sharing)
	Fractional int `json:"fractional_gpus"` // time-slicing/MPS: best-fit decreasing
	FFD        int `json:"ffd_gpus"`        // time-slicing/MPS: first-fit decreasing
	Bound      int `json:"lower_bound"`     // no fractional packing needs fewer
	MIG        int `json:"mig_gpus"`        // MIG profiles
	MIGBound   int `json:"mig_lower_bound"` // no MIG packing needs fewer
	Requests   int `json:"requests"`        // GPU requests counted
}

// ShareResult is the sharing plan.
type ShareResult struct {
	Pods        int           `json:"pods"`
	GPUPods     int           `json:"gpu_pods"`
	Fractional  int           `json:"fractional_pods"`
	MultiGPU    int           `json:"multi_gpu_pods"`
	NeverRan    int           `json:"never_ran"`  // GPU pods with no run time, left out of peak and GPU-hours
	Typed       int           `json:"typed_pods"` // GPU pods that name the GPU models they may run on
	Openb       bool          `json:"-"`          // the pods are openb's (names openb-pod-…): the FGD paper's figures apply
	AllAtOnce   ShareNeed     `json:"-"`          // MarshalJSON writes these three under plain names
	Peak        ShareNeed     `json:"-"`
	PeakAt      int64         `json:"peak_at_s"`
	GPUHours    ShareHours    `json:"-"`
	MIGPacker   string        `json:"mig_packer"` // exact or first-fit-decreasing, all at once
	Notes       []string      `json:"notes,omitempty"`
	MIGProfiles [migKinds]int `json:"mig_instances_by_shape"`
	// Memory is how GPU memory shaped the plan; nil when no pod gives its GPU memory.
	Memory *ShareMemory `json:"gpu_memory,omitempty"`
}

// ShareHours are GPU-hours over the trace, repacked at every start and end.
type ShareHours struct {
	NoSharing, Fractional, FFD, Bound, MIG float64
}

// MarshalJSON writes the needs under plain names.
func (r ShareResult) MarshalJSON() ([]byte, error) {
	type plain ShareResult
	return json.Marshal(struct {
		AllAtOnce ShareNeed      `json:"all_at_once"`
		Peak      ShareNeed      `json:"peak_concurrent"`
		Hours     map[string]any `json:"gpu_hours"`
		plain
	}{r.AllAtOnce, r.Peak, map[string]any{"no_sharing": r.GPUHours.NoSharing, "fractional": r.GPUHours.Fractional, "ffd": r.GPUHours.FFD,
		"lower_bound": r.GPUHours.Bound, "mig": r.GPUHours.MIG}, plain(r)})
}

// PlanShare packs pods' GPU requests by compute alone: all at once, at their peak together and
// over time. Pods that give their GPU memory need PlanShareOn and the GPU's memory.
func PlanShare(pods []SharePod) (ShareResult, error) { return PlanShareOn(pods, ShareGPU{}) }

// PlanShareOn packs pods' GPU requests onto GPUs of gpu: all at once, at their peak together
// and over time. Where pods give their GPU memory, memory packs beside compute; gpu must then
// say how much one GPU holds, and no pod may need more.
func PlanShareOn(pods []SharePod, g ShareGPU) (ShareResult, error) {
	var r ShareResult
	r.Pods = len(pods)
	var gpu []SharePod
	for i, p := range pods {
		switch {
		case p.GPUs < 0 || p.Milli < 0 || p.Milli > milliPerGPU:
			return r, gpucost.Errorf(gpucost.EInvalid, "pod %d (%s): %d GPUs of %d thousandths: give whole GPUs, or one GPU with 1–1000 thousandths", i+1, p.Name, p.GPUs, p.Milli)
		case p.GPUs == 0:
			continue
		case p.GPUs > 1 && p.Milli != 0 && p.Milli != milliPerGPU:
			return r, gpucost.Errorf(gpucost.EInvalid, "pod %d (%s): %d GPUs of %d thousandths each: a fraction is of one GPU; give 1 GPU, or 1000 thousandths", i+1, p.Name, p.GPUs, p.Milli)
		}
		if err := g.check(i, p); err != nil {
			return r, err
		}
		gpu = append(gpu, p)
		if p.fractional() {
			r.Fractional++
		}
		if p.GPUs > 1 {
			r.MultiGPU++
		}
		if p.End <= p.Start {
			r.NeverRan++
		}
		if p.Types != "" {
			r.Typed++
		}
	}
	r.Openb = len(pods) > 0 && strings.HasPrefix(pods[0].Name, "openb-pod-")
	r.GPUPods = len(gpu)
	if len(gpu) == 0 {
		return r, gpucost.Errorf(gpucost.EInvalid, "no pod requests a GPU: give num_gpu (and gpu_milli for a fraction) per pod")
	}
	memCap := 0
	if r.Memory = shareMemory(gpu, g); r.Memory != nil {
		memCap = g.MemoryMiB
	}
	r.AllAtOnce, r.MIGPacker, r.MIGProfiles = shareNeed(gpu, memCap)
	r.Peak, r.PeakAt, r.GPUHours = shareOverTime(gpu, memCap)
	r.Notes = shareNotes(r)
	if r.Memory != nil {
		r.Memory.explain(gpu, r, g)
		r.Notes = append(r.Notes[:len(r.Notes)-1], append(r.Memory.notes(r, g), r.Notes[len(r.Notes)-1])...)
	} else if g.MemoryMiB > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("Each GPU holds %d MiB, but no pod gives its GPU memory (a gpu_memory_mib column): packed by compute alone.", g.MemoryMiB))
	}
	return r, nil
}

// shareNeed packs one set of requests every way, memory a dimension beside compute where memCap
// (one GPU's MiB) is above 0. Fractions that name GPU models (Types) share a GPU only with
// fractions of the same Types and with fractions that name none: each Types is packed on its own
// GPUs, then the fractions of any model fill the room left on all of them before opening more
// (under MIG they get GPUs of their own too, a simpler and safe plan). Without Types that is
// plain best-fit and first-fit decreasing. The lower bounds ignore Types, so they stay bounds.
func shareNeed(pods []SharePod, memCap int) (ShareNeed, string, [migKinds]int) {
	n := ShareNeed{Requests: len(pods)}
	var fracs, anyModel []SharePod
	var byTypes map[string][]SharePod // typed fractions by their Types; made at the first
	var d [migKinds]int
	whole := 0
	for _, p := range pods {
		switch {
		case !p.fractional():
			whole += p.GPUs
			continue
		case p.Types == "":
			anyModel = append(anyModel, p)
		default:
			if byTypes == nil {
				byTypes = map[string][]SharePod{}
			}
			byTypes[p.Types] = append(byTypes[p.Types], p)
		}
		fracs = append(fracs, p)
		d[shareMIGKind(p, memCap)]++
	}
	n.Whole = whole + len(fracs)
	var typed [][]SharePod
	for _, t := range slices.Sorted(maps.Keys(byTypes)) {
		typed = append(typed, byTypes[t])
	}
	if memCap > 0 {
		n.Fractional, n.FFD, n.Bound = packWithMemory(typed, anyModel, fracs, memCap)
	} else {
		n.Fractional, n.FFD, n.Bound = packCompute(typed, anyModel, fracs)
	}
	n.Fractional += whole
	n.FFD += whole
	n.Bound += whole
	// MIG GPUs are kept apart by Types; fractions of any model get GPUs of their own.
	n.MIG = whole
	packer := "exact"
	for _, g := range append([][]SharePod{anyModel}, typed...) {
		var demand [migKinds]int
		for _, p := range g {
			demand[shareMIGKind(p, memCap)]++
		}
		bins, how := migPack(demand)
		n.MIG += len(bins)
		if how != "exact" { // one group packed by first fit makes the whole approximate
			packer = how
		}
	}
	n.MIGBound = whole + migLowerBound(d)
	return n, packer, d
}

// packCompute packs fractions by their thousandths alone: best-fit and first-fit decreasing by
// typed group and then those of any model, and the L2 bound of all; it returns the GPUs of each.
func packCompute(typed [][]SharePod, anyModel, all []SharePod) (bfd, ffd, bound int) {
	largestFirst := func(g []SharePod) []int {
		sizes := make([]int, len(g))
		for i, p := range g {
			sizes[i] = p.Milli
		}
		slices.SortFunc(sizes, func(a, b int) int { return b - a })
		return sizes
	}
	groups := make([][]int, len(typed))
	for i, g := range typed {
		groups[i] = largestFirst(g)
	}
	anySizes := largestFirst(anyModel)
	return bestFitDecreasingTyped(groups, anySizes), firstFitDecreasingTyped(groups, anySizes), binPackingL2(largestFirst(all))
}

// bestFitDecreasingTyped packs each typed group (sorted largest first) by best-fit decreasing
// on GPUs of its own, then the fractions of any model by best-fit decreasing onto all of them
// and new ones; it returns the GPUs used.
func bestFitDecreasingTyped(typed [][]int, anyModel []int) int {
	var free [milliPerGPU + 1]int
	bins := 0
	for _, sizes := range typed {
		var own [milliPerGPU + 1]int
		bins += bestFitInto(&own, sizes)
		for f, k := range own {
			free[f] += k
		}
	}
	return bins + bestFitInto(&free, anyModel)
}

// firstFitDecreasingTyped is bestFitDecreasingTyped with first fit: the fractions of any model
// look at the typed GPUs in the order they were opened, then their own.
func firstFitDecreasingTyped(typed [][]int, anyModel []int) int {
	var room []int
	for _, sizes := range typed {
		room = append(room, firstFitInto(nil, sizes)...)
	}
	return len(firstFitInto(room, anyModel))
}

// bestFitDecreasing packs sizes (sorted largest first) into GPUs of 1,000, each onto the GPU it
// leaves the least room on; it returns the GPUs used.
func bestFitDecreasing(sizes []int) int {
	var free [milliPerGPU + 1]int
	return bestFitInto(&free, sizes)
}

// bestFitInto packs sizes (sorted largest first) by best fit onto the GPUs of free (counts of
// GPUs by their free thousandths, which take few values), opening GPUs as needed; it returns
// the GPUs it opened and leaves free holding all of them.
func bestFitInto(free *[milliPerGPU + 1]int, sizes []int) int {
	bins := 0
	for _, s := range sizes {
		f := s
		for f <= milliPerGPU && free[f] == 0 {
			f++
		}
		if f > milliPerGPU {
			bins++
			free[milliPerGPU-s]++
			continue
		}
		free[f]--
		free[f-s]++
	}
	return bins
}

// firstFitDecreasing packs sizes (sorted largest first) into GPUs of 1,000, each onto the first
// GPU, in opening order, with room; it returns the GPUs used.
func firstFitDecreasing(sizes []int) int { return len(firstFitInto(nil, sizes)) }

// firstFitInto packs sizes (sorted largest first) by first fit onto GPUs with the given room, in
// order, opening GPUs as needed; it returns the room of all of them.
func firstFitInto(room []int, sizes []int) []int {
	for _, s := range sizes {
		i := slices.IndexFunc(room, func(r int) bool { return r >= s })
		if i < 0 {
			room = append(room, milliPerGPU-s)
			continue
		}
		room[i] -= s
	}
	return room
}

// binPackingL2 is Martello and Toth's lower bound L2 for thousandths of a GPU.
func binPackingL2(sizes []int) int { return binPackingL2Cap(sizes, milliPerGPU) }

// binPackingL2Cap is Martello and Toth's lower bound L2 for sizes in bins of capacity c: items
// over half a bin each need their own, and the rest need at least the room those leave, for
// every threshold k ≤ c/2 below which items are left out.
func binPackingL2Cap(sizes []int, c int) int {
	total := 0
	for _, s := range sizes {
		total += s
	}
	best := ceilDiv(total, c)
	for _, k := range append(uniqueSmall(sizes, c), 0) {
		var big, mid, small, midRoom int // big: > c − k; mid: in (c/2, c − k]; small: in [k, c/2]
		for _, s := range sizes {
			switch {
			case s > c-k:
				big++
			case s > c/2:
				mid++
				midRoom += c - s
			case s >= k:
				small += s
			}
		}
		best = max(best, big+mid+max(0, ceilDiv(small-midRoom, c)))
	}
	return best
}

// uniqueSmall lists the distinct sizes of at most half a bin of capacity c.
func uniqueSmall(sizes []int, c int) []int {
	seen := map[int]bool{}
	var out []int
	for _, s := range sizes {
		if s <= c/2 && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// shareOverTime repacks the running requests at every start and end: the peak need (by the
// whole-GPU count) and GPU-hours of each way.
func shareOverTime(pods []SharePod, memCap int) (ShareNeed, int64, ShareHours) {
	type event struct {
		t     int64
		start bool
		i     int
	}
	var events []event
	for i, p := range pods {
		if p.End > p.Start {
			events = append(events, event{p.Start, true, i}, event{p.End, false, i})
		}
	}
	slices.SortFunc(events, func(a, b event) int {
		if a.t != b.t {
			return int(a.t - b.t)
		}
		if a.start != b.start { // ends first: a request that ends as another starts does not overlap it
			if a.start {
				return 1
			}
			return -1
		}
		return 0
	})
	running := map[int]bool{}
	var peak ShareNeed
	var peakAt int64
	var h ShareHours
	var cur ShareNeed
	for k := 0; k < len(events); {
		t := events[k].t
		for ; k < len(events) && events[k].t == t; k++ {
			if events[k].start {
				running[events[k].i] = true
			} else {
				delete(running, events[k].i)
			}
		}
		live := make([]SharePod, 0, len(running))
		for i := range running {
			live = append(live, pods[i])
		}
		cur, _, _ = shareNeed(live, memCap)
		if cur.Whole > peak.Whole {
			peak, peakAt = cur, t
		}
		if k < len(events) {
			dt := float64(events[k].t-t) / 3600
			h.NoSharing += float64(cur.Whole) * dt
			h.Fractional += float64(cur.Fractional) * dt
			h.FFD += float64(cur.FFD) * dt
			h.Bound += float64(cur.Bound) * dt
			h.MIG += float64(cur.MIG) * dt
		}
	}
	return peak, peakAt, h
}

func shareNotes(r ShareResult) []string {
	notes := []string{fmt.Sprintf("%d of %d pods request GPUs: %d a fraction of one, %d several whole GPUs.", r.GPUPods, r.Pods, r.Fractional, r.MultiGPU)}
	a := r.AllAtOnce
	migRounding := ""
	if r.Memory != nil {
		migRounding = " of compute and eighths of memory"
	}
	if a.Whole > 0 {
		notes = append(notes, fmt.Sprintf("All at once: fractional sharing (time-slicing or MPS) needs %d GPUs against %d without sharing (%.0f%% fewer), within %d of the lower bound %d; first-fit decreasing %d. MIG needs %d (bound %d): its profiles round each fraction up to sevenths%s.",
			a.Fractional, a.Whole, 100*(1-float64(a.Fractional)/float64(a.Whole)), a.Fractional-a.Bound, a.Bound, a.FFD, a.MIG, a.MIGBound, migRounding))
	}
	if r.NeverRan > 0 {
		notes = append(notes, fmt.Sprintf("%d GPU pods never ran (deletion no later than creation): counted all at once, left out of the peak and GPU-hours.", r.NeverRan))
	}
	if r.GPUHours.NoSharing > 0 {
		notes = append(notes, fmt.Sprintf("Over time, repacked at every start and end (migrating running requests, which time-slicing allows only by restarting them): %.0f GPU-hours without sharing, %.0f fractional, %.0f MIG; peak %d GPUs together, %.1f hours in.",
			r.GPUHours.NoSharing, r.GPUHours.Fractional, r.GPUHours.MIG, r.Peak.Whole, float64(r.PeakAt)/3600))
	}
	if r.Typed > 0 {
		notes = append(notes, fmt.Sprintf("%d GPU pods name the GPU models they may run on (gpu_spec): a fraction shares a GPU only with fractions of the same gpu_spec or of none — under time-slicing or MPS those of none fill the room the others leave; under MIG each gpu_spec, and the fractions of none, get GPUs of their own. The lower bounds ignore gpu_spec.", r.Typed))
	}
	if r.Openb {
		notes = append(notes, "For context, the FGD paper (Weng et al., USENIX ATC '23), replaying this trace on an emulated cluster of its 6,212 GPUs, reports Fragmentation Gradient Descent leaving up to 49% fewer GPUs unallocated than packing schedulers, about 290 more GPUs in use. That is a fixed cluster with per-node CPU and GPU limits scheduling pods as they come; these figures pack onto as many GPUs as needed, so the two measure different things.")
	}
	notes = append(notes, "Fractional sharing isolates no memory and no faults: MPS caps compute per client, time-slicing nothing; MIG isolates both.")
	return notes
}
