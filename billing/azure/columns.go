package azure

import (
	"slices"
	"strings"
)

// field names one cost details column the reader maps onto a CostLine.
type field int

// The mapped columns: strings first (they are the dimensions cached per distinct row), then
// times, the quantity, amounts and prices. Names follow Microsoft's cost details schemas
// (learn.microsoft.com/azure/cost-management-billing/dataset-schema/cost-usage-details-ea,
// …-mca, …-pay-as-you-go, and automate/understand-usage-details-fields); the older names of
// the usage details files reach the same fields through aliases.
const (
	fChargeType field = iota
	fPricingModel
	fFrequency
	fSubscription
	fBillingAccount
	fBillingProfile
	fResourceID
	fResourceName
	fResourceType
	fResourceLocation
	fLocation
	fResourceGroup
	fMeterCategory
	fMeterSubCategory
	fMeterName
	fMeterID
	fProductName
	fProductID
	fConsumedService
	fServiceName
	fUnit
	fBenefitID
	fReservationID
	fProductOrderID
	fAvailabilityZone
	fCostCenter
	fInvoiceSection
	fAdditionalInfo
	fTags
	fCurrency
	fPricingCurrency
	tDate
	tBillingPeriod
	qQuantity
	aCost
	aPaygCost
	dUnitPrice
	dPaygPrice
	dExchangeRate
	numFields
)

const (
	numStrings = int(tDate)
	numTimes   = int(qQuantity - tDate)
)

// kind says how a field's cells are parsed.
type kind uint8

const (
	kString kind = iota
	kTime
	kQuantity
	kAmount
	kPrice
)

func (f field) kind() kind {
	switch {
	case f < tDate:
		return kString
	case f < qQuantity:
		return kTime
	case f == qQuantity:
		return kQuantity
	case f < dUnitPrice:
		return kAmount
	default:
		return kPrice
	}
}

// aliases lists the column names of each field, normalised by normName, in order of preference:
// when a file has two of them, the first one listed is read. The current EA and MCA names come
// first; then the older usage details names that "Understand cost details fields" maps to them
// (ConsumedQuantity → Quantity, InstanceId → ResourceId, Unit → UnitOfMeasure, UsageDate and
// UsageStart → Date), the pay-as-you-go usage schema 2019-11-01 (SubscriptionGuid, UsageDateTime,
// UsageQuantity, PreTaxCost, Currency) and the EA portal's spaced names ("Consumed Quantity",
// "Instance ID", "Department Name", "ExtendedCost").
var aliases = [numFields][]string{
	fChargeType:       {"chargetype"},
	fPricingModel:     {"pricingmodel"},
	fFrequency:        {"frequency"},
	fSubscription:     {"subscriptionguid", "subscriptionid"},
	fBillingAccount:   {"billingaccountid"},
	fBillingProfile:   {"billingprofileid"},
	fResourceID:       {"resourceid", "instanceid", "instancename"},
	fResourceName:     {"resourcename"},
	fResourceType:     {"resourcetype"},
	fResourceLocation: {"resourcelocation"},
	fLocation:         {"resourcelocationnormalized", "location"},
	fResourceGroup:    {"resourcegroup", "resourcegroupname"},
	fMeterCategory:    {"metercategory"},
	fMeterSubCategory: {"metersubcategory"},
	fMeterName:        {"metername"},
	fMeterID:          {"meterid"},
	fProductName:      {"productname", "product"},
	fProductID:        {"productid"},
	fConsumedService:  {"consumedservice"},
	fServiceName:      {"servicename"},
	fUnit:             {"unitofmeasure", "unit"},
	fBenefitID:        {"benefitid"},
	fReservationID:    {"reservationid"},
	fProductOrderID:   {"productorderid"},
	fAvailabilityZone: {"availabilityzone"},
	fCostCenter:       {"costcenter"},
	fInvoiceSection:   {"invoicesectionname", "departmentname", "invoicesection"},
	fAdditionalInfo:   {"additionalinfo"},
	fTags:             {"tags"},
	fCurrency:         {"billingcurrencycode", "billingcurrency", "currency"},
	fPricingCurrency:  {"pricingcurrency"},
	tDate:             {"date", "usagedatetime", "usagedate", "usagestart"},
	tBillingPeriod:    {"billingperiodstartdate"},
	qQuantity:         {"quantity", "consumedquantity", "usagequantity"},
	aCost:             {"costinbillingcurrency", "cost", "pretaxcost", "extendedcost"},
	aPaygCost:         {"paygcostinbillingcurrency"},
	dUnitPrice:        {"unitprice"},
	dPaygPrice:        {"paygprice", "payasyougoprice"},
	dExchangeRate:     {"exchangeratepricingtobilling"},
}

// requiredName names a required field's column as the schema spells it, for messages.
func requiredName(f field, schema string) string {
	switch {
	case f == tDate && schema == SchemaPAYG:
		return "UsageDateTime"
	case f == tDate:
		return "Date"
	case f == aCost && schema == SchemaPAYG:
		return "PreTaxCost"
	case f == aCost:
		return "CostInBillingCurrency"
	case schema == SchemaPAYG:
		return "Currency"
	case schema == SchemaEA:
		return "BillingCurrencyCode"
	}
	return "BillingCurrency"
}

// knownColumns are the other documented cost details columns (normalised): part of the file,
// nothing the reader maps, so they are neither read nor reported.
var knownColumns = func() map[string]bool {
	names := strings.Fields(`accountid accountname accountownerid billingaccountname billingperiod
	billingperiodenddate billingprofilename benefitname chargesbilledseparately costallocationrulename
	costinpricingcurrency costinusd customername customertenantid day effectiveprice exchangeratedate
	includedquantity invoiceid invoicesectionid isactualcost isamortizedcost isazurecrediteligible month
	meterregion offerid partnerearnedcreditapplied partnerearnedcreditrate partnername partnertenantid partnumber
	paygcostinusd planname previousinvoiceid productordername provider publisherid publishername
	publishertype rate reservationname resellermpnid resellername resourcerate serviceadministratorid
	servicefamily serviceinfo1 serviceinfo2 serviceperiodenddate serviceperiodstartdate servicetier
	storeserviceidentifier subscriptionname term usageend year`)
	m := make(map[string]bool, len(names))
	for _, n := range names {
		m[n] = true
	}
	return m
}()

// normName folds a column name to the form the aliases use: lower case, without spaces,
// underscores, hyphens or a byte order mark, since "some fields might differ in casing and spacing
// between account types" (Understand cost details fields).
func normName(s string) string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "\ufeff")
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '_' || c == '-':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		b.WriteByte(c)
	}
	return b.String()
}

// Schemas of the cost details file the reader tells apart.
const (
	SchemaEA   = "EA"            // Enterprise Agreement: BillingCurrencyCode, AccountName, ResourceGroup, …
	SchemaMCA  = "MCA"           // Microsoft Customer Agreement: billingCurrency, costInPricingCurrency, …
	SchemaMPA  = "MPA"           // Microsoft Partner Agreement: the MCA columns and partner/customer ones
	SchemaPAYG = "pay-as-you-go" // the usage-only pay-as-you-go schema: PreTaxCost, UsageDateTime, SubscriptionGuid
)

// markers of each schema, normalised: columns only that agreement's files have.
var (
	mcaMarkers = []string{"costinpricingcurrency", "pricingcurrency", "exchangeratepricingtobilling",
		"paygcostinbillingcurrency", "costinusd", "previousinvoiceid", "serviceperiodstartdate",
		"resourcegroupname", "productid", "billingcurrency"}
	mpaMarkers = []string{"partnername", "partnertenantid", "customername", "customertenantid", "partnerearnedcreditapplied"}
	eaMarkers  = []string{"billingcurrencycode", "accountname", "accountownerid", "resourcegroup", "partnumber",
		"offerid", "departmentname", "accountid"}
	// azureMarkers are columns no other bill format has; a header needs one of them, besides a
	// cost and a date column, to be a cost details file.
	azureMarkers = []string{"metercategory", "meterid", "metername", "metersubcategory", "consumedservice",
		"subscriptionguid", "resourcelocation", "instanceid", "benefitid", "unitofmeasure", "pricingmodel"}
)

// looksAzure reports whether a header is a cost details file's: a column only Azure cost details
// have, and a cost or a date column (price sheets and reservation reports share the meter columns
// but have neither).
func looksAzure(names []string) bool {
	have := make(map[string]int, len(names))
	for i, n := range names {
		have[normName(n)] = i
	}
	return hasAny(have, azureMarkers) && (hasAny(have, aliases[aCost]) || hasAny(have, aliases[tDate]))
}

// plan is the column layout of one file.
type plan struct {
	names   []string       // as in the file
	index   [numFields]int // source column of each field, -1 when absent
	unknown []string
	schema  string
	mca     bool // prices are in the pricing currency and costs in the billing currency
}

// newPlan classifies a header. It fails when the header is not a cost details file's, or lacks
// required columns; currency is the billing currency the caller gives for files without one.
func newPlan(names []string, currency string) (*plan, error) {
	p := &plan{names: names}
	have := make(map[string]int, len(names))
	for i, n := range names {
		k := normName(n)
		if _, dup := have[k]; !dup {
			have[k] = i
		}
	}
	for f := range p.index {
		p.index[f] = -1
		for _, a := range aliases[f] {
			if i, ok := have[a]; ok {
				p.index[f] = i
				break
			}
		}
	}
	if !hasAny(have, azureMarkers) {
		return nil, notAzure(names)
	}
	p.schema = schemaOf(have, names[max(p.index[aCost], 0)])
	p.mca = p.schema == SchemaMCA || p.schema == SchemaMPA
	used := map[int]bool{}
	for _, i := range p.index {
		used[i] = true
	}
	for i, n := range names {
		if k := normName(n); !used[i] && !knownColumns[k] && !isAlias(k) {
			p.unknown = append(p.unknown, n)
		}
	}
	var missing []string
	for _, f := range []field{aCost, tDate, fCurrency} {
		if p.index[f] < 0 && (f != fCurrency || currency == "") {
			missing = append(missing, requiredName(f, p.schema))
		}
	}
	if len(missing) > 0 {
		return nil, missingColumns(p.schema, missing)
	}
	return p, nil
}

// schemaOf names the schema a header shows by its marker columns; costName is the cost column.
func schemaOf(have map[string]int, costName string) string {
	count := func(ms []string) int {
		n := 0
		for _, m := range ms {
			if _, ok := have[m]; ok {
				n++
			}
		}
		return n
	}
	ea, mca := count(eaMarkers), count(mcaMarkers)
	_, code := have["billingcurrencycode"]
	_, cur := have["billingcurrency"]
	switch {
	case count(mpaMarkers) > 0:
		return SchemaMPA
	case mca > ea:
		return SchemaMCA
	case code:
		return SchemaEA
	case normName(costName) == "pretaxcost" && count([]string{"accountname", "accountownerid", "departmentname"}) == 0,
		cur: // the usage-only schema; or EA-style columns with BillingCurrency, as pay-as-you-go writes them
		return SchemaPAYG
	}
	return SchemaEA
}

func hasAny(have map[string]int, names []string) bool {
	return slices.ContainsFunc(names, func(n string) bool { _, ok := have[n]; return ok })
}

// isAlias reports whether a normalised name is one of the mapped names, used or shadowed by a
// preferred alias.
func isAlias(k string) bool {
	for _, as := range aliases {
		if slices.Contains(as, k) {
			return true
		}
	}
	return false
}

// sortedUnknown returns the unknown column names, sorted.
func (p *plan) sortedUnknown() []string {
	u := slices.Clone(p.unknown)
	slices.Sort(u)
	return u
}

// has reports whether the file has a column for f.
func (p *plan) has(f field) bool { return p.index[f] >= 0 }
