package plan

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gpucost/gpucost"
)

// MIG geometry, docs/architecture.md "Reference facts", MIG: a GPU has 7 compute slices and 8 memory
// slices; each profile shape may start only at the listed memory slices and covers a fixed
// number of them: {0..6}:1 (1g), {0,2,4,6}:2 (1g 2-slice), {0,2,4}:2 (2g), {0,4}:4 (3g),
// {0}:4 (4g), {0}:8 (7g).
const (
	migComputeSlices = 7
	migMemorySlices  = 8
	migKinds         = 6
	// migExactStates bounds the exact search: demand vectors with at most this many
	// sub-vectors are solved optimally, larger ones by first-fit decreasing.
	migExactStates = 1 << 18
)

// migShape is one profile shape: its compute slices, memory slices and allowed starts.
type migShape struct {
	compute, memory int
	starts          []int
}

// migShapes lists the shapes smallest first, the order in which a workload's profile is chosen.
var migShapes = [migKinds]migShape{
	{1, 1, []int{0, 1, 2, 3, 4, 5, 6}},
	{1, 2, []int{0, 2, 4, 6}},
	{2, 2, []int{0, 2, 4}},
	{3, 4, []int{0, 4}},
	{4, 4, []int{0}},
	{7, 8, []int{0}},
}

// migProfileTable holds each GPU's profile names in migShapes order (docs/architecture.md "MIG": A100-40
// 1g.5gb…7g.40gb, A100-80/H100-80 1g.10gb…7g.80gb, H100-94 1g.12gb…7g.94gb, H200
// 1g.18gb…7g.141gb; the names between are the catalog's, from NVIDIA's MIG user guide).
var migProfileTable = map[string][]string{
	"A100-40GB": {"1g.5gb", "1g.10gb", "2g.10gb", "3g.20gb", "4g.20gb", "7g.40gb"},
	"A100-80GB": {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"},
	"H100-80GB": {"1g.10gb", "1g.20gb", "2g.20gb", "3g.40gb", "4g.40gb", "7g.80gb"},
	"H100-94GB": {"1g.12gb", "1g.24gb", "2g.24gb", "3g.47gb", "4g.47gb", "7g.94gb"},
	"H200":      {"1g.18gb", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"},
}

// migAliases maps other common spellings (upper case) to a migProfileTable key.
var migAliases = map[string]string{
	"A100-40": "A100-40GB", "A100-80": "A100-80GB", "H100": "H100-80GB", "H100-80": "H100-80GB",
	"H100-SXM": "H100-80GB", "H100-PCIE": "H100-80GB", "H100-94": "H100-94GB",
	"H100-NVL": "H100-94GB", "H200-141GB": "H200", "H200-SXM": "H200", "H200-NVL": "H200",
}

// MIGWorkload is one serving workload to place on a MIG slice.
type MIGWorkload struct {
	Name         string  `json:"name"`
	MemoryGB     float64 `json:"memory_gb"`     // GPU memory it needs
	ComputeShare float64 `json:"compute_share"` // fraction of a whole GPU's compute, 0..1
}

// MIGInput is what PlanMIG packs: workloads onto one GPU model.
type MIGInput struct {
	GPU string `json:"gpu"` // A100-40GB, A100-80GB, H100-80GB, H100-94GB or H200
	// Profiles, when set, are the GPU's MIG profile names (catalog.Spec(GPU).MIG, e.g.
	// "1g.10gb" … "7g.80gb") and replace the built-in table, so any MIG GPU can be planned.
	Profiles  []string      `json:"profiles,omitempty"`
	Workloads []MIGWorkload `json:"workloads"`
}

// MIGProfile is one MIG profile of the planned GPU and where it may be placed.
type MIGProfile struct {
	Name          string  `json:"name"`
	ComputeSlices int     `json:"compute_slices"`
	MemorySlices  int     `json:"memory_slices"`
	MemoryGB      float64 `json:"memory_gb"`
	Starts        []int   `json:"starts"` // memory slices where an instance may start
}

// MIGInstance is one GPU instance of a layout, serving one workload.
type MIGInstance struct {
	Workload      string  `json:"workload"`
	Profile       string  `json:"profile"`
	Start         int     `json:"start"` // first memory slice, the MIG placement
	ComputeSlices int     `json:"compute_slices"`
	MemorySlices  int     `json:"memory_slices"`
	MemoryGB      float64 `json:"memory_gb"`
}

// MIGLayout is one GPU's valid MIG layout.
type MIGLayout struct {
	GPU                   int           `json:"gpu"`    // 0-based index
	Layout                string        `json:"layout"` // e.g. "3g.40gb@4 + 2g.20gb@0 + 2g.20gb@2"
	Instances             []MIGInstance `json:"instances"`
	FreeComputeSlices     int           `json:"free_compute_slices"`
	FreeMemorySlices      int           `json:"free_memory_slices"`
	StrandedComputeSlices int           `json:"stranded_compute_slices"` // free, but no profile can still use them
	StrandedMemorySlices  int           `json:"stranded_memory_slices"`
}

// MIGResult is the plan: layouts per GPU, GPUs needed against one whole GPU per workload, and
// the slices left stranded.
type MIGResult struct {
	GPU                   string       `json:"gpu"`
	Profiles              []MIGProfile `json:"profiles"`
	Workloads             int          `json:"workloads"`
	GPUs                  []MIGLayout  `json:"gpus"`
	GPUsNeeded            int          `json:"gpus_needed"`
	WholeGPUs             int          `json:"whole_gpus"` // whole-GPU serving: one GPU per workload
	GPUsSaved             int          `json:"gpus_saved"`
	SavedPercent          float64      `json:"saved_pct"`
	LowerBound            int          `json:"lower_bound"` // no packing needs fewer GPUs
	Method                string       `json:"method"`      // "exact" or "first-fit-decreasing"
	Optimal               bool         `json:"optimal"`     // proven: exact, or equal to LowerBound
	FreeComputeSlices     int          `json:"free_compute_slices"`
	FreeMemorySlices      int          `json:"free_memory_slices"`
	StrandedComputeSlices int          `json:"stranded_compute_slices"`
	StrandedMemorySlices  int          `json:"stranded_memory_slices"`
}

// PlanMIG gives each workload the smallest MIG profile that fits its memory and its compute
// share (rounded up to whole compute slices) and packs the instances onto as few GPUs as the
// placement rules allow: an exact search for small inputs, first-fit decreasing beyond.
func PlanMIG(in MIGInput) (MIGResult, error) {
	gpu, profiles, err := migProfiles(in)
	if err != nil {
		return MIGResult{}, err
	}
	if len(in.Workloads) == 0 {
		return MIGResult{}, gpucost.Errorf(gpucost.EInvalid,
			"plan mig: no workloads; give at least one (name, memory GB, compute share 0..1)")
	}
	kinds := make([]int, len(in.Workloads))
	var demand [migKinds]int
	for i, w := range in.Workloads {
		k, err := migChoose(gpu, profiles, i, w)
		if err != nil {
			return MIGResult{}, err
		}
		kinds[i] = k
		demand[k]++
	}
	bins, method := migPack(demand)
	res := MIGResult{GPU: gpu, Profiles: profiles, Workloads: len(in.Workloads),
		GPUsNeeded: len(bins), WholeGPUs: len(in.Workloads), LowerBound: migLowerBound(demand),
		Method: method}
	res.GPUsSaved = res.WholeGPUs - res.GPUsNeeded
	res.SavedPercent = 100 * float64(res.GPUsSaved) / float64(res.WholeGPUs)
	res.Optimal = method == "exact" || res.GPUsNeeded == res.LowerBound
	res.GPUs = migLayouts(bins, kinds, in.Workloads, profiles)
	for _, g := range res.GPUs {
		res.FreeComputeSlices += g.FreeComputeSlices
		res.FreeMemorySlices += g.FreeMemorySlices
		res.StrandedComputeSlices += g.StrandedComputeSlices
		res.StrandedMemorySlices += g.StrandedMemorySlices
	}
	return res, nil
}

// migProfiles resolves the GPU's six profiles from in.Profiles or the built-in table.
func migProfiles(in MIGInput) (string, []MIGProfile, error) {
	names := in.Profiles
	gpu := strings.TrimSpace(in.GPU)
	if len(names) == 0 {
		key := strings.ToUpper(gpu)
		if a, ok := migAliases[key]; ok {
			key = a
		}
		var ok bool
		if names, ok = migProfileTable[key]; !ok {
			known := make([]string, 0, len(migProfileTable))
			for k := range migProfileTable {
				known = append(known, k)
			}
			sort.Strings(known)
			return "", nil, gpucost.Errorf(gpucost.EInvalid,
				"plan mig: GPU %q has no known MIG profiles; use one of %s, or pass its profile names",
				in.GPU, strings.Join(known, ", "))
		}
		gpu = key
	}
	profiles, err := migParseProfiles(names)
	if err != nil {
		return "", nil, gpucost.Errorf(gpucost.EInvalid, "plan mig: profiles of GPU %q: %w", in.GPU, err)
	}
	return gpu, profiles, nil
}

// migParseProfiles maps names such as "3g.40gb" onto the six shapes. A profile's memory slices
// are its share of the whole-GPU (7g) profile's memory, in eighths.
func migParseProfiles(names []string) ([]MIGProfile, error) {
	type parsed struct {
		name    string
		compute int
		gb      float64
	}
	var ps []parsed
	total := 0.0
	for _, n := range names {
		c, gb, ok := strings.Cut(strings.ToLower(strings.TrimSpace(n)), "g.")
		ci, err1 := strconv.Atoi(c)
		gbf, err2 := strconv.ParseFloat(strings.TrimSuffix(gb, "gb"), 64)
		if !ok || err1 != nil || err2 != nil || !strings.HasSuffix(gb, "gb") || gbf <= 0 || math.IsInf(gbf, 0) {
			return nil, fmt.Errorf("%q is not a MIG profile name like 1g.10gb", n)
		}
		ps = append(ps, parsed{strings.TrimSpace(n), ci, gbf})
		if ci == migComputeSlices {
			total = gbf
		}
	}
	if total == 0 {
		return nil, fmt.Errorf("no whole-GPU 7g profile among %q", names)
	}
	out := make([]MIGProfile, migKinds)
	for _, p := range ps {
		mem := int(math.Round(p.gb * migMemorySlices / total))
		k := slices.IndexFunc(migShapes[:], func(s migShape) bool { return s.compute == p.compute && s.memory == mem })
		if k < 0 {
			return nil, fmt.Errorf("%s (%d compute, %d memory slices) is not a MIG shape", p.name, p.compute, mem)
		}
		out[k] = MIGProfile{Name: p.name, ComputeSlices: p.compute, MemorySlices: mem, MemoryGB: p.gb,
			Starts: slices.Clone(migShapes[k].starts)}
	}
	for k, p := range out {
		if p.Name == "" {
			return nil, fmt.Errorf("no %dg profile with %d memory slices among %q",
				migShapes[k].compute, migShapes[k].memory, names)
		}
	}
	return out, nil
}

// migChoose returns the smallest profile (a migShapes index) that fits w's memory and compute:
// compute share × 7 slices, rounded up, at least one slice.
func migChoose(gpu string, profiles []MIGProfile, i int, w MIGWorkload) (int, error) {
	bad := func(format string, args ...any) error {
		return gpucost.Errorf(gpucost.EInvalid, "plan mig: workload %d (%q): "+format,
			append([]any{i + 1, w.Name}, args...)...)
	}
	switch {
	case math.IsNaN(w.MemoryGB) || math.IsInf(w.MemoryGB, 0) || w.MemoryGB < 0:
		return 0, bad("memory %v GB is not a size; give GB ≥ 0", w.MemoryGB)
	case math.IsNaN(w.ComputeShare) || w.ComputeShare < 0:
		return 0, bad("compute share %v is not a share; give 0..1 of a whole GPU", w.ComputeShare)
	case w.ComputeShare > 1:
		return 0, bad("compute share %v is more than a whole GPU; MIG cannot span GPUs: serve it on whole GPUs or split it into replicas of at most 1", w.ComputeShare)
	}
	need := max(1, int(math.Ceil(w.ComputeShare*migComputeSlices-1e-9)))
	for k, p := range profiles {
		if p.ComputeSlices >= need && w.MemoryGB <= p.MemoryGB+1e-9 {
			return k, nil
		}
	}
	top := profiles[migKinds-1]
	return 0, bad("needs %v GB, more than %s's largest MIG profile %s (%v GB); use a GPU with more memory (H200: 7g.141gb) or serve it on whole GPUs",
		w.MemoryGB, gpu, top.Name, top.MemoryGB)
}

// migLowerBound is a bound no packing beats: total compute and memory slices, and profiles of
// four or more compute slices, which never share a GPU with each other.
func migLowerBound(d [migKinds]int) int {
	compute, memory := 0, 0
	for k, n := range d {
		compute += n * migShapes[k].compute
		memory += n * migShapes[k].memory
	}
	return max(ceilDiv(compute, migComputeSlices), ceilDiv(memory, migMemorySlices), d[4]+d[5])
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// migCounts is how many instances of each shape one GPU holds.
type migCounts [migKinds]int

// key packs counts into 3 bits per shape (at most 7 of any shape fit a GPU).
func (c migCounts) key() uint32 {
	var k uint32
	for i, n := range c {
		k |= uint32(n) << (3 * i)
	}
	return k
}

// migPlaced is one instance's shape and start memory slice.
type migPlaced struct{ kind, start int }

// migTable is every multiset of shapes that has a valid layout on one GPU, with the layout that
// leaves the most room, and the maximal multisets (used by the exact search).
type migTable struct {
	layouts map[uint32][]migPlaced
	maximal []migCounts
}

var migTableOnce = sync.OnceValue(buildMIGTable)

// migAllPlaced lists every (shape, start) placement, largest shapes first.
func migAllPlaced() []migPlaced {
	var all []migPlaced
	for k := migKinds - 1; k >= 0; k-- {
		for _, s := range migShapes[k].starts {
			all = append(all, migPlaced{k, s})
		}
	}
	return all
}

// mask is the set of memory slices p covers.
func (p migPlaced) mask() uint8 {
	return uint8((1<<migShapes[p.kind].memory - 1) << p.start)
}

// migEnum calls visit for every set of non-overlapping placements from all[from:] added to
// (mask, compute) that keeps within the 7 compute slices, the empty addition included.
func migEnum(all []migPlaced, from int, mask uint8, compute int, set []migPlaced,
	visit func(mask uint8, compute int, set []migPlaced)) {
	visit(mask, compute, set)
	for i := from; i < len(all); i++ {
		p := all[i]
		c := compute + migShapes[p.kind].compute
		if p.mask()&mask != 0 || c > migComputeSlices {
			continue
		}
		migEnum(all, i+1, mask|p.mask(), c, append(set, p), visit)
	}
}

// migRoom is how many more compute slices and, separately, memory slices valid placements can
// still use on a GPU whose layout covers mask and uses compute slices.
func migRoom(all []migPlaced, mask uint8, compute int) (addCompute, addMemory int) {
	migEnum(all, 0, mask, compute, nil, func(m uint8, c int, _ []migPlaced) {
		addCompute = max(addCompute, c-compute)
		addMemory = max(addMemory, bitsSet(m)-bitsSet(mask))
	})
	return addCompute, addMemory
}

func bitsSet(m uint8) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// buildMIGTable enumerates every valid layout once and keeps, per multiset of shapes, the
// layout with the most room left (fewest stranded slices), ties to the first found.
func buildMIGTable() *migTable {
	all := migAllPlaced()
	t := &migTable{layouts: map[uint32][]migPlaced{}}
	type score struct{ compute, memory int }
	best := map[uint32]score{}
	migEnum(all, 0, 0, 0, nil, func(mask uint8, compute int, set []migPlaced) {
		var c migCounts
		for _, p := range set {
			c[p.kind]++
		}
		ac, am := migRoom(all, mask, compute)
		k := c.key()
		if b, ok := best[k]; ok && (b.compute > ac || b.compute == ac && b.memory >= am) {
			return
		}
		best[k] = score{ac, am}
		t.layouts[k] = slices.Clone(set)
	})
	for _, set := range t.layouts {
		var c migCounts
		for _, p := range set {
			c[p.kind]++
		}
		if !t.canAddAny(c) {
			t.maximal = append(t.maximal, c)
		}
	}
	slices.SortFunc(t.maximal, func(a, b migCounts) int { return int(b.key()) - int(a.key()) })
	return t
}

// fits reports whether counts c have a valid layout on one GPU.
func (t *migTable) fits(c migCounts) bool {
	if slices.Max(c[:]) > migComputeSlices {
		return false // would overflow key's 3 bits; no shape fits 8 times anyway
	}
	_, ok := t.layouts[c.key()]
	return ok
}

func (t *migTable) canAddAny(c migCounts) bool {
	for k := range c {
		c[k]++
		ok := t.fits(c)
		c[k]--
		if ok {
			return true
		}
	}
	return false
}

// migPack packs demand (instances per shape) onto the fewest GPUs it can find.
func migPack(d [migKinds]int) ([]migCounts, string) {
	states := 1
	for _, n := range d {
		states *= n + 1
		if states > migExactStates {
			return migFFD(d), "first-fit-decreasing"
		}
	}
	return migExact(d), "exact"
}

// migExact finds the fewest GPUs by dynamic programming over the remaining demand vector:
// best(d) = 1 + min over maximal layouts c of best(d − min(c, d)). Sub-layouts of a valid
// layout are valid, so the maximal ones suffice.
func migExact(d [migKinds]int) []migCounts {
	t := migTableOnce()
	var radix [migKinds]int
	n := 1
	for k := range d {
		radix[k] = n
		n *= d[k] + 1
	}
	best := make([]int32, n)
	choice := make([]int16, n)
	for idx := 1; idx < n; idx++ {
		var cur [migKinds]int
		for k := range d {
			cur[k] = idx / radix[k] % (d[k] + 1)
		}
		best[idx] = math.MaxInt32
		for ci, c := range t.maximal {
			rest := idx
			for k := range d {
				rest -= min(c[k], cur[k]) * radix[k]
			}
			if rest != idx && best[rest]+1 < best[idx] {
				best[idx], choice[idx] = best[rest]+1, int16(ci)
			}
		}
	}
	var bins []migCounts
	for idx := n - 1; idx > 0; {
		c := t.maximal[choice[idx]]
		var used migCounts
		for k := range d {
			used[k] = min(c[k], idx/radix[k]%(d[k]+1))
			idx -= used[k] * radix[k]
		}
		bins = append(bins, used)
	}
	return bins
}

// migFFD places instances largest shape first, each on the first GPU whose multiset still has
// a valid layout with it. A GPU that refused a shape refuses it for good (counts only grow), so
// each shape's scan resumes where the last one stopped.
func migFFD(d [migKinds]int) []migCounts {
	t := migTableOnce()
	var bins []migCounts
	for k := migKinds - 1; k >= 0; k-- {
		next := 0
		for range d[k] {
			for next < len(bins) {
				bins[next][k]++
				if t.fits(bins[next]) {
					break
				}
				bins[next][k]--
				next++
			}
			if next == len(bins) {
				var c migCounts
				c[k] = 1
				bins = append(bins, c)
			}
		}
	}
	return bins
}

// migLayouts places each GPU's instances and gives them workloads in input order.
func migLayouts(bins []migCounts, kinds []int, ws []MIGWorkload, profiles []MIGProfile) []MIGLayout {
	t := migTableOnce()
	all := migAllPlaced()
	var queue [migKinds][]int
	for i, k := range kinds {
		queue[k] = append(queue[k], i)
	}
	out := make([]MIGLayout, len(bins))
	for g, c := range bins {
		set := slices.Clone(t.layouts[c.key()])
		slices.SortFunc(set, func(a, b migPlaced) int { return a.start - b.start })
		l := MIGLayout{GPU: g}
		var mask uint8
		compute := 0
		var parts []string
		for _, p := range set {
			i := queue[p.kind][0]
			queue[p.kind] = queue[p.kind][1:]
			pr := profiles[p.kind]
			l.Instances = append(l.Instances, MIGInstance{Workload: ws[i].Name, Profile: pr.Name,
				Start: p.start, ComputeSlices: pr.ComputeSlices, MemorySlices: pr.MemorySlices,
				MemoryGB: pr.MemoryGB})
			parts = append(parts, fmt.Sprintf("%s@%d", pr.Name, p.start))
			mask |= p.mask()
			compute += pr.ComputeSlices
		}
		l.Layout = strings.Join(parts, " + ")
		l.FreeComputeSlices = migComputeSlices - compute
		l.FreeMemorySlices = migMemorySlices - bitsSet(mask)
		ac, am := migRoom(all, mask, compute)
		l.StrandedComputeSlices = l.FreeComputeSlices - ac
		l.StrandedMemorySlices = l.FreeMemorySlices - am
		out[g] = l
	}
	return out
}
