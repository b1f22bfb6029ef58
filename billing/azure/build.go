package azure

import (
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/internal/jsontext"
)

// parseDims reads the string cells of the current record and maps them onto a CostLine, as
// doc.go lays out.
func (rd *reader) parseDims() (*dims, error) {
	var s [numStrings]string
	for f := field(0); f < tDate; f++ {
		if f == fAdditionalInfo || f == fTags {
			continue
		}
		b := rd.cell(f)
		s[f] = rd.intern(b)
	}
	cur := s[fCurrency]
	if cur == "" {
		if cur = rd.opt.Currency; cur == "" {
			return nil, rd.bad(fCurrency, "a currency code (USD, EUR, …)", nil)
		}
	}
	tags, err := rd.tagSet()
	if err != nil {
		return nil, err
	}
	info := rd.cell(fAdditionalInfo)
	cid, ctype, ccat := commitment(s[fBenefitID], s[fReservationID], s[fProductOrderID], s[fPricingModel])
	cls := classify(s[fChargeType], s[fPricingModel], s[fFrequency], s[fMeterName], rd.plan.has(fChargeType), cid)
	u := parseUnit(s[fUnit])
	rid := strings.ToLower(s[fResourceID])
	rtype := armType(rid)
	if rtype == "" {
		rtype = strings.ToLower(s[fResourceType])
	}
	svc := serviceOf(rtype, s[fConsumedService], s[fServiceName], s[fMeterCategory])
	money := gpucost.Money{Currency: cur}
	d := &dims{cls: cls, block: u.block, chargeType: s[fChargeType]}
	d.line = gpucost.CostLine{
		Provider:                   "Microsoft",
		BillingAccountID:           rd.billingAccount(&s),
		SubAccountID:               s[fSubscription],
		ChargeCategory:             cls.category,
		ChargeClass:                cls.chargeClass,
		ChargeFrequency:            cls.frequency,
		PricingCategory:            cls.pricing,
		BilledCost:                 money,
		EffectiveCost:              money,
		ListCost:                   money,
		ContractedCost:             money,
		CommitmentDiscountID:       cid,
		CommitmentDiscountStatus:   cls.status,
		CommitmentDiscountType:     ctype,
		CommitmentDiscountCategory: ccat,
		ResourceID:                 rd.intern([]byte(rid)),
		ResourceName:               firstOf(s[fResourceName], lastSegment(s[fResourceID])),
		ResourceType:               rd.intern([]byte(rtype)),
		InstanceType:               rd.intern([]byte(instanceType(info, s[fMeterCategory], s[fMeterName], &rd.scratch))),
		ServiceName:                svc.name,
		ServiceCategory:            svc.category,
		RegionID:                   rd.intern([]byte(regionID(firstOf(s[fResourceLocation], s[fLocation])))),
		AvailabilityZone:           s[fAvailabilityZone],
		SkuID:                      firstOf(s[fProductID], s[fMeterID]),
		ChargeDescription:          rd.description(&s),
		PricingUnit:                u.pricing,
		Tags:                       tags,
		Extra:                      rd.extra(&s),
	}
	if cls.consumed {
		d.line.ConsumedUnit = u.distinct
	}
	return d, nil
}

// billingAccount is BillingAccountId on EA files and BillingProfileId on MCA and MPA files, whose
// billing profile is the account an invoice goes to (Microsoft's conversion guide); each falls
// back on the other.
func (rd *reader) billingAccount(s *[numStrings]string) string {
	if rd.plan.mca {
		return firstOf(s[fBillingProfile], s[fBillingAccount])
	}
	return firstOf(s[fBillingAccount], s[fBillingProfile])
}

// description is ProductName (Microsoft's conversion guide), or in files without it the meter's
// category, subcategory and name: "Virtual Machines - NCasT4_v3 Series - NC4as T4 v3".
func (rd *reader) description(s *[numStrings]string) string {
	if s[fProductName] != "" {
		return s[fProductName]
	}
	var parts []string
	for _, f := range []field{fMeterCategory, fMeterSubCategory, fMeterName} {
		if s[f] != "" {
			parts = append(parts, s[f])
		}
	}
	return rd.intern([]byte(strings.Join(parts, " - ")))
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// intern returns one string per distinct byte sequence, so lines share their strings.
func (rd *reader) intern(b []byte) string { return rd.strs.Get(b) }

// tagSet parses the Tags cell into Labels, keys as written, through a cache keyed by the cell;
// nil when there are none. A key that appears twice keeps its first value.
func (rd *reader) tagSet() (gpucost.Labels, error) {
	b := rd.cell(fTags)
	if len(b) == 0 {
		return nil, nil
	}
	if l, ok := rd.tags[string(b)]; ok {
		return l, nil
	}
	l := gpucost.Labels{}
	err := jsontext.Members(b, jsontext.Bare, &rd.scratch, func(k, v []byte) {
		if _, dup := l[string(k)]; !dup {
			l[rd.intern(k)] = rd.intern(v)
		}
	})
	if err != nil {
		return nil, rd.bad(fTags, wantTags, err)
	}
	if len(l) == 0 {
		l = nil
	}
	if len(rd.tags) >= mapLimit {
		clear(rd.tags)
	}
	rd.tags[string(b)] = l
	return l, nil
}

// extraFields are the columns kept in CostLine.Extra, under the names of Microsoft's FOCUS
// export (cost-usage-details-focus; docs-mslearn/focus/mapping.md): the meter hierarchy that
// tells GPU meters apart, the resource group, cost center and invoice section that costs are
// often charged back by, and UnitOfMeasure as written.
var extraFields = []struct {
	f    field
	name string
}{
	{fResourceGroup, "x_ResourceGroupName"},
	{fMeterCategory, "x_SkuMeterCategory"},
	{fMeterSubCategory, "x_SkuMeterSubcategory"},
	{fMeterName, "x_SkuMeterName"},
	{fCostCenter, "x_CostCenter"},
	{fInvoiceSection, "x_InvoiceSectionName"},
	{fUnit, "x_PricingUnitDescription"},
}

// extra returns the row's Extra map, shared by every row with the same values; nil when all are
// empty.
func (rd *reader) extra(s *[numStrings]string) map[string]string {
	key := rd.scratch[:0]
	for _, e := range extraFields {
		key = append(append(key, s[e.f]...), 0)
	}
	rd.scratch = key
	if m, ok := rd.extras[string(key)]; ok {
		return m
	}
	var m map[string]string
	for _, e := range extraFields {
		if v := s[e.f]; v != "" {
			if m == nil {
				m = make(map[string]string, len(extraFields))
			}
			m[e.name] = v
		}
	}
	if len(rd.extras) >= mapLimit {
		clear(rd.extras)
	}
	rd.extras[string(key)] = m
	return m
}
