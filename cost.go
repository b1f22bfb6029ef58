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
}

// BillingCurrency returns the currency of the line's amounts.
func (c *CostLine) BillingCurrency() string { return c.BilledCost.currency() }
