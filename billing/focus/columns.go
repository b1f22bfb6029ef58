package focus

import (
	"strings"

	"github.com/gpucost/gpucost"
)

// Versions this package reads. Version detection looks for columns a version introduced: FOCUS
// 1.1 added seven columns and 1.2 seven more (focus.finops.org changelog; the FOCUS 1.2
// requirements model has 57 column rule files, 43 + 7 + 7); 1.3 (ratified December 2025) added
// eight, recognised so they are not mistaken for extras.
const (
	V1_0 = "1.0"
	V1_1 = "1.1"
	V1_2 = "1.2"
	V1_3 = "1.3"
)

// field is the CostLine field a column fills.
type field uint8

const (
	fNone  field = iota // a spec column CostLine does not carry: read past
	fExtra              // a column outside the spec: kept in CostLine.Extra
	fProvider
	fBillingAccountID
	fSubAccountID
	fBillingCurrency
	fBillingPeriodStart
	fChargePeriodStart
	fChargePeriodEnd
	fChargeCategory
	fChargeClass
	fChargeFrequency
	fPricingCategory
	fBilledCost
	fEffectiveCost
	fListCost
	fContractedCost
	fCommitmentDiscountID
	fCommitmentDiscountStatus
	fCommitmentDiscountType
	fCommitmentDiscountCategory
	fResourceID
	fResourceName
	fResourceType
	fServiceName
	fServiceCategory
	fRegionID
	fAvailabilityZone
	fSkuID
	fSkuPriceID
	fChargeDescription
	fConsumedQuantity
	fConsumedUnit
	fPricingQuantity
	fPricingUnit
	fTags
	fServiceProvider // 1.3 ServiceProviderName: the provider when ProviderName is absent
	fInstanceType    // x_InstanceType (InstanceTypeColumn), which gpucost's exports write
	numFields
)

// kind is how a field's text or Parquet value is read.
type kind uint8

const (
	kSkip kind = iota
	kString
	kEnum // a string with allowed values, spelled as the spec does whatever the case in the file
	kMoney
	kTime
	kFloat
	kTags
)

// kindOf returns how field f is read.
func kindOf(f field) kind {
	switch f {
	case fNone:
		return kSkip
	case fBilledCost, fEffectiveCost, fListCost, fContractedCost:
		return kMoney
	case fBillingPeriodStart, fChargePeriodStart, fChargePeriodEnd:
		return kTime
	case fConsumedQuantity, fPricingQuantity:
		return kFloat
	case fTags:
		return kTags
	case fChargeCategory, fChargeClass, fChargeFrequency, fPricingCategory,
		fCommitmentDiscountStatus, fCommitmentDiscountCategory:
		return kEnum
	}
	return kString
}

// specColumn is one column of the FOCUS cost and usage dataset.
type specColumn struct {
	name      string
	since     string // the version that introduced it (1.0 for columns of 1.0 and earlier)
	mandatory bool   // feature level Mandatory in 1.0, 1.1 and 1.2
	field     field
}

// spec lists every FOCUS 1.0–1.3 column. Feature levels are those of the published
// specifications: 21 columns are Mandatory in 1.0, 1.1 and 1.2 alike; the rest are Conditional
// or Recommended, so a conforming file may lack them.
var spec = []specColumn{
	{"AvailabilityZone", V1_0, false, fAvailabilityZone},
	{"BilledCost", V1_0, true, fBilledCost},
	{"BillingAccountId", V1_0, true, fBillingAccountID},
	{"BillingAccountName", V1_0, true, fNone},
	{"BillingCurrency", V1_0, true, fBillingCurrency},
	{"BillingPeriodEnd", V1_0, true, fNone},
	{"BillingPeriodStart", V1_0, true, fBillingPeriodStart},
	{"ChargeCategory", V1_0, true, fChargeCategory},
	{"ChargeClass", V1_0, true, fChargeClass},
	{"ChargeDescription", V1_0, true, fChargeDescription},
	{"ChargeFrequency", V1_0, false, fChargeFrequency},
	{"ChargePeriodEnd", V1_0, true, fChargePeriodEnd},
	{"ChargePeriodStart", V1_0, true, fChargePeriodStart},
	{"CommitmentDiscountCategory", V1_0, false, fCommitmentDiscountCategory},
	{"CommitmentDiscountId", V1_0, false, fCommitmentDiscountID},
	{"CommitmentDiscountName", V1_0, false, fNone},
	{"CommitmentDiscountStatus", V1_0, false, fCommitmentDiscountStatus},
	{"CommitmentDiscountType", V1_0, false, fCommitmentDiscountType},
	{"ConsumedQuantity", V1_0, false, fConsumedQuantity},
	{"ConsumedUnit", V1_0, false, fConsumedUnit},
	{"ContractedCost", V1_0, true, fContractedCost},
	{"ContractedUnitPrice", V1_0, false, fNone},
	{"EffectiveCost", V1_0, true, fEffectiveCost},
	{"InvoiceIssuerName", V1_0, true, fNone},
	{"ListCost", V1_0, true, fListCost},
	{"ListUnitPrice", V1_0, false, fNone},
	{"PricingCategory", V1_0, false, fPricingCategory},
	{"PricingQuantity", V1_0, true, fPricingQuantity},
	{"PricingUnit", V1_0, true, fPricingUnit},
	{"ProviderName", V1_0, true, fProvider},
	{"PublisherName", V1_0, true, fNone},
	{"RegionId", V1_0, false, fRegionID},
	{"RegionName", V1_0, false, fNone},
	{"ResourceId", V1_0, false, fResourceID},
	{"ResourceName", V1_0, false, fResourceName},
	{"ResourceType", V1_0, false, fResourceType},
	{"ServiceCategory", V1_0, true, fServiceCategory},
	{"ServiceName", V1_0, true, fServiceName},
	{"SkuId", V1_0, false, fSkuID},
	{"SkuPriceId", V1_0, false, fSkuPriceID},
	{"SubAccountId", V1_0, false, fSubAccountID},
	{"SubAccountName", V1_0, false, fNone},
	{"Tags", V1_0, false, fTags},

	{"CapacityReservationId", V1_1, false, fNone},
	{"CapacityReservationStatus", V1_1, false, fNone},
	{"CommitmentDiscountQuantity", V1_1, false, fNone},
	{"CommitmentDiscountUnit", V1_1, false, fNone},
	{"ServiceSubcategory", V1_1, false, fNone},
	{"SkuMeter", V1_1, false, fNone},
	{"SkuPriceDetails", V1_1, false, fNone},

	{"BillingAccountType", V1_2, false, fNone},
	{"InvoiceId", V1_2, false, fNone},
	{"PricingCurrency", V1_2, false, fNone},
	{"PricingCurrencyContractedUnitPrice", V1_2, false, fNone},
	{"PricingCurrencyEffectiveCost", V1_2, false, fNone},
	{"PricingCurrencyListUnitPrice", V1_2, false, fNone},
	{"SubAccountType", V1_2, false, fNone},

	{"AllocatedMethodDetails", V1_3, false, fNone},
	{"AllocatedMethodId", V1_3, false, fNone},
	{"AllocatedResourceId", V1_3, false, fNone},
	{"AllocatedResourceName", V1_3, false, fNone},
	{"AllocatedTags", V1_3, false, fNone},
	{"ContractApplied", V1_3, false, fNone},
	{"HostProviderName", V1_3, false, fNone},
	{"ServiceProviderName", V1_3, false, fServiceProvider},
}

// specByName finds spec columns by exact name and, failing that, by lower-case name, since some
// tools change the case of column names.
var specByName, specByLower = func() (map[string]*specColumn, map[string]*specColumn) {
	exact := make(map[string]*specColumn, len(spec))
	lower := make(map[string]*specColumn, len(spec))
	for i := range spec {
		exact[spec[i].name] = &spec[i]
		lower[strings.ToLower(spec[i].name)] = &spec[i]
	}
	return exact, lower
}()

func lookupSpec(name string) *specColumn {
	if c := specByName[name]; c != nil {
		return c
	}
	return specByLower[strings.ToLower(name)]
}

// IsSpecColumn reports whether name is a column of the FOCUS 1.0–1.3 cost and usage dataset.
func IsSpecColumn(name string) bool { return lookupSpec(name) != nil }

// required lists the Mandatory columns whose values a CostLine keeps: a file without one of them
// cannot be imported. Mandatory columns CostLine does not carry (BillingAccountName,
// BillingPeriodEnd, InvoiceIssuerName, PublisherName) may be missing.
var required = func() []string {
	var names []string
	for _, c := range spec {
		if c.mandatory && c.field != fNone {
			names = append(names, c.name)
		}
	}
	return names
}()

// layout is a file's header mapped onto CostLine: the field of each column, in file order.
type layout struct {
	names          []string // the column names as the file has them
	fields         []field
	version        string
	versionColumns []string
	extra          []string // names of the fExtra columns, in file order
	dropped        []string // names of the columns outside the spec read past, in file order
}

// keepExtra reads past the columns outside the spec that keep does not choose; nil keeps all.
func (l *layout) keepExtra(keep func(string) bool) {
	if keep == nil {
		return
	}
	l.extra = l.extra[:0]
	for i, f := range l.fields {
		if f != fExtra {
			continue
		}
		if keep(l.names[i]) {
			l.extra = append(l.extra, l.names[i])
		} else {
			l.fields[i] = fNone
			l.dropped = append(l.dropped, l.names[i])
		}
	}
}

// newLayout maps a header. It fails if a name repeats or a required column is missing; the error
// names every missing column and the version the header looks like.
func newLayout(file string, names []string) (*layout, error) {
	l := &layout{names: names, fields: make([]field, len(names)), version: V1_0}
	seen := make(map[string]bool, len(names))
	have := make(map[field]bool, len(names))
	for i, name := range names {
		c := lookupSpec(name)
		key := name
		if c != nil {
			key = c.name
		}
		if seen[key] {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s: column %q appears twice in the header; remove one of them", file, name)
		}
		seen[key] = true
		if c == nil && name == InstanceTypeColumn {
			l.fields[i] = fInstanceType
			continue
		}
		if c == nil {
			l.fields[i] = fExtra
			l.extra = append(l.extra, name)
			continue
		}
		l.fields[i] = c.field
		have[c.field] = true
		if c.since > V1_0 {
			if c.since > l.version {
				l.version, l.versionColumns = c.since, nil
			}
			if c.since == l.version {
				l.versionColumns = append(l.versionColumns, c.name)
			}
		}
	}
	l.useServiceProvider(have)
	if missing := l.missing(have); len(missing) > 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid,
			"%s: the header lacks FOCUS mandatory columns %s (the columns present look like FOCUS %s%s); "+
				"export the bill again with every mandatory FOCUS column, or fix the header",
			file, strings.Join(missing, ", "), l.version, l.evidence())
	}
	return l, nil
}

// useServiceProvider reads the provider from ServiceProviderName (FOCUS 1.3) when the file has
// no ProviderName; otherwise that column is read past.
func (l *layout) useServiceProvider(have map[field]bool) {
	for i, f := range l.fields {
		if f != fServiceProvider {
			continue
		}
		if have[fProvider] {
			l.fields[i] = fNone
		} else {
			l.fields[i] = fProvider
			have[fProvider] = true
		}
	}
}

func (l *layout) missing(have map[field]bool) []string {
	var missing []string
	for _, name := range required {
		if !have[specByName[name].field] {
			missing = append(missing, name)
		}
	}
	return missing
}

// evidence says which columns decided the version, for messages.
func (l *layout) evidence() string {
	if len(l.versionColumns) == 0 {
		return ": no column of a later version is present"
	}
	return ", from " + strings.Join(l.versionColumns, ", ")
}

// enumValues are the allowed values of the FOCUS columns read as kEnum. A value that matches one
// but for case is spelled as the spec spells it (the sample's Oracle rows say "Usage-based"), the
// PricingCategory values of 1.0-preview become their 1.0 names, and spot becomes Dynamic; other
// values are kept as written.
var enumValues = map[string]string{}

func init() {
	for _, v := range []string{
		"Adjustment", "Credit", "Purchase", "Tax", "Usage", // ChargeCategory
		"Correction",                           // ChargeClass
		"One-Time", "Recurring", "Usage-Based", // ChargeFrequency
		"Standard", "Dynamic", "Committed", "Other", // PricingCategory
		"Used", "Unused", // CommitmentDiscountStatus
		"Spend", // CommitmentDiscountCategory ("Usage" is above)
	} {
		enumValues[strings.ToLower(v)] = v
	}
	// PricingCategory values of FOCUS 1.0-preview, and the plain word for Dynamic.
	enumValues["on-demand"] = "Standard"
	enumValues["commitment-based"] = "Committed"
	enumValues["spot"] = "Dynamic"
}

// canonicalEnum returns v spelled as the spec spells it, or v itself.
func canonicalEnum(v string) string {
	if c, ok := enumValues[strings.ToLower(v)]; ok {
		return c
	}
	return v
}
