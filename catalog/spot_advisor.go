package catalog

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// SpotAdvisorURL is where AWS publishes the Spot Instance Advisor's data.
const SpotAdvisorURL = "https://spot-bid-advisor.s3.amazonaws.com/spot-advisor-data.json"

// SettingSpotAdvisor is the store setting that keeps the advisor data last imported, in the JSON
// of SpotAdvisor.
const SettingSpotAdvisor = "catalog.aws_spot_advisor"

// FormatAWSSpotAdvisor is the catalog import format of the Spot Instance Advisor's JSON.
const FormatAWSSpotAdvisor = "aws-spot-advisor"

// SpotBucket is one of the Spot Instance Advisor's interruption frequency ranges: the share of a
// pool's spot instances AWS reclaimed over the trailing month, from LowPct to HighPct percent.
type SpotBucket struct {
	Index   int     `json:"index"`
	Label   string  `json:"label"` // as published: "<5%", "5-10%" … ">20%"
	LowPct  float64 `json:"low_pct"`
	HighPct float64 `json:"high_pct"`
	Open    bool    `json:"open,omitempty"` // the top bucket, whose upper end says nothing
}

// MonthlyFraction is the bucket's representative share interrupted in a month: the middle of
// its range, or for the open top bucket its lower end, the least it says.
func (b SpotBucket) MonthlyFraction() float64 {
	if b.Open {
		return b.LowPct / 100
	}
	return (b.LowPct + b.HighPct) / 200
}

// PerHour is the bucket's representative rate in interruptions per instance-hour.
func (b SpotBucket) PerHour() float64 { return MonthlyToHourly(b.MonthlyFraction()) }

// RangePerHour is the bucket's range as rates per instance-hour; the open bucket's high is +Inf.
func (b SpotBucket) RangePerHour() (low, high float64) {
	return MonthlyToHourly(b.LowPct / 100), MonthlyToHourly(b.HighPct / 100)
}

// SpotAdvisorEntry is one pool of the advisor: its bucket and the saving of spot against on-demand.
type SpotAdvisorEntry struct {
	Bucket     int `json:"r"` // index into SpotAdvisor.Buckets
	SavingsPct int `json:"s"`
}

// SpotAdvisor is the Spot Instance Advisor's data for Linux instances: each region's instance types
// and their buckets. The advisor has no zones: its figures are the region's.
type SpotAdvisor struct {
	Buckets []SpotBucket                           `json:"buckets"`
	Regions map[string]map[string]SpotAdvisorEntry `json:"regions"` // region → instance type → entry
	Source  string                                 `json:"source,omitempty"`
}

// spotAdvisorRange is one interruption frequency range of the published file: up to Max percent.
type spotAdvisorRange struct {
	Index int    `json:"index"`
	Label string `json:"label"`
	Dots  int    `json:"dots"`
	Max   int    `json:"max"`
}

// spotAdvisorFile is the published file's layout (SpotAdvisorURL).
type spotAdvisorFile struct {
	Ranges        []spotAdvisorRange `json:"ranges"`
	InstanceTypes map[string]struct {
		EMR   bool    `json:"emr"`
		Cores int     `json:"cores"`
		RAMGB float64 `json:"ram_gb"`
	} `json:"instance_types"`
	SpotAdvisor map[string]map[string]map[string]SpotAdvisorEntry `json:"spot_advisor"` // region → OS → type
}

// ParseSpotAdvisor reads the Spot Instance Advisor's published JSON (spot-advisor-data.json) from r;
// name says in errors where it came from. It keeps the Linux entries.
func ParseSpotAdvisor(r io.Reader, name string) (*SpotAdvisor, error) {
	var f spotAdvisorFile
	if err := json.NewDecoder(r).Decode(&f); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read spot advisor data %s: %w; give the file at %s", name, err, SpotAdvisorURL)
	}
	if len(f.Ranges) == 0 || len(f.SpotAdvisor) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read spot advisor data %s: no \"ranges\" or \"spot_advisor\"; give the file at %s", name, SpotAdvisorURL)
	}
	ranges := slices.Clone(f.Ranges)
	slices.SortFunc(ranges, func(a, b spotAdvisorRange) int { return a.Max - b.Max })
	a := &SpotAdvisor{Regions: map[string]map[string]SpotAdvisorEntry{}, Source: name}
	byIndex := map[int]int{}
	low := 0
	for i, rg := range ranges {
		if rg.Max <= low && i > 0 {
			return nil, gpucost.Errorf(gpucost.EInvalid, "read spot advisor data %s: range %q repeats max %d", name, rg.Label, rg.Max)
		}
		b := SpotBucket{Index: rg.Index, Label: rg.Label, LowPct: float64(low), HighPct: float64(rg.Max),
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
				a.Regions[region] = map[string]SpotAdvisorEntry{}
			}
			a.Regions[region][typ] = SpotAdvisorEntry{Bucket: i, SavingsPct: e.SavingsPct}
		}
	}
	if len(a.Regions) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read spot advisor data %s: no Linux entries", name)
	}
	return a, nil
}

// Lookup returns the bucket and spot saving of instance type typ in region, with false where the
// advisor has none (a nil SpotAdvisor has none).
func (a *SpotAdvisor) Lookup(region, typ string) (SpotBucket, int, bool) {
	if a == nil {
		return SpotBucket{}, 0, false
	}
	e, ok := a.Regions[region][typ]
	if !ok || e.Bucket < 0 || e.Bucket >= len(a.Buckets) {
		return SpotBucket{}, 0, false
	}
	return a.Buckets[e.Bucket], e.SavingsPct, true
}

// Pools counts the advisor's (region, instance type) entries.
func (a *SpotAdvisor) Pools() int {
	n := 0
	for _, types := range a.Regions {
		n += len(types)
	}
	return n
}

// Encode returns the advisor as the JSON kept in SettingSpotAdvisor.
func (a *SpotAdvisor) Encode() (string, error) {
	b, err := json.Marshal(a)
	if err != nil {
		return "", fmt.Errorf("encode spot advisor data: %w", err)
	}
	return string(b), nil
}

// DecodeSpotAdvisor reads what Encode wrote; an empty string is no advisor (nil, nil).
func DecodeSpotAdvisor(s string) (*SpotAdvisor, error) {
	if s == "" {
		return nil, nil
	}
	var a SpotAdvisor
	if err := json.Unmarshal([]byte(s), &a); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "stored spot advisor data: %w; import it again with catalog import --format aws-spot-advisor FILE", err)
	}
	return &a, nil
}

// MonthlyToHourly turns the fraction p of instances interrupted over a month (the Spot
// Instance Advisor's measure) into a Poisson rate per instance-hour: an instance survives a
// month of HoursPerMonth (730) hours with probability 1 − p = e^(−λ·730).
func MonthlyToHourly(p float64) float64 {
	if p <= 0 {
		return 0
	}
	if p >= 1 {
		return math.Inf(1)
	}
	return -math.Log1p(-p) / HoursPerMonth
}

// ReadSpotAdvisorFile reads the Spot Instance Advisor's JSON from the file at path.
func ReadSpotAdvisorFile(path string) (*SpotAdvisor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "import %s: %w; download it from %s", path, err, SpotAdvisorURL)
	}
	defer f.Close()
	return ParseSpotAdvisor(f, path)
}
