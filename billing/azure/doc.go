// Package azure reads Azure Cost Management cost details files — exports, portal downloads and
// Cost Details API reports of the "actual cost" and "amortized cost" datasets, in CSV or
// gzip-compressed CSV — as a stream of gpucost.CostLine with FOCUS semantics.
//
// Read and ReadFile tell the dataset from the rows; Options.Read takes it from the caller. Each
// calls emit once per row in file order with a *CostLine it reuses, and returns Stats: the rows,
// the schema and dataset found, per-currency exact sums, rows per ChargeType, and the columns it
// did not recognise. Memory stays flat whatever the file size: nothing is kept per row, and the
// caches of row dimensions, strings, tag sets and extras are bounded.
//
// # Schemas
//
// Columns are found by name in any order, casing or spacing (costInBillingCurrency,
// CostInBillingCurrency, "Cost In Billing Currency"), as the cost details field reference warns
// they vary ("Understand cost details fields",
// learn.microsoft.com/azure/cost-management-billing/automate/understand-usage-details-fields).
// The schemas are those of Microsoft's dataset schema reference (…/dataset-schema/
// cost-usage-details-ea, cost-usage-details-mca, cost-usage-details-pay-as-you-go and the
// usage-details-* versions): EA (BillingCurrencyCode, CostInBillingCurrency, ResourceGroup,
// PayGPrice), MCA (billingCurrency, costInBillingCurrency, paygCostInBillingCurrency,
// exchangeRatePricingToBilling, ProductId), MPA (MCA with partner and customer columns) and
// pay-as-you-go: EA-style columns with BillingCurrency instead of BillingCurrencyCode, or the
// usage-only schema (SubscriptionGuid, UsageDateTime, UsageQuantity, PreTaxCost, InstanceId,
// Currency). The older names map as the field reference's table of old terms says:
// Cost, PreTaxCost and ExtendedCost are the cost; Currency the currency; ConsumedQuantity and
// UsageQuantity the quantity; InstanceId (InstanceName) the resource id; Unit the unit of
// measure; UsageDateTime, UsageDate and UsageStart the date. Dates are ISO (2024-09-01, with or
// without a time) or the US form MM/DD/YYYY of portal downloads; day/month/year is refused. A
// byte order mark is ignored.
//
// Required: a cost column, Date (or an older name) and a currency column — or Options.Currency
// for files without one. A file without them fails before any line is emitted, with one error
// naming all that are missing and the schema detected.
//
// # Actual and amortized cost
//
// The two datasets hold the same rows but for commitments (reservations and savings plans):
// actual cost has the purchases and prices covered usage at 0; amortized cost has no purchases,
// prices covered usage at its share of the commitment and adds UnusedReservation and
// UnusedSavingsPlan rows for what went unused ("Get Enterprise Agreement and Microsoft Customer
// Agreement reservation costs and usage", reservations/understand-reserved-instance-usage-ea).
// Without the caller's word the rows tell: an Unused… row or covered usage with a cost shows
// amortized cost, a commitment purchase or covered usage at 0 shows actual cost; Stats.Dataset
// and Stats.DatasetFrom say which row decided. Rows without commitments are the same in both, so
// a file without commitment rows has no dataset, and needs none.
//
// Microsoft's FOCUS conversion takes BilledCost from the actual dataset and EffectiveCost from
// the amortized one ("Convert Cost Management data to FOCUS",
// learn.microsoft.com/cloud-computing/finops/focus/convert, and "Validate FOCUS data",
// …/focus/validate: BilledCost sums to actual cost, EffectiveCost to amortized cost). One file
// holds one of them, so this reader keeps that file's own total whole and derives the other
// column row by row:
//
//	Dataset    BilledCost                                   EffectiveCost
//	actual     CostInBillingCurrency                        CostInBillingCurrency (purchases are
//	                                                        not spread: the amortized shares are
//	                                                        not in the file)
//	amortized  CostInBillingCurrency, but 0 on covered      CostInBillingCurrency, but 0 on a
//	           usage and Unused… rows (billed with the      commitment purchase or refund, if one
//	           purchase, which is not in the file)          is there (Microsoft's rule)
//
// Stats.Totals holds, per billing currency, the exact sums of the lines' BilledCost,
// EffectiveCost, ListCost and ContractedCost, and Source: the sum of the source's cost column as
// written (Stats.CostColumn: CostInBillingCurrency, or Cost, PreTaxCost or ExtendedCost in older
// files). For an actual file (and a file without commitment rows) Totals.BilledCost and
// Totals.EffectiveCost both equal Totals.Source. For an amortized file Totals.EffectiveCost equals
// Totals.Source — less any commitment purchase in it, which amortized exports do not carry — and
// Totals.BilledCost is Totals.Source less the covered usage and the unused rows. Import one of the
// two datasets, not both (they repeat every row without commitments); amortized cost is the one
// that prices reserved GPUs per VM.
//
// # Mapping to FOCUS
//
// The rules follow Microsoft's conversion guide (convert.md and mapping.md in
// github.com/microsoft/finops-toolkit, docs-mslearn/focus) and Microsoft's own FOCUS export as
// the FOCUS sample data shows it (datasets/focus/focus_sample.csv), with the FinOps Foundation's
// Azure converter (github.com/finopsfoundation/focus_converters, conversion_configs/azure) where
// they agree:
//
//	ProviderName              "Microsoft"
//	BillingAccountId          EA: BillingAccountId; MCA, MPA: BillingProfileId
//	SubAccountId              SubscriptionId (SubscriptionGuid in older files)
//	BillingPeriodStart        BillingPeriodStartDate; without it the first day of Date's month
//	ChargePeriodStart/End     Date / Date + 1 day (the exclusive end)
//	ChargeCategory/Class      ChargeType: Usage, Purchase, Credit, Tax as written;
//	                          UnusedReservation, UnusedSavingsPlan → Usage; Refund → Purchase,
//	                          Correction; RoundingAdjustment and others → Adjustment; no
//	                          ChargeType column → Usage
//	ChargeFrequency           Frequency: OneTime → One-Time, Recurring, UsageBased → Usage-Based;
//	                          absent or other → by category (Usage-Based for usage, Recurring for
//	                          tax, One-Time otherwise)
//	PricingCategory           PricingModel: OnDemand → Standard, Spot → Dynamic, Reservation and
//	                          SavingsPlan → Committed, others → Other; none on tax; "… Spot" and
//	                          "… Low Priority" meters → Dynamic
//	CommitmentDiscountId      BenefitId, else the reservation id built from ProductOrderId and
//	                          ReservationId (/providers/Microsoft.Capacity/reservationOrders/…/
//	                          reservations/…), else ReservationId
//	CommitmentDiscountType/   /microsoft.capacity/ in the id → Reservation, Usage;
//	Category                  /microsoft.billingbenefits/ → Savings Plan, Spend
//	CommitmentDiscountStatus  Unused on Unused… rows, Used on covered usage
//	BilledCost, EffectiveCost see above
//	ListCost                  PaygCostInBillingCurrency (MCA), else PayGPrice × Quantity (EA;
//	                          × ExchangeRatePricingToBilling on MCA files without it); 0 without
//	ContractedCost            UnitPrice × Quantity (× ExchangeRatePricingToBilling on MCA);
//	                          CostInBillingCurrency where UnitPrice is absent or empty
//	ResourceId                ResourceId (InstanceId), lower-cased as Microsoft's FOCUS export
//	                          writes it
//	ResourceName              ResourceName, else the id's last segment (MCA)
//	ResourceType              the resource id's ARM type, lower case
//	                          ("microsoft.compute/virtualmachines": Microsoft's x_ResourceType;
//	                          its friendly names need a lookup table this reader does not carry)
//	InstanceType              the VM size: AdditionalInfo's ServiceType (or VMSize) when it is
//	                          one (Standard_NC24ads_A100_v4), else on Virtual Machines meters the
//	                          size the meter name spells (ND96isr H100 v5 Spot →
//	                          Standard_ND96isr_H100_v5), so N-series GPU VMs can be found
//	ServiceName/Category      Microsoft's Services data file for the resource type (Virtual
//	                          Machines/Compute, Azure Kubernetes Service, Azure Machine Learning,
//	                          …) or consumed service (Azure Reservations, Azure Savings Plan for
//	                          Compute), else ServiceName (pay-as-you-go), else MeterCategory
//	RegionId                  ResourceLocation (or Location) lower-cased without spaces, with
//	                          area-first spellings mapped ("US East" → eastus) as Microsoft's
//	                          Regions data file does
//	AvailabilityZone          AvailabilityZone
//	SkuId                     ProductId (MCA), else MeterId (EA files have no ProductId; the
//	                          meter keeps the SKUs of one resource apart); SkuPriceId: none
//	ChargeDescription         ProductName, else MeterCategory - MeterSubCategory - MeterName
//	ConsumedQuantity/Unit     on ChargeType Usage: Quantity × the UnitOfMeasure's block size,
//	                          in its plural unit ("10 Hours", Quantity 2.4 → 24 Hours)
//	PricingQuantity/Unit      Quantity, in the UnitOfMeasure's blocks ("10 Hours"; "1 Hour" →
//	                          "Hours")
//	Tags                      Tags, a JSON object with or without its outer braces
//	                          ("team": "ml","env": "prod"), keys as written
//	Extra                     x_ResourceGroupName, x_SkuMeterCategory, x_SkuMeterSubcategory,
//	                          x_SkuMeterName, x_CostCenter, x_InvoiceSectionName and
//	                          x_PricingUnitDescription (UnitOfMeasure), the names of Microsoft's
//	                          FOCUS export
//
// Quantity counts blocks of the UnitOfMeasure: a row's cost is EffectivePrice × Quantity, and in
// Microsoft's FOCUS sample ListCost is ListUnitPrice × ConsumedQuantity with ListUnitPrice the
// price of a 10,000-unit block. Microsoft's guides disagree on the block (convert.md divides
// PricingQuantity by it, validate.md multiplies); this reader keeps Quantity as the priced
// quantity and multiplies the consumed one, so GPU-hours come out in hours whatever the meter's
// block. For VM meters, "1 Hour", both are the same.
//
// # Bad input
//
// Reading stops at the first value it cannot read, with a gpucost.EInvalid error naming the
// file, line and column, the value and what to do: an amount, price, quantity or date that does
// not parse, an empty cost, date or currency, a Tags cell that is not a JSON object of strings,
// a row with the wrong number of fields, a truncated gzip stream, or a row the caller's dataset
// cannot hold. An AdditionalInfo cell that is not JSON only gives no VM size. Amounts are exact:
// decimal text is parsed into nano-units, and derived amounts are multiplied as decimals and
// rounded once, half to even. Negative amounts are kept.
package azure
