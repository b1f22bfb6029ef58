package azure

import (
	"strings"
)

// chargeKind sorts rows by how the two datasets cost them.
type chargeKind uint8

const (
	kindOther          chargeKind = iota
	kindCommitUsage               // usage a reservation or savings plan covers
	kindUnused                    // ChargeType UnusedReservation or UnusedSavingsPlan
	kindCommitPurchase            // ChargeType Purchase or Refund of a reservation or savings plan
)

// class is the FOCUS reading of a row's ChargeType, PricingModel and Frequency.
type class struct {
	category, chargeClass, frequency, pricing, status string
	kind                                              chargeKind
	consumed                                          bool // Quantity is a consumed quantity
}

// fold lower-cases s and drops spaces, so "On Demand", "OnDemand" and "ondemand" compare equal.
func fold(s string) string {
	if s == "" {
		return ""
	}
	return strings.ToLower(strings.ReplaceAll(s, " ", ""))
}

// classify maps ChargeType, PricingModel and Frequency to FOCUS as Microsoft's conversion guide
// does (learn.microsoft.com/cloud-computing/finops/focus/convert, "Convert Cost Management data
// to FOCUS"; microsoft/finops-toolkit docs-mslearn/focus/convert.md):
//
//   - ChargeCategory: Usage, Purchase, Credit and Tax as written; UnusedReservation and
//     UnusedSavingsPlan are Usage; Refund is Purchase with ChargeClass Correction; others
//     (RoundingAdjustment, …) are Adjustment. Files without a ChargeType column (the
//     usage-only pay-as-you-go schema and the older usage details) are all Usage.
//   - ChargeFrequency: OneTime → One-Time, Recurring → Recurring, UsageBased → Usage-Based;
//     where Frequency is absent or holds another value (Microsoft writes "Other", which is no
//     FOCUS value), Usage-Based for usage, Recurring for tax, One-Time otherwise.
//   - PricingCategory: OnDemand → Standard, Spot → Dynamic, Reservation and SavingsPlan →
//     Committed, other values → Other, and none for tax, which FOCUS requires. A meter named
//     "… Spot" or "… Low Priority" (preemptible capacity, billed on its own meter) is Dynamic when
//     PricingModel says no more than OnDemand; without PricingModel, usage a commitment covers is
//     Committed and other usage Standard.
//   - CommitmentDiscountStatus: Unused on the unused rows, Used on usage a commitment covers.
//   - ConsumedQuantity is Quantity on ChargeType Usage only ("If ChargeType == Usage, then
//     Quantity; otherwise, null").
func classify(chargeType, pricingModel, frequency, meterName string, hasChargeType bool, commitID string) class {
	ct, pm := fold(chargeType), fold(pricingModel)
	c := class{category: "Adjustment"}
	switch ct {
	case "usage":
		c.category, c.consumed = "Usage", true
	case "purchase", "credit", "tax":
		c.category = map[string]string{"purchase": "Purchase", "credit": "Credit", "tax": "Tax"}[ct]
	case "unusedreservation", "unusedsavingsplan":
		c.category, c.kind, c.status = "Usage", kindUnused, "Unused"
	case "refund":
		c.category, c.chargeClass = "Purchase", "Correction"
	case "":
		if !hasChargeType {
			c.category, c.consumed = "Usage", true
		}
	}
	committed := pm == "reservation" || pm == "savingsplan" || pm == "savingsplans" || pm == "" && commitID != ""
	switch {
	case c.kind == kindUnused:
	case committed && c.consumed:
		c.kind, c.status = kindCommitUsage, "Used"
	case committed && (ct == "purchase" || ct == "refund"):
		c.kind = kindCommitPurchase
	}
	c.frequency = frequencyOf(frequency, c.category)
	c.pricing = pricingOf(pm, committed, meterName, c)
	if commitID == "" {
		c.status = ""
	}
	return c
}

func frequencyOf(frequency, category string) string {
	switch fold(frequency) {
	case "onetime":
		return "One-Time"
	case "recurring":
		return "Recurring"
	case "usagebased":
		return "Usage-Based"
	}
	switch category {
	case "Usage":
		return "Usage-Based"
	case "Tax":
		return "Recurring"
	}
	return "One-Time"
}

func pricingOf(pm string, committed bool, meterName string, c class) string {
	switch {
	case c.category == "Tax":
		return ""
	case pm == "spot":
		return "Dynamic"
	case committed:
		return "Committed"
	case pm != "" && pm != "ondemand":
		return "Other"
	case preemptibleMeter(meterName):
		return "Dynamic"
	case pm == "ondemand" || c.category == "Usage":
		return "Standard"
	}
	return ""
}

// preemptibleMeter reports whether a meter bills spot or low-priority capacity: Azure names such
// meters after the size with " Spot" or " Low Priority" appended ("ND96isr H100 v5 Spot",
// "NC6 Low Priority"), as the Azure retail prices API lists them.
func preemptibleMeter(name string) bool {
	return strings.HasSuffix(name, " Spot") || strings.HasSuffix(name, " Low Priority")
}

// commitment returns the CommitmentDiscountId, Type and Category of a row, following Microsoft's
// conversion guide: the id is BenefitId, whose path tells the kind
// (/microsoft.capacity/ → Reservation, Usage; /microsoft.billingbenefits/ → Savings Plan, Spend).
// Files older than BenefitId carry ReservationId (the reservation's GUID) and ProductOrderId (the
// reservation order's): the id is then the reservation's resource id built from them, the form
// BenefitId takes, so the same reservation has one id in old and new files.
func commitment(benefitID, reservationID, productOrderID, pricingModel string) (id, typ, category string) {
	id = benefitID
	if id == "" && reservationID != "" {
		id = reservationID
		if productOrderID != "" && !strings.Contains(reservationID, "/") {
			id = "/providers/Microsoft.Capacity/reservationOrders/" + productOrderID + "/reservations/" + reservationID
		}
	}
	if id == "" {
		return "", "", ""
	}
	lower := strings.ToLower(id)
	switch {
	case strings.Contains(lower, "/microsoft.capacity/"):
		return id, "Reservation", "Usage"
	case strings.Contains(lower, "/microsoft.billingbenefits/"):
		return id, "Savings Plan", "Spend"
	}
	switch fold(pricingModel) {
	case "savingsplan", "savingsplans":
		return id, "Savings Plan", "Spend"
	case "reservation":
		return id, "Reservation", "Usage"
	}
	if benefitID == "" { // a ReservationId alone
		return id, "Reservation", "Usage"
	}
	return id, "", ""
}
