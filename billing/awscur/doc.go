// Package awscur reads AWS Cost and Usage Reports — CUR 2.0 exports of AWS Data Exports, in
// Parquet or (gzip-compressed) CSV, and legacy CUR files — as a stream of gpucost.CostLine with
// FOCUS semantics.
//
// Read takes CSV (gzip detected by its magic bytes), ReadParquet takes Parquet, and ReadFile
// chooses by content. Each calls emit once per line in file order with a *CostLine it reuses,
// and returns Stats: rows, per-currency exact sums of BilledCost, EffectiveCost, ListCost and of
// the source's line_item_unblended_cost (for reconciliation), rows per line item type, and the
// columns it did not recognise. Memory stays flat whatever the file size: nothing is kept per
// row, and the caches of repeated strings, tag sets and products are bounded.
//
// # Columns
//
// Columns are found by name in any order. CUR 2.0 names (line_item_unblended_cost; the map
// columns product, resource_tags, cost_category, tags) are those of the AWS Data Exports table
// dictionary (docs.aws.amazon.com/cur/latest/userguide/table-dictionary-cur2.html). Legacy names
// (lineItem/UnblendedCost, reservation/ReservationARN, resourceTags/user:team,
// costCategory/Team) are rewritten the way AWS rewrites them for CUR 2.0 and Athena
// (line_item_unblended_cost, reservation_reservation_a_r_n), and flattened tag columns of either
// form become tags. In CUR 2.0 CSV the map columns are JSON objects, {"user_team":"ml"}, as the
// Tailpipe AWS plugin's CUR reader decodes them; in Parquet they are MAP<STRING,STRING>.
//
// Required: line_item_line_item_type, line_item_usage_start_date, line_item_usage_end_date,
// line_item_unblended_cost and line_item_currency_code. A file without some of them fails before
// any line is emitted, with one error naming all that are missing and the dialect detected.
//
// # Mapping to FOCUS
//
// The rules follow the FinOps Foundation's CUR→FOCUS converter
// (github.com/finopsfoundation/focus_converters, conversion_configs/aws) and AWS's own FOCUS 1.0
// export (as seen in the FOCUS sample data, datasets/focus/focus_sample.csv), which they match:
//
//	ProviderName             "AWS"
//	BillingAccountId         bill_payer_account_id
//	SubAccountId             line_item_usage_account_id
//	BillingPeriodStart       bill_billing_period_start_date
//	ChargePeriodStart/End    line_item_usage_start_date / line_item_usage_end_date
//	BilledCost               line_item_net_unblended_cost where the row has it, else
//	                         line_item_unblended_cost (billed_cost_S001.yaml)
//	EffectiveCost            by line item type (effective_cost_S001.yaml):
//	                           SavingsPlanCoveredUsage  savings_plan_savings_plan_effective_cost
//	                           SavingsPlanRecurringFee  savings_plan_total_commitment_to_date −
//	                                                    savings_plan_used_commitment (the unused part)
//	                           SavingsPlanNegation,
//	                           SavingsPlanUpfrontFee    0 (amortised into covered usage)
//	                           DiscountedUsage          reservation_effective_cost
//	                           RIFee                    reservation_unused_amortized_upfront_fee_for_billing_period
//	                                                    + reservation_unused_recurring_fee
//	                           Fee with a reservation   0 (an RI's upfront fee)
//	                           others                   BilledCost
//	                         On rows with net columns the net_ variants are used where AWS has
//	                         them; a file without the amortisation columns costs what it bills.
//	ListCost                 pricing_public_on_demand_cost
//	ContractedCost           BilledCost; for DiscountedUsage pricing_public_on_demand_cost, for
//	                         SavingsPlanNegation 0 (CUR has no contracted price column)
//	ChargeCategory           Usage: Usage, DiscountedUsage, SavingsPlanCoveredUsage,
//	                         SavingsPlanNegation and the discounts (BundledDiscount, EdpDiscount,
//	                         PrivateRateDiscount, DistributorDiscount, Discount); Purchase: RIFee,
//	                         Fee, SavingsPlanRecurringFee, SavingsPlanUpfrontFee; Tax; Credit
//	                         (FOCUS 1.0, as AWS's export writes it); Refund and unknown types:
//	                         Adjustment
//	ChargeClass              empty: CUR marks no corrections (AWS lists the same gap for its
//	                         FOCUS export)
//	ChargeFrequency          Usage-Based for usage, Recurring for RIFee and the Savings Plan
//	                         recurring fee, One-Time for upfront fees, credits and refunds; Fee
//	                         and Tax by bill_bill_type (Anniversary → Recurring, Purchase and
//	                         Refund → One-Time; charge_frequency_S001.yaml)
//	PricingCategory          Committed for commitment-covered usage, negations and commitment
//	                         fees; Dynamic for spot usage (line_item_usage_type contains
//	                         SpotUsage, as in the AWS Well-Architected CUR query library, or
//	                         pricing_term, pricing_purchase_option or the product's
//	                         marketoption say Spot); Standard for other usage and fees; Other for
//	                         credits, refunds and discounts; empty for tax
//	CommitmentDiscountId     savings_plan_savings_plan_a_r_n, else reservation_reservation_a_r_n
//	CommitmentDiscountType   "Savings Plan" or "Reserved Instance"
//	CommitmentDiscountCategory  Spend (Savings Plans) or Usage (reservations)
//	                         (commitment_discount_category_S001.yaml)
//	CommitmentDiscountStatus Used on covered usage and negations, Unused on RIFee and the
//	                         Savings Plan recurring fee, whose EffectiveCost is the unused part
//	ResourceId               line_item_resource_id; ResourceType derived from it (instance,
//	                         volume, snapshot, or the resource type of an ARN)
//	InstanceType             product_instance_type, else the type a usage type names after its
//	                         colon (USE1-SpotUsage:p4d.24xlarge)
//	ServiceName              the product map's product_name, else line_item_product_code
//	RegionId, AvailabilityZone  product_region_code, line_item_availability_zone
//	SkuId, SkuPriceId        product_sku, pricing_rate_code
//	ChargeDescription        line_item_line_item_description
//	ConsumedQuantity/Unit    line_item_usage_amount / pricing_unit on usage lines (not on
//	                         negations and discounts, which would count usage twice)
//	PricingQuantity/Unit     line_item_usage_amount / pricing_unit
//	Tags                     resource_tags (and the tags column, and flattened tag columns),
//	                         keys as AWS wrote them (user_team in CUR 2.0, user:team in legacy
//	                         CUR); cost categories as costCategory/<name>
//	Extra                    x_UsageType, x_Operation, x_ServiceCode (line_item_usage_type,
//	                         line_item_operation, product_servicecode), AWS's FOCUS extensions
//
// A Savings Plan covered line bills its on-demand cost and its SavingsPlanNegation line takes it
// back; both are kept, so BilledCost sums match the source row for row, and they cancel once
// summed by resource and hour (AWS's FOCUS export shows the pair as one line billed at zero).
//
// # Reading Parquet
//
// ReadParquet decodes only the columns the mapping reads, a batch of rows at a time, straight
// from the pages (billing/internal/pqpage): each column fills its slice of the batch in a loop
// over the page, a dictionary page's strings interned once per dictionary entry and copied by
// index, DOUBLE and TIMESTAMP values taken from the page's typed values. Map columns are read the
// same way, their key and value leaves side by side, into dictionary indexes; a row's product
// attributes are found where the previous product had them, and its tags are cached under the
// words of its entries (a dictionary entry, or the address of an interned string), so a row whose
// tags were seen costs a hash of a few words. Only then are the rows put together one by one.
//
// # Bad input
//
// Reading stops at the first value it cannot read, with a gpucost.EInvalid error naming the file,
// line and column (Parquet: row and column), the value, and what to do. Truncated gzip and
// Parquet files fail the same way; so do damaged Parquet files, whose declared sizes are checked
// before parquet-go allocates by them. Negative amounts are kept as such. Amounts are exact:
// decimal text is parsed into nano-units, and Parquet DOUBLEs are read as the shortest decimal
// that reads back as the same double.
package awscur
