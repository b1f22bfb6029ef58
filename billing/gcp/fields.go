package gcp

import (
	"strings"
)

// field names one value of an export row that the reader maps onto a CostLine. Names are those
// of Google's schema (Structure of Standard / Detailed data export,
// docs.cloud.google.com/billing/docs/how-to/export-data-bigquery-tables/standard-usage and
// …/detailed-usage): nested records are written with dots, service.description.
type field uint8

// The mapped fields. The strings and the repeated label records are the row's dimensions, which
// repeat across the hours of a resource and are cached together; times, amounts, quantities and
// credits are read on every row.
const (
	fBillingAccount field = iota
	fServiceID
	fServiceDesc
	fSkuID
	fSkuDesc
	fProjectID
	fProjectNumber
	fProjectName
	fLocation
	fCountry
	fRegion
	fZone
	fResourceName
	fResourceGlobal
	fCurrency
	fConversionRate
	fUsageUnit
	fPricingUnit
	fInvoiceMonth
	fCostType
	fAdjID
	fAdjDesc
	fAdjType
	fAdjMode
	fTransactionType
	fSellerName
	fTierStart
	fConsumptionID
	fConsumptionDesc
	fSubscription
	rLabels
	rSystemLabels
	rProjectLabels
	rTags
	tStart
	tEnd
	aCost
	aCostAtList
	qUsage
	qPricing
	cCredits
	numFields
)

const (
	numStrings = int(rLabels)
	numDims    = int(tStart) // strings and repeated label records
)

// kind says how a field's values are read.
type kind uint8

const (
	kString   kind = iota // text
	kRepeated             // a repeated key/value record: JSON array of {"key":…,"value":…}
	kTime                 // a timestamp
	kAmount               // an amount of money
	kQuantity             // a usage quantity
	kCredits              // the repeated credits record
	kSkip                 // a field of the schema the reader does not read
	kRecord               // a record whose fields are named under it
)

func (f field) kind() kind {
	switch {
	case f < rLabels:
		return kString
	case f < tStart:
		return kRepeated
	case f < aCost:
		return kTime
	case f < qUsage:
		return kAmount
	case f < cCredits:
		return kQuantity
	}
	return kCredits
}

// fieldNames holds each field's name in Google's schema.
var fieldNames = [numFields]string{
	fBillingAccount:  "billing_account_id",
	fServiceID:       "service.id",
	fServiceDesc:     "service.description",
	fSkuID:           "sku.id",
	fSkuDesc:         "sku.description",
	fProjectID:       "project.id",
	fProjectNumber:   "project.number",
	fProjectName:     "project.name",
	fLocation:        "location.location",
	fCountry:         "location.country",
	fRegion:          "location.region",
	fZone:            "location.zone",
	fResourceName:    "resource.name",
	fResourceGlobal:  "resource.global_name",
	fCurrency:        "currency",
	fConversionRate:  "currency_conversion_rate",
	fUsageUnit:       "usage.unit",
	fPricingUnit:     "usage.pricing_unit",
	fInvoiceMonth:    "invoice.month",
	fCostType:        "cost_type",
	fAdjID:           "adjustment_info.id",
	fAdjDesc:         "adjustment_info.description",
	fAdjType:         "adjustment_info.type",
	fAdjMode:         "adjustment_info.mode",
	fTransactionType: "transaction_type",
	fSellerName:      "seller_name",
	fTierStart:       "price.tier_start_amount",
	fConsumptionID:   "consumption_model.id",
	fConsumptionDesc: "consumption_model.description",
	fSubscription:    "subscription.instance_id",
	rLabels:          "labels",
	rSystemLabels:    "system_labels",
	rProjectLabels:   "project.labels",
	rTags:            "tags",
	tStart:           "usage_start_time",
	tEnd:             "usage_end_time",
	aCost:            "cost",
	aCostAtList:      "cost_at_list",
	qUsage:           "usage.amount",
	qPricing:         "usage.amount_in_pricing_units",
	cCredits:         "credits",
}

// skipNames are the other fields of the standard and detailed schemas: known, not read.
var skipNames = strings.Fields(`export_time project.ancestry_numbers project.ancestors
	project.ancestors.resource_name project.ancestors.display_name invoice.publisher_type
	price.effective_price price.unit price.pricing_unit_quantity price.list_price
	price.effective_price_default price.list_price_consumption_model cost_at_effective_price_default
	cost_at_list_consumption_model _partitiontime _partitiondate`)

// required lists the fields without which no row can be costed, placed in time or given a currency.
var required = []field{aCost, fCurrency, tStart, tEnd}

// node is one name of the schema: a field, a record holding others, or a known field not read.
type node struct {
	name  string // dotted
	kind  kind
	field field
	kids  map[string]*node // a record's fields by their own name
	id    int              // a record's index among the records, for readers' caches
}

// numRecords counts the records of the schema, root included.
var numRecords int

// root is the schema as a tree, for JSON rows and JSON record cells in CSV.
var root = buildTree()

// byColumn maps a CSV column name, lower-cased, to its node: the dotted name (service.description,
// as the BigQuery console writes flattened columns) or the underscore name
// (service_description, as users alias them in the query they export).
var byColumn = func() map[string]*node {
	m := map[string]*node{}
	var walk func(n *node)
	walk = func(n *node) {
		for _, k := range n.kids {
			m[k.name] = k
			m[strings.ReplaceAll(k.name, ".", "_")] = k
			walk(k)
		}
	}
	walk(root)
	return m
}()

func buildTree() *node {
	top := &node{kind: kRecord, kids: map[string]*node{}}
	add := func(name string, k kind, f field) {
		n := top
		parts := strings.Split(name, ".")
		for i, p := range parts {
			if n.kids == nil {
				n.kids = map[string]*node{} // a skipped record's fields, flattened into CSV columns
			}
			kid, ok := n.kids[p]
			if !ok {
				kid = &node{name: strings.Join(parts[:i+1], "."), kind: kRecord, kids: map[string]*node{}}
				n.kids[p] = kid
			}
			n = kid
		}
		n.kind, n.field = k, f
		if k != kRecord {
			n.kids = nil
		}
	}
	for f := field(0); f < numFields; f++ {
		add(fieldNames[f], f.kind(), f)
	}
	for _, name := range skipNames {
		add(name, kSkip, 0)
	}
	var number func(n *node)
	number = func(n *node) {
		n.id = numRecords
		numRecords++
		for _, k := range n.kids {
			number(k)
		}
	}
	number(top)
	return top
}

// Dialects: the two BigQuery tables of Cloud Billing usage cost data.
const (
	DialectStandard = "standard usage cost export" // gcp_billing_export_v1_<BILLING_ACCOUNT_ID>
	DialectDetailed = "detailed usage cost export" // gcp_billing_export_resource_v1_<…>, with resource.*
)

// Naming styles of flattened CSV headers.
const (
	NamesDotted     = "dotted"     // service.description
	NamesUnderscore = "underscore" // service_description
	NamesMixed      = "mixed"
	NamesNested     = "nested" // JSON rows: nested records
)
