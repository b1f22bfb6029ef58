package gpucost

import "time"

// CostLine is one line of a cloud bill in FOCUS terms (the FinOps Open Cost and Usage
// Specification): what was charged, for which resource and period, at which prices. Readers of
// every bill format (FOCUS, AWS CUR 2.0, GCP and Azure exports) produce CostLines; amounts are
// exact and in BillingCurrency.
type CostLine struct {
	Provider           string // ProviderName: "AWS", "Microsoft", "Google Cloud", …
	BillingAccountID   string
	SubAccountID       string // the AWS account, Azure subscription, GCP project
	BillingPeriodStart time.Time
	ChargePeriodStart  time.Time
	ChargePeriodEnd    time.Time

	ChargeCategory  string // Usage, Purchase, Tax, Credit, Adjustment
	ChargeClass     string // "Correction" or empty
	ChargeFrequency string // One-Time, Recurring, Usage-Based
	PricingCategory string // Standard (on-demand), Dynamic (spot), Committed, Other; empty if not given

	BilledCost     Money // what the invoice charges for the line
	EffectiveCost  Money // amortised: commitment purchases spread over the usage they cover
	ListCost       Money // at public list prices
	ContractedCost Money // at negotiated prices

	CommitmentDiscountID       string // the reservation or savings plan
	CommitmentDiscountStatus   string // Used or Unused
	CommitmentDiscountType     string
	CommitmentDiscountCategory string // Spend or Usage

	ResourceID        string
	ResourceName      string
	ResourceType      string
	InstanceType      string // the compute instance type where the source names one (CUR product_instance_type, …)
	ServiceName       string
	ServiceCategory   string
	RegionID          string
	AvailabilityZone  string
	SkuID             string
	SkuPriceID        string
	ChargeDescription string

	ConsumedQuantity float64
	ConsumedUnit     string
	PricingQuantity  float64
	PricingUnit      string

	Tags  Labels            // resource tags and labels, keys as the provider wrote them
	Extra map[string]string // columns outside the spec (x_ columns), kept by name

	Line int // the source line (CSV) or row (Parquet, 1-based), for messages
	Rows int // for a stored line: the source lines summed into it at import
}

// BillingCurrency returns the currency of the line's amounts.
func (c *CostLine) BillingCurrency() string { return c.BilledCost.currency() }

// Owner is who a share of cost is charged to. Team and Project come from telemetry labels or,
// failing those, from the resource's tags; Namespace, Pod and Job from telemetry labels.
type Owner struct {
	Team      string `json:"team,omitempty"`
	Project   string `json:"project,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	Pod       string `json:"pod,omitempty"`
	Job       string `json:"job,omitempty"`
}

// Allocation policies: how a resource's cost is split between the users of its GPUs.
const (
	PolicyRequested = "requested" // by GPU time held (MIG slices, time-sliced shares)
	PolicyUsed      = "used"      // by GPU time used: held time × utilisation
	PolicyWeighted  = "weighted"  // a blend of the two
	PolicyTags      = "tags"      // no telemetry: the whole cost to the owner the resource's tags name
)

// Allocation is the share of one resource's cost over one charge period that is charged to one
// owner, or, with Idle set, the share of its GPU capacity nobody used. The allocations of a
// resource and period, idle included, add up to its cost exactly.
type Allocation struct {
	Start, End time.Time
	ResourceID string
	Line       *CostLine // the cost line allocated; valid only while the allocation is

	Owner  Owner
	Idle   bool   // capacity nobody used; Owner then holds the resource's tag owner
	Policy string // PolicyRequested, PolicyUsed, PolicyWeighted or PolicyTags

	GPUHours     float64 // GPU time charged for (held time for requested, used time for used)
	UsedGPUHours float64 // GPU time busy: held time × utilisation

	BilledCost    Money
	EffectiveCost Money
}
