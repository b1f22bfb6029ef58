package awscur

import (
	"strings"
	"time"
	"unsafe"

	"github.com/gpucost/gpucost"
)

// rec is one CUR row, parsed: the values the mapping onto a CostLine reads. Absent columns leave
// strings empty and amounts not had. The strings, times and amounts are where the reader keeps
// them (a CSV row's arrays, a Parquet batch's row), so that a Parquet row costs no copy of them.
type rec struct {
	str   *[numStrings]string
	times *[numTimes]time.Time
	usage float64
	amt   *[numAmounts]int64
	has   *[numAmounts]bool
	tags  gpucost.Labels
	extra map[string]string
	line  int

	recent recent
}

// recent remembers the classes of the line item types and the spot reading of the usage types
// seen last, in small direct-mapped tables indexed by the strings' addresses: the strings are
// interned, so a row costs an address and a comparison (of equal pointers) instead of a map
// look-up and a substring search.
type recent struct {
	class [16]struct {
		t  string
		cl lineClass
		ok bool
	}
	spot [64]struct {
		usageType string
		spot, ok  bool
	}
}

// slot picks a slot of a table of n (a power of two) for string s.
func slot(s string, n int) int {
	a := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	return int((a>>4 ^ a>>12) & uintptr(n-1))
}

func (r *rec) amount(f field) (int64, bool) {
	i := f - aUnblended
	return r.amt[i], r.has[i]
}

// nanos returns the amount of f, zero when the cell was empty or the column absent.
func (r *rec) nanos(f field) int64 { return r.amt[f-aUnblended] }

// net reports whether the row carries the negotiated-discount ("net") columns. AWS fills
// line_item_net_unblended_cost only for accounts with discounts (Lineitem columns,
// docs.aws.amazon.com/cur/latest/userguide/Lineitem-columns.html).
func (r *rec) net() bool {
	_, ok := r.amount(aNetUnblended)
	return ok
}

// billed is BilledCost: line_item_net_unblended_cost where the row has it, else
// line_item_unblended_cost — the rule of the FinOps Foundation's CUR→FOCUS converter
// (finopsfoundation/focus_converters, conversion_configs/aws/billed_cost_S001.yaml).
func (r *rec) billed() int64 {
	if n, ok := r.amount(aNetUnblended); ok {
		return n
	}
	return r.nanos(aUnblended)
}

// pick returns the net variant of an amount on rows with net columns, when the row has it.
func (r *rec) pick(gross, net field) (int64, bool) {
	if r.net() {
		if n, ok := r.amount(net); ok {
			return n, true
		}
	}
	return r.amount(gross)
}

// effective is EffectiveCost, the amortised cost, by line item type as the FinOps Foundation's
// converter computes it (conversion_configs/aws/effective_cost_S001.yaml): covered usage carries
// the commitment's effective cost; the recurring fees carry only their unused part; the
// negation and the upfront fees, amortised into covered usage, carry nothing; everything else
// costs what it bills. On rows with net columns the net variants are used where AWS has them.
// When a file lacks the amortisation columns a line costs what it bills, so totals stay whole.
func (r *rec) effective() int64 {
	billed := r.billed()
	switch r.str[fLineItemType] {
	case "SavingsPlanCoveredUsage":
		if n, ok := r.pick(aSPEffective, aSPNetEffective); ok {
			return n
		}
	case "SavingsPlanRecurringFee":
		total, ok1 := r.amount(aSPTotalCommit)
		used, ok2 := r.amount(aSPUsedCommit)
		if ok1 || ok2 {
			return total - used
		}
	case "SavingsPlanNegation", "SavingsPlanUpfrontFee":
		return 0
	case "DiscountedUsage":
		if n, ok := r.pick(aRIEffective, aRINetEffective); ok {
			return n
		}
	case "RIFee":
		upfront, ok1 := r.pick(aRIUnusedUpfront, aRINetUnusedUpfront)
		recurring, ok2 := r.pick(aRIUnusedRecurring, aRINetUnusedRecurring)
		if ok1 || ok2 {
			return upfront + recurring
		}
	case "Fee":
		if r.str[fRIArn] != "" { // a reservation's upfront fee, amortised into DiscountedUsage
			return 0
		}
	}
	return billed
}

// contracted is ContractedCost, the cost at the account's negotiated prices before commitment
// discounts. CUR carries no contracted price: it is the billed cost, except for RI-covered usage
// (billed at zero; its on-demand equivalent is pricing_public_on_demand_cost) and the Savings Plan
// negation (a commitment discount, which FOCUS keeps out of ContractedCost).
func (r *rec) contracted() int64 {
	switch r.str[fLineItemType] {
	case "DiscountedUsage":
		return r.nanos(aPublicOnDemand)
	case "SavingsPlanNegation":
		return 0
	}
	return r.billed()
}

// lineClass is the FOCUS reading of one line item type.
type lineClass struct {
	category  string // ChargeCategory
	frequency string // ChargeFrequency; empty: from bill_bill_type
	pricing   string // PricingCategory; "spot?" for usage that may be spot
	status    string // CommitmentDiscountStatus
	consumed  bool   // the usage amount is a consumed quantity
}

// classes maps line_item_line_item_type to FOCUS columns. ChargeCategory follows the FinOps
// Foundation's converter (conversion_configs/aws/1_charge_category_S001.yaml) except that credits
// are "Credit", the FOCUS 1.0 value AWS's own FOCUS export uses (focus_sample.csv: a credit line
// is Credit / Other / One-Time); a refund, whose category is that of what it refunds and which CUR
// does not name, is "Adjustment". Covered usage and fees of commitments are Committed, their
// status Used on covered usage and the negation, Unused on the recurring fees (whose
// EffectiveCost is the unused part). Tax has no PricingCategory, as FOCUS requires.
var classes = map[string]lineClass{
	"Usage":                   {"Usage", "Usage-Based", "spot?", "", true},
	"DiscountedUsage":         {"Usage", "Usage-Based", "Committed", "Used", true},
	"SavingsPlanCoveredUsage": {"Usage", "Usage-Based", "Committed", "Used", true},
	"SavingsPlanNegation":     {"Usage", "Usage-Based", "Committed", "Used", false},
	"RIFee":                   {"Purchase", "Recurring", "Committed", "Unused", false},
	"SavingsPlanRecurringFee": {"Purchase", "Recurring", "Committed", "Unused", false},
	"SavingsPlanUpfrontFee":   {"Purchase", "One-Time", "Committed", "", false},
	"Fee":                     {"Purchase", "", "Standard", "", false},
	"Tax":                     {"Tax", "", "", "", false},
	"Credit":                  {"Credit", "One-Time", "Other", "", false},
	"Refund":                  {"Adjustment", "One-Time", "Other", "", false},
	"BundledDiscount":         {"Usage", "Usage-Based", "Other", "", false},
	"EdpDiscount":             {"Usage", "Usage-Based", "Other", "", false},
	"PrivateRateDiscount":     {"Usage", "Usage-Based", "Other", "", false},
	"DistributorDiscount":     {"Usage", "Usage-Based", "Other", "", false},
	"Discount":                {"Usage", "Usage-Based", "Other", "", false},
}

// otherClass is the class of line item types AWS adds later.
var otherClass = lineClass{"Adjustment", "", "Other", "", false}

// class returns the FOCUS reading of the row's line item type.
func (r *rec) class() *lineClass {
	t := r.str[fLineItemType]
	e := &r.recent.class[slot(t, len(r.recent.class))]
	if e.ok && e.t == t {
		return &e.cl
	}
	cl, ok := classes[t]
	if !ok {
		cl = otherClass
	}
	e.t, e.cl, e.ok = t, cl, true
	return &e.cl
}

// fill writes the row onto c, overwriting every field.
func (r *rec) fill(c *gpucost.CostLine) {
	cur := r.str[fCurrency]
	money := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: cur} }
	cl := r.class()
	pricing := r.pricing(cl)
	if r.str[fLineItemType] == "Fee" && r.str[fRIArn] != "" {
		pricing = "Committed"
	}
	// Set in place, field by field, after zeroing: a composite literal is built on the stack and
	// copied, 600-odd bytes a row twice.
	*c = gpucost.CostLine{}
	c.Provider = "AWS"
	c.BillingAccountID, c.SubAccountID = r.str[fPayer], r.str[fUsageAccount]
	c.BillingPeriodStart = r.times[tBillStart-tBillStart]
	c.ChargePeriodStart, c.ChargePeriodEnd = r.times[tStart-tBillStart], r.times[tEnd-tBillStart]
	c.ChargeCategory, c.ChargeFrequency, c.PricingCategory = cl.category, r.frequency(cl), pricing
	c.BilledCost, c.EffectiveCost = money(r.billed()), money(r.effective())
	c.ListCost, c.ContractedCost = money(r.nanos(aPublicOnDemand)), money(r.contracted())
	c.ResourceID, c.ResourceType = r.str[fResourceID], resourceType(r.str[fResourceID])
	c.InstanceType, c.ServiceName = r.instanceType(), r.serviceName()
	c.RegionID, c.AvailabilityZone = r.str[fRegionCode], r.str[fAZ]
	c.SkuID, c.SkuPriceID = r.str[fSku], r.str[fRateCode]
	c.ChargeDescription = r.str[fDescription]
	c.PricingQuantity, c.PricingUnit = r.usage, r.str[fPricingUnit]
	c.Tags, c.Extra = r.tags, r.extra
	c.Line = r.line
	if cl.consumed {
		c.ConsumedQuantity, c.ConsumedUnit = r.usage, r.str[fPricingUnit]
	}
	r.commitment(c, cl)
}

// commitment sets the CommitmentDiscount columns from the Savings Plan or reservation ARN, as the
// FinOps Foundation's converter does (commitment_discount_category_S001.yaml: Spend for Savings
// Plans, Usage for reservations).
func (r *rec) commitment(c *gpucost.CostLine, cl *lineClass) {
	switch {
	case r.str[fSPArn] != "":
		c.CommitmentDiscountID = r.str[fSPArn]
		c.CommitmentDiscountType, c.CommitmentDiscountCategory = "Savings Plan", "Spend"
	case r.str[fRIArn] != "":
		c.CommitmentDiscountID = r.str[fRIArn]
		c.CommitmentDiscountType, c.CommitmentDiscountCategory = "Reserved Instance", "Usage"
	default:
		return
	}
	c.CommitmentDiscountStatus = cl.status
}

// frequency is ChargeFrequency: by line type where it tells, else by bill_bill_type as the
// FinOps Foundation's converter maps it (charge_frequency_S001.yaml: Anniversary → Recurring,
// Purchase and Refund → One-Time).
func (r *rec) frequency(cl *lineClass) string {
	if cl.frequency != "" {
		return cl.frequency
	}
	switch r.str[fBillType] {
	case "Anniversary":
		return "Recurring"
	case "Purchase", "Refund":
		return "One-Time"
	}
	if cl.category == "Tax" {
		return "Recurring"
	}
	return "One-Time"
}

// pricing is PricingCategory. Usage is Dynamic when it is spot: the usage type names SpotUsage
// (the AWS Well-Architected CUR query library tests line_item_usage_type LIKE '%SpotUsage%'), or
// pricing_term, pricing_purchase_option or the product's marketoption say Spot. Other usage is
// Standard (on-demand).
func (r *rec) pricing(cl *lineClass) string {
	if cl.pricing != "spot?" {
		return cl.pricing
	}
	if r.spot() {
		return "Dynamic"
	}
	return "Standard"
}

func (r *rec) spot() bool {
	return r.spotUsage() ||
		r.str[fPricingTerm] == "Spot" ||
		strings.HasPrefix(r.str[fPurchaseOption], "Spot") ||
		r.str[fMarketOption] == "Spot"
}

// spotUsage reports whether the usage type names SpotUsage.
func (r *rec) spotUsage() bool {
	ut := r.str[fUsageType]
	e := &r.recent.spot[slot(ut, len(r.recent.spot))]
	if !e.ok || e.usageType != ut {
		e.usageType, e.spot, e.ok = ut, strings.Contains(ut, "SpotUsage"), true
	}
	return e.spot
}

// instanceType is product_instance_type, or for EC2 lines without it (spot usage often lacks
// it) the type the usage type names after the colon: "USE1-SpotUsage:p4d.24xlarge" → p4d.24xlarge.
func (r *rec) instanceType() string {
	if t := r.str[fInstanceType]; t != "" {
		return t
	}
	ut := r.str[fUsageType]
	i := strings.IndexByte(ut, ':')
	if i < 0 {
		return ""
	}
	switch kind := ut[:i]; {
	case strings.HasSuffix(kind, "BoxUsage"), strings.HasSuffix(kind, "SpotUsage"),
		strings.HasSuffix(kind, "DedicatedUsage"), strings.HasSuffix(kind, "HostUsage"):
		return ut[i+1:]
	}
	return ""
}

// serviceName is the product's name (product map key product_name, "Amazon Elastic Compute
// Cloud", as AWS's FOCUS export shows it), else the product code.
func (r *rec) serviceName() string {
	if n := r.str[fProductName]; n != "" {
		return n
	}
	return r.str[fProductCode]
}

// resourceType names the kind of resource an id is: "instance" for i-…, "volume" for vol-…, the
// resource type of an ARN (arn:aws:s3:::bucket → "", arn:aws:ec2:…:natgateway/nat-… →
// "natgateway"), as AWS's FOCUS export does for the common kinds.
func resourceType(id string) string {
	switch {
	case id == "":
		return ""
	case strings.HasPrefix(id, "i-"):
		return "instance"
	case strings.HasPrefix(id, "vol-"):
		return "volume"
	case strings.HasPrefix(id, "snap-"):
		return "snapshot"
	case !strings.HasPrefix(id, "arn:"):
		return ""
	}
	parts := id
	for range 5 { // arn:partition:service:region:account:resource
		i := strings.IndexByte(parts, ':')
		if i < 0 {
			return ""
		}
		parts = parts[i+1:]
	}
	if i := strings.IndexAny(parts, "/:"); i > 0 {
		return parts[:i]
	}
	return ""
}
