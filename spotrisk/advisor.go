package spotrisk

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// AdvisorURL is where AWS publishes the Spot Instance Advisor's data.
const AdvisorURL = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"

// SettingAdvisor is the store setting that keeps the advisor data last imported, in the JSON
// of Advisor.
const SettingAdvisor = "spotrisk.aws_spot_advisor"

// Bucket is one of the Spot Instance Advisor's interruption frequency ranges: the share of a
// pool's spot instances AWS reclaimed over the trailing month, from LowPct to HighPct percent.
type Bucket struct {
	Index   int     `json:"index"`
	Label   string  `json:"label"` // as published: "<5%", "5-10%" … ">20%"
	LowPct  float64 `json:"low_pct"`
	HighPct float64 `json:"high_pct"`
	Open    bool    `json:"open,omitempty"` // the top bucket, whose upper end says nothing
}

// MonthlyFraction is the bucket's representative share interrupted in a month: the middle of
// its range, or for the open top bucket its lower end, the least it says.
func (b Bucket) MonthlyFraction() float64 {
	if b.Open {
		return b.LowPct / 100
	}
	return (b.LowPct + b.HighPct) / 200
}

// PerHour is the bucket's representative rate in interruptions per instance-hour.
func (b Bucket) PerHour() float64 { return MonthlyToHourly(b.MonthlyFraction()) }

// RangePerHour is the bucket's range as rates per instance-hour; the open bucket's high is +Inf.
func (b Bucket) RangePerHour() (low, high float64) {
	return MonthlyToHourly(b.LowPct / 100), MonthlyToHourly(b.HighPct / 100)
}

// AdvisorEntry is one pool of the advisor: its bucket and the saving of spot against on-demand.
type AdvisorEntry struct {
	Bucket     int `json:"r"` // index into Advisor.Buckets
	SavingsPct int `json:"s"`
}

// Advisor is the Spot Instance Advisor's data for Linux instances: each region's instance types
// and their buckets. The advisor has no zones: its figures are the region's.
type Advisor struct {
	Buckets []Bucket                           `json:"buckets"`
	Regions map[string]map[string]AdvisorEntry `json:"regions"` // region → instance type → entry
	Source  string                             `json:"source,omitempty"`
}

// advisorRange is one interruption frequency range of the published file: up to Max percent.
type advisorRange struct {
	Index int    `json:"index"`
	Label string `json:"label"`
	Dots  int    `json:"dots"`
	Max   int    `json:"max"`
}

// advisorFile is the published file's layout (AdvisorURL).
type advisorFile struct {
	Ranges        []advisorRange `json:"ranges"`
	InstanceTypes map[string]struct {
		EMR   bool    `json:"emr"`
		Cores int     `json:"cores"`
		RAMGB float64 `json:"ram_gb"`
	} `json:"instance_types"`
	SpotAdvisor map[string]map[string]map[string]AdvisorEntry `json:"spot_advisor"` // region → OS → type
}

// ParseAdvisor reads the Spot Instance Advisor's published JSON (spot-advisor-data.json) from r;
// name says in errors where it came from. It keeps the Linux entries.
func ParseAdvisor(r io.Reader, name string) (*Advisor, error) {
	var f advisorFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read spot advisor data %s: %w; give the file at %s", name, err, AdvisorURL)
	}
	if len(f.Ranges) == 0 || len(f.SpotAdvisor) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read spot advisor data %s: no \"ranges\" or \"spot_advisor\"; give the file at %s", name, AdvisorURL)
	}
	ranges := slices.Clone(f.Ranges)
	slices.SortFunc(ranges, func(a, b advisorRange) int { return a.Max - b.Max })
	a := &Advisor{Regions: map[string]map[string]AdvisorEntry{}, Source: name}
	byIndex := map[int]int{}
	low := 0
	for i, rg := range ranges {
		if rg.Max <= low && i > 0 {
			return nil, gpucost.Errorf(gpucost.EInvalid, "read spot advisor data %s: range %q repeats max %d", name, rg.Label, rg.Max)
		}
		b := Bucket{Index: rg.Index, Label: rg.Label, LowPct: float64(low), HighPct: float64(rg.Max),
			Open: i == len(ranges)-1 && strings.HasPrefix(rg.Label, ">")}
		byIndex[rg.Index] = len(a.Buckets)
		a.Buckets = append(a.Buckets, b)
		low = rg.Max
	}
	for region, oses := range f.SpotAdvisor {
		for typ, e := range oses["Linux"] {
			i, ok := byIndex[e.Bucket]
			if !ok {
				return nil, gpucost.Errorf(gpucost.EInvalid, "read spot advisor data %s: %s %s has range %d, which \"ranges\" lacks", name, region, typ, e.Bucket)
			}
			if a.Regions[region] == nil {
				a.Regions[region] = map[string]AdvisorEntry{}
			}
			a.Regions[region][typ] = AdvisorEntry{Bucket: i, SavingsPct: e.SavingsPct}
		}
	}
	if len(a.Regions) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read spot advisor data %s: no Linux entries", name)
	}
	return a, nil
}

// Lookup returns the bucket and spot saving of instance type typ in region, with false where the
// advisor has none (a nil Advisor has none).
func (a *Advisor) Lookup(region, typ string) (Bucket, int, bool) {
	if a == nil {
		return Bucket{}, 0, false
	}
	e, ok := a.Regions[region][typ]
	if !ok || e.Bucket < 0 || e.Bucket >= len(a.Buckets) {
		return Bucket{}, 0, false
	}
	return a.Buckets[e.Bucket], e.SavingsPct, true
}

// Pools counts the advisor's (region, instance type) entries.
func (a *Advisor) Pools() int {
	n := 0
	for _, types := range a.Regions {
		n += len(types)
	}
	return n
}

// Encode returns the advisor as the JSON kept in SettingAdvisor.
func (a *Advisor) Encode() (string, error) {
	b, err := json.Marshal(a)
	if err != nil {
		return "", fmt.Errorf("encode spot advisor data: %w", err)
	}
	return string(b), nil
}

// DecodeAdvisor reads what Encode wrote; an empty string is no advisor (nil, nil).
func DecodeAdvisor(s string) (*Advisor, error) {
	if s == "" {
		return nil, nil
	}
	var a Advisor
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "stored spot advisor data: %w; import it again with catalog import --format aws-spot-advisor", err)
	}
	return &a, nil
}
