package gcp

import (
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// dims are the values of a row that repeat across the hours of a resource, with what is derived
// from them: read once per distinct set of cells.
type dims struct {
	str  [numStrings]string
	tags gpucost.Labels

	billingPeriod time.Time
	resourceID    string
	resourceType  string
	instanceType  string
	skuPriceID    string
	class         lineClass
	extra         []string          // x_ name, value pairs
	extraMap      map[string]string // Extra of lines without credits

	creditTypes string // the credit types of creditExtra
	creditExtra map[string]string
}

// lineClass is the FOCUS reading of a row's cost type, SKU and adjustment.
type lineClass struct {
	category  string // ChargeCategory
	class     string // ChargeClass
	frequency string // ChargeFrequency
	regular   bool   // cost_type regular: usage or a commitment fee
	fee       bool   // a committed use discount's fee
	feeSpend  bool   // … of a spend-based commitment
	spot      bool   // a Spot or preemptible SKU
	committed bool   // usage priced by a spend-based commitment's consumption model
}

// derive computes what the dimensions imply, once per distinct set.
func derive(d *dims, rd *reader) error {
	if m := d.str[fInvoiceMonth]; m != "" {
		t, ok := invoiceMonth(m)
		if !ok {
			return rd.bad(fInvoiceMonth, m, nil)
		}
		d.billingPeriod = t
	}
	d.resourceID = d.str[fResourceGlobal]
	if d.resourceID == "" {
		d.resourceID = d.str[fResourceName]
	}
	d.resourceType = resourceType(d.str[fResourceGlobal])
	d.instanceType = d.tags[machineSpec]
	d.class = classify(d)
	if d.class.regular && d.str[fTierStart] != "" {
		// Google's FOCUS view: "Billing Account ID:…, SKU ID: …, Price Tier Start Amount: …".
		d.skuPriceID = rd.in.Get([]byte("Billing Account ID:" + d.str[fBillingAccount] + ", SKU ID: " +
			d.str[fSkuID] + ", Price Tier Start Amount: " + d.str[fTierStart]))
	}
	for _, x := range [...]struct {
		name string
		f    field
	}{{"x_ServiceId", fServiceID}, {"x_CostType", fCostType}, {"x_Location", fLocation},
		{"x_ProjectName", fProjectName}, {"x_CurrencyConversionRate", fConversionRate},
		{"x_ConsumptionModel", fConsumptionDesc}, {"x_AdjustmentType", fAdjType},
		{"x_SellerName", fSellerName}} {
		if v := d.str[x.f]; v != "" {
			d.extra = append(d.extra, x.name, v)
		}
	}
	d.extraMap = rd.extraFor(d.extra, "")
	return nil
}

// classify reads the cost type, SKU description, consumption model and adjustment of a row the
// way Google's FOCUS BigQuery view does (cost_type regular → Usage, tax → Tax, adjustment and
// rounding_error → Adjustment), except that a committed use discount's fee is a Purchase
// (FOCUS: a commitment bought on a recurring basis) where the view calls it usage.
func classify(d *dims) lineClass {
	var cl lineClass
	sku := d.str[fSkuDesc]
	switch strings.ToLower(d.str[fCostType]) {
	case "regular", "":
		cl.regular = true
		cl.category, cl.frequency = "Usage", "Usage-Based"
		lower := strings.ToLower(sku)
		if strings.HasPrefix(lower, "commitment") {
			// "Commitment v1: A2 Cpu in Americas for 1 Year" (resource-based) or
			// "Commitment - dollar based v1: …" (spend-based).
			cl.fee = true
			cl.feeSpend = strings.Contains(lower, "dollar based") || strings.Contains(lower, "spend")
			cl.category, cl.frequency = "Purchase", "Recurring"
		}
		// "Spot Preemptible Nvidia Tesla A100 GPU running in Americas", "Preemptible …".
		cl.spot = strings.Contains(lower, "preemptible")
		if m := d.str[fConsumptionDesc]; m != "" && !strings.EqualFold(m, "default") {
			cl.committed = true // "Compute Flexible CUDs 1 Year"
		}
	case "tax":
		cl.category, cl.frequency = "Tax", "Recurring"
	default: // adjustment, rounding_error and types Google adds later
		cl.category, cl.frequency = "Adjustment", "One-Time"
	}
	if correction(d.str[fAdjType], d.str[fAdjMode]) {
		cl.class = "Correction"
	}
	return cl
}

// correction reports whether adjustment_info marks a correction of earlier charges: the types
// USAGE_CORRECTION, PRICE_CORRECTION and METADATA_CORRECTION, or, without a type, the modes
// that negate original usage. Goodwill, SLA credits and other modifications are not corrections.
func correction(typ, mode string) bool {
	if typ != "" {
		return strings.HasSuffix(typ, "_CORRECTION")
	}
	return mode == "PARTIAL_CORRECTION" || strings.HasPrefix(mode, "COMPLETE_NEGATION")
}

// resourceType names the kind of resource a global name is, as Google's FOCUS view derives it:
// the service and the collection after the project, location and zone parts,
// "//compute.googleapis.com/projects/p/zones/us-central1-a/instances/123" → "compute.instances".
func resourceType(global string) string {
	rest, ok := strings.CutPrefix(global, "//")
	if !ok {
		return ""
	}
	host, path, ok := strings.Cut(rest, "/")
	if !ok {
		return ""
	}
	svc := strings.TrimSuffix(host, ".googleapis.com")
	parts := strings.Split(path, "/")
	for i := 0; i < len(parts); i++ {
		switch parts[i] {
		case "projects", "project_commitments", "locations", "regions", "zones":
			i++ // the part after names the project, location or zone
		case "global":
		default:
			return svc + "." + parts[i]
		}
	}
	return ""
}

// fill writes a row onto c, overwriting every field.
func fill(c *gpucost.CostLine, d *dims, v *rowValues, rd *reader) {
	cur := d.str[fCurrency]
	money := func(n int64) gpucost.Money { return gpucost.Money{Nanos: n, Currency: cur} }
	cl := d.class
	if cl.regular && !cl.fee && v.credits.cud.typ == creditFeeOffset {
		// The new spend-based CUD model offsets the commitment's fee with this credit.
		cl.fee, cl.feeSpend = true, true
		cl.category, cl.frequency = "Purchase", "Recurring"
	}
	net := v.cost + v.credits.sum
	*c = gpucost.CostLine{
		Provider:           "Google Cloud",
		BillingAccountID:   d.str[fBillingAccount],
		SubAccountID:       d.str[fProjectID],
		BillingPeriodStart: d.billingPeriod,
		ChargePeriodStart:  v.start,
		ChargePeriodEnd:    v.end,
		ChargeCategory:     cl.category,
		ChargeClass:        cl.class,
		ChargeFrequency:    cl.frequency,
		BilledCost:         money(net),
		EffectiveCost:      money(net),
		ListCost:           money(v.list),
		ContractedCost:     money(v.cost),
		ResourceID:         d.resourceID,
		ResourceName:       d.str[fResourceName],
		ResourceType:       d.resourceType,
		InstanceType:       d.instanceType,
		ServiceName:        d.str[fServiceDesc],
		RegionID:           d.str[fRegion],
		AvailabilityZone:   d.str[fZone],
		SkuID:              d.str[fSkuID],
		SkuPriceID:         d.skuPriceID,
		ChargeDescription:  d.str[fSkuDesc],
		PricingQuantity:    v.priced,
		PricingUnit:        d.str[fPricingUnit],
		Tags:               d.tags,
		Extra:              rd.extra(d, v.credits.types),
		Line:               rd.line,
	}
	if c.RegionID == "" {
		c.RegionID = d.str[fLocation] // multi-region or global usage: "us", "global"
	}
	if cl.regular && !cl.fee {
		c.ConsumedQuantity, c.ConsumedUnit = v.usage, d.str[fUsageUnit]
	}
	pricing(c, d, cl, &v.credits)
}

// pricing sets PricingCategory and the CommitmentDiscount columns. Commitment fees and usage a
// committed use discount covers (a COMMITTED_USAGE_DISCOUNT or …_DOLLAR_BASE credit, or a
// consumption model other than Default) are Committed, as in Google's FOCUS view; Spot and
// preemptible SKUs are Dynamic; other usage is Standard. Tax and adjustments have none.
func pricing(c *gpucost.CostLine, d *dims, cl lineClass, cr *credits) {
	switch {
	case !cl.regular:
		return
	case cl.fee:
		c.PricingCategory = "Committed"
		c.CommitmentDiscountID = d.str[fSubscription]
		c.CommitmentDiscountType, c.CommitmentDiscountCategory = commitmentType, "Usage"
		if cl.feeSpend {
			c.CommitmentDiscountCategory = "Spend"
		}
	case cr.cud.typ != "" || cl.committed:
		c.PricingCategory = "Committed"
		c.CommitmentDiscountType, c.CommitmentDiscountStatus = commitmentType, "Used"
		c.CommitmentDiscountCategory = "Spend"
		if cr.cud.typ == creditCUD {
			c.CommitmentDiscountCategory = "Usage"
		}
		c.CommitmentDiscountID = d.str[fSubscription]
		if c.CommitmentDiscountID == "" {
			c.CommitmentDiscountID = cr.cud.id
		}
		if c.CommitmentDiscountID == "" {
			c.CommitmentDiscountID = cr.cud.fullName
		}
	case cl.spot:
		c.PricingCategory = "Dynamic"
	default:
		c.PricingCategory = "Standard"
	}
}

// commitmentType is CommitmentDiscountType for Google Cloud's commitments.
const commitmentType = "Committed Use Discount"

// extra returns the x_ columns of a line: those of its dimensions and x_CreditTypes. The map is
// shared by every line with the same values.
func (rd *reader) extra(d *dims, creditTypes string) map[string]string {
	if creditTypes == "" {
		return d.extraMap
	}
	if d.creditTypes == creditTypes && d.creditExtra != nil {
		return d.creditExtra
	}
	m := rd.extraFor(d.extra, creditTypes)
	d.creditTypes, d.creditExtra = creditTypes, m
	return m
}

// extraFor returns the Extra map of name, value pairs and credit types, shared by every line
// with the same ones.
func (rd *reader) extraFor(pairs []string, creditTypes string) map[string]string {
	if len(pairs) == 0 && creditTypes == "" {
		return nil
	}
	k := rd.extraKey[:0]
	for _, s := range pairs {
		k = append(append(k, s...), 0)
	}
	k = append(k, creditTypes...)
	rd.extraKey = k
	m, ok := rd.extras.Get(k)
	if !ok {
		m = extraMap(pairs, creditTypes)
		rd.extras.Put(k, m)
	}
	return m
}

// extraMap builds an Extra map from name, value pairs and the credit types; nil when empty.
func extraMap(pairs []string, creditTypes string) map[string]string {
	if len(pairs) == 0 && creditTypes == "" {
		return nil
	}
	m := make(map[string]string, len(pairs)/2+1)
	for i := 0; i < len(pairs); i += 2 {
		m[pairs[i]] = pairs[i+1]
	}
	if creditTypes != "" {
		m["x_CreditTypes"] = creditTypes
	}
	return m
}
