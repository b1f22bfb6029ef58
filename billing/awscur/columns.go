package awscur

import (
	"errors"
	"slices"
	"strings"

	"github.com/gpucost/gpucost/billing/internal/readerr"
)

// field names one CUR column the reader maps onto a CostLine.
type field int

// The mapped columns, strings first, then times, the usage quantity, amounts and maps. Names are
// the CUR 2.0 names of the AWS Data Exports table dictionary
// (docs.aws.amazon.com/cur/latest/userguide/table-dictionary-cur2.html); legacy CUR names
// (lineItem/UnblendedCost) reach the same fields through classify.
const (
	fBillType field = iota
	fPayer
	fUsageAccount
	fLineItemType
	fProductCode
	fUsageType
	fOperation
	fAZ
	fResourceID
	fCurrency
	fDescription
	fPricingTerm
	fPurchaseOption
	fPricingUnit
	fRateCode
	fInstanceType
	fRegionCode
	fSku
	fServiceCode
	fProductName
	fMarketOption
	fRIArn
	fSPArn
	tBillStart
	tStart
	tEnd
	qUsageAmount
	aUnblended
	aNetUnblended
	aPublicOnDemand
	aRIEffective
	aRINetEffective
	aRIUnusedUpfront
	aRINetUnusedUpfront
	aRIUnusedRecurring
	aRINetUnusedRecurring
	aSPEffective
	aSPNetEffective
	aSPTotalCommit
	aSPUsedCommit
	mProduct
	mResourceTags
	mCostCategory
	mTags
	numFields
)

const (
	numStrings = int(tBillStart)
	numTimes   = int(qUsageAmount - tBillStart)
	numAmounts = int(mProduct - aUnblended)
)

// kind says how a field's cells are parsed.
type kind uint8

const (
	kString kind = iota
	kTime
	kQuantity
	kAmount
	kMap
)

func (f field) kind() kind {
	switch {
	case f < tBillStart:
		return kString
	case f < qUsageAmount:
		return kTime
	case f == qUsageAmount:
		return kQuantity
	case f < mProduct:
		return kAmount
	default:
		return kMap
	}
}

// fieldNames holds the CUR 2.0 column name of each field.
var fieldNames = [numFields]string{
	fBillType:             "bill_bill_type",
	fPayer:                "bill_payer_account_id",
	fUsageAccount:         "line_item_usage_account_id",
	fLineItemType:         "line_item_line_item_type",
	fProductCode:          "line_item_product_code",
	fUsageType:            "line_item_usage_type",
	fOperation:            "line_item_operation",
	fAZ:                   "line_item_availability_zone",
	fResourceID:           "line_item_resource_id",
	fCurrency:             "line_item_currency_code",
	fDescription:          "line_item_line_item_description",
	fPricingTerm:          "pricing_term",
	fPurchaseOption:       "pricing_purchase_option",
	fPricingUnit:          "pricing_unit",
	fRateCode:             "pricing_rate_code",
	fInstanceType:         "product_instance_type",
	fRegionCode:           "product_region_code",
	fSku:                  "product_sku",
	fServiceCode:          "product_servicecode",
	fProductName:          "product_product_name", // a product map key, flattened (legacy CUR, SQL exports)
	fMarketOption:         "product_marketoption", // likewise
	fRIArn:                "reservation_reservation_a_r_n",
	fSPArn:                "savings_plan_savings_plan_a_r_n",
	tBillStart:            "bill_billing_period_start_date",
	tStart:                "line_item_usage_start_date",
	tEnd:                  "line_item_usage_end_date",
	qUsageAmount:          "line_item_usage_amount",
	aUnblended:            "line_item_unblended_cost",
	aNetUnblended:         "line_item_net_unblended_cost",
	aPublicOnDemand:       "pricing_public_on_demand_cost",
	aRIEffective:          "reservation_effective_cost",
	aRINetEffective:       "reservation_net_effective_cost",
	aRIUnusedUpfront:      "reservation_unused_amortized_upfront_fee_for_billing_period",
	aRINetUnusedUpfront:   "reservation_net_unused_amortized_upfront_fee_for_billing_period",
	aRIUnusedRecurring:    "reservation_unused_recurring_fee",
	aRINetUnusedRecurring: "reservation_net_unused_recurring_fee",
	aSPEffective:          "savings_plan_savings_plan_effective_cost",
	aSPNetEffective:       "savings_plan_net_savings_plan_effective_cost",
	aSPTotalCommit:        "savings_plan_total_commitment_to_date",
	aSPUsedCommit:         "savings_plan_used_commitment",
	mProduct:              "product",
	mResourceTags:         "resource_tags",
	mCostCategory:         "cost_category",
	mTags:                 "tags",
}

// fieldByName maps a CUR 2.0 column name to its field.
var fieldByName = func() map[string]field {
	m := make(map[string]field, numFields+1)
	for f, n := range fieldNames {
		m[n] = field(f)
	}
	// Legacy CUR wrote the region code as product/region before it added product/regionCode.
	m["product_region"] = fRegionCode
	return m
}()

// required lists the columns without which no line can be costed or its currency known.
var required = []field{fLineItemType, tStart, tEnd, aUnblended, fCurrency}

// knownColumns is the CUR 2.0 column set of the AWS Data Exports table dictionary (as listed by
// an Athena table over a CUR 2.0 Parquet export). Known columns the reader does not map are
// skipped silently; other columns are reported once in Stats.Unknown.
var knownColumns = func() map[string]bool {
	names := strings.Fields(`bill_bill_type bill_billing_entity bill_billing_period_end_date
	bill_billing_period_start_date bill_invoice_id bill_invoicing_entity bill_payer_account_id
	bill_payer_account_name capacity_reservation_capacity_reservation_arn
	capacity_reservation_capacity_reservation_status capacity_reservation_capacity_reservation_type
	cost_category discount discount_bundled_discount discount_total_discount identity_line_item_id
	identity_time_interval line_item_availability_zone line_item_blended_cost line_item_blended_rate
	line_item_currency_code line_item_iam_principal line_item_legal_entity
	line_item_line_item_description line_item_line_item_type line_item_net_unblended_cost
	line_item_net_unblended_rate line_item_normalization_factor line_item_normalized_usage_amount
	line_item_operation line_item_product_code line_item_resource_id line_item_tax_type
	line_item_unblended_cost line_item_unblended_rate line_item_usage_account_id
	line_item_usage_account_name line_item_usage_amount line_item_usage_end_date
	line_item_usage_start_date line_item_usage_type line_item_user_identifier pricing_currency
	pricing_lease_contract_length pricing_offering_class pricing_public_on_demand_cost
	pricing_public_on_demand_rate pricing_purchase_option pricing_rate_code pricing_rate_id
	pricing_term pricing_unit product product_comment product_fee_code product_fee_description
	product_from_location product_from_location_type product_from_region_code
	product_instance_family product_instance_type product_instancesku product_location
	product_location_type product_operation product_pricing_unit product_product_family
	product_region_code product_servicecode product_sku product_to_location
	product_to_location_type product_to_region_code product_usagetype
	reservation_amortized_upfront_cost_for_usage reservation_amortized_upfront_fee_for_billing_period
	reservation_availability_zone reservation_effective_cost reservation_end_time
	reservation_modification_status reservation_net_amortized_upfront_cost_for_usage
	reservation_net_amortized_upfront_fee_for_billing_period reservation_net_effective_cost
	reservation_net_recurring_fee_for_usage reservation_net_unused_amortized_upfront_fee_for_billing_period
	reservation_net_unused_recurring_fee reservation_net_upfront_value
	reservation_normalized_units_per_reservation reservation_number_of_reservations
	reservation_recurring_fee_for_usage reservation_reservation_a_r_n reservation_start_time
	reservation_subscription_id reservation_total_reserved_normalized_units
	reservation_total_reserved_units reservation_units_per_reservation
	reservation_unused_amortized_upfront_fee_for_billing_period
	reservation_unused_normalized_unit_quantity reservation_unused_quantity
	reservation_unused_recurring_fee reservation_upfront_value resource_tags
	savings_plan_amortized_upfront_commitment_for_billing_period savings_plan_end_time
	savings_plan_instance_type_family savings_plan_net_amortized_upfront_commitment_for_billing_period
	savings_plan_net_recurring_commitment_for_billing_period savings_plan_net_savings_plan_effective_cost
	savings_plan_offering_type savings_plan_payment_option savings_plan_purchase_term
	savings_plan_recurring_commitment_for_billing_period savings_plan_region
	savings_plan_savings_plan_a_r_n savings_plan_savings_plan_effective_cost
	savings_plan_savings_plan_rate savings_plan_start_time savings_plan_total_commitment_to_date
	savings_plan_used_commitment split_line_item_actual_usage split_line_item_net_split_cost
	split_line_item_net_unused_cost split_line_item_parent_resource_id
	split_line_item_public_on_demand_split_cost split_line_item_public_on_demand_unused_cost
	split_line_item_reserved_usage split_line_item_split_cost split_line_item_split_usage
	split_line_item_split_usage_ratio split_line_item_unused_cost tags`)
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}()

// Dialects of the CUR the reader recognises.
const (
	DialectCUR2   = "CUR 2.0"    // AWS Data Exports: snake_case columns, map columns
	DialectLegacy = "legacy CUR" // Cost and Usage Reports: lineItem/UnblendedCost, resourceTags/user:team
)

// colRole says what one source column feeds.
type colRole uint8

const (
	roleSkip    colRole = iota // a known column the reader does not map
	roleField                  // a mapped field
	roleTag                    // one resource tag, flattened: resourceTags/user:team, resource_tags_user_team
	roleCostCat                // one cost category, flattened: costCategory/Team, cost_category_team
	roleUnknown                // not a CUR column
)

// column is the reader's plan for one source column.
type column struct {
	name  string // as in the file
	role  colRole
	field field
	key   string // the tag key or cost category name, for flattened tag columns
}

// classify decides what the source column name feeds. Legacy names are first rewritten to
// CUR 2.0 names the way AWS did for Athena and CUR 2.0 (lineItem/UnblendedCost →
// line_item_unblended_cost, reservation/ReservationARN → reservation_reservation_a_r_n), except
// that a flattened tag keeps its key as the provider wrote it (resourceTags/user:team → user:team).
func classify(name string) column {
	c := column{name: name, role: roleUnknown}
	clean := strings.TrimSpace(strings.TrimPrefix(name, "\ufeff"))
	if cat, key, ok := strings.Cut(clean, "/"); ok {
		switch snake(cat) {
		case "resource_tags":
			c.role, c.key = roleTag, key
			return c
		case "cost_category":
			c.role, c.key = roleCostCat, key
			return c
		}
		clean = snake(cat) + "_" + snake(key)
	}
	if f, ok := fieldByName[clean]; ok {
		c.role, c.field = roleField, f
		return c
	}
	switch {
	case knownColumns[clean]:
		c.role = roleSkip
	case strings.HasPrefix(clean, "resource_tags_"):
		c.role, c.key = roleTag, strings.TrimPrefix(clean, "resource_tags_")
	case strings.HasPrefix(clean, "cost_category_"):
		c.role, c.key = roleCostCat, strings.TrimPrefix(clean, "cost_category_")
	case hasAnyPrefix(clean, "product_", "pricing_", "reservation_", "savings_plan_", "discount_",
		"line_item_", "bill_", "identity_", "split_line_item_"):
		// Columns of the CUR families that legacy CUR or a newer export adds (product
		// attributes above all): part of the bill, nothing the reader maps.
		c.role = roleSkip
	}
	return c
}

func hasAnyPrefix(s string, prefixes ...string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// snake rewrites a legacy CUR name part to snake case as AWS does: every upper-case letter
// starts a new word, so "UsageStartDate" → "usage_start_date" and "ReservationARN" →
// "reservation_a_r_n".
func snake(s string) string {
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			if i > 0 {
				b.WriteByte('_')
			}
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// plan is the column layout of one file.
type plan struct {
	cols    []column
	index   [numFields]int // source column of each field, -1 when absent
	tags    []int          // flattened tag and cost category columns
	unknown []string
	dialect string
}

// newPlan classifies a header. It fails when the header is not a CUR's, or lacks required columns.
func newPlan(names []string) (*plan, error) {
	p := &plan{cols: make([]column, len(names)), dialect: DialectCUR2}
	for i := range p.index {
		p.index[i] = -1
	}
	lineItems := 0
	for i, n := range names {
		c := classify(n)
		p.cols[i] = c
		if strings.Contains(n, "/") {
			p.dialect = DialectLegacy
		}
		if strings.HasPrefix(c.name, "line_item_") || strings.HasPrefix(c.name, "lineItem/") {
			lineItems++
		}
		switch c.role {
		case roleField:
			if p.index[c.field] < 0 {
				p.index[c.field] = i
			}
		case roleTag, roleCostCat:
			p.tags = append(p.tags, i)
		case roleUnknown:
			p.unknown = append(p.unknown, n)
		}
	}
	if lineItems == 0 {
		return nil, notCUR(names)
	}
	if p.index[mResourceTags] < 0 && p.index[mProduct] < 0 && p.dialect == DialectCUR2 && len(p.tags) > 0 {
		p.dialect = DialectLegacy // a legacy CUR as Athena names it: resource_tags_user_team columns
	}
	var missing []string
	for _, f := range required {
		if p.index[f] < 0 {
			missing = append(missing, fieldNames[f])
		}
	}
	if len(missing) > 0 {
		return nil, missingColumns(p.dialect, missing)
	}
	return p, nil
}

// Detect reports whether a header (CSV column names, or Parquet top-level column names) is an
// AWS CUR's, and which dialect: DialectCUR2 or DialectLegacy. Importers use it to choose a reader.
func Detect(columns []string) (dialect string, ok bool) {
	p, err := newPlan(columns)
	if err != nil {
		if me, ok := errors.AsType[*readerr.Missing](err); ok {
			return me.Dialect, true
		}
		return "", false
	}
	return p.dialect, true
}

// sortedUnknown returns the unknown column names, sorted.
func (p *plan) sortedUnknown() []string {
	u := slices.Clone(p.unknown)
	slices.Sort(u)
	return u
}
