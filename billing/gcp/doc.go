// Package gcp reads the Cloud Billing export to BigQuery — the standard usage cost table
// (gcp_billing_export_v1_<BILLING_ACCOUNT_ID>) and the detailed, resource-level one
// (gcp_billing_export_resource_v1_<…>) — as a stream of gpucost.CostLine with FOCUS semantics,
// in the forms users get it out of BigQuery:
//
//   - newline-delimited JSON with nested records, as `bq extract --destination_format
//     NEWLINE_DELIMITED_JSON` writes it (TIMESTAMP as "2025-06-03 14:00:00 UTC", INT64 as
//     strings, <, > and & escaped as \u003c…);
//   - a JSON array of rows, as `bq query --format=json` or prettyjson prints it (values may be
//     strings, times seconds since the epoch), and rows spread over several lines;
//   - CSV, which BigQuery cannot export with nested or repeated columns, so users flatten them:
//     records as dotted (service.description, as the console names them) or underscore
//     (service_description) columns in any order, repeated records (labels, system_labels,
//     project.labels, tags, credits) as JSON text, as TO_JSON_STRING writes them; a whole record
//     as JSON text in one column (adjustment_info) is read too.
//
// Any of these may be gzip-compressed (detected by its magic bytes). Read, ReadFile and Detect
// tell CSV from JSON by the first character. Memory stays flat whatever the file size: nothing
// is kept per row, and the caches of repeated strings, label sets and dimensions are bounded.
//
// Field names and meanings are those of Google's schema, "Structure of Standard data export" and
// "Structure of Detailed data export"
// (docs.cloud.google.com/billing/docs/how-to/export-data-bigquery-tables/standard-usage and
// …/detailed-usage), and of Google's "Spend-based CUDs data model updates" (consumption_model,
// subscription.instance_id and FEE_UTILIZATION_OFFSET rows).
// A CSV without cost, currency, usage_start_time and usage_end_time fails before any line is
// emitted, with one error listing them all and the dialect detected; in JSON each row must hold
// them. Names outside the schema are listed in Stats.Unknown and not read.
//
// # Mapping to FOCUS
//
// The mapping follows Google's own FOCUS BigQuery view for the detailed export (the FOCUS v1.0
// view Google published, "last updated on March 19, 2024") and, where Google's view is silent,
// the FinOps Foundation's converter (github.com/finopsfoundation/focus_converters,
// conversion_configs/gcp):
//
//	ProviderName             "Google Cloud"
//	BillingAccountId         billing_account_id
//	SubAccountId             project.id (Google's view puts the billing account here; a project
//	                         is what FOCUS calls a sub account, and what teams are charged by)
//	BillingPeriodStart       invoice.month at midnight America/Los_Angeles, as Google's view parses
//	                         it (PARSE_TIMESTAMP("%Y%m", invoice.month, "America/Los_Angeles"))
//	ChargePeriodStart/End    usage_start_time / usage_end_time
//	BilledCost               cost + Σ credits.amount            (Google's view)
//	EffectiveCost            cost + Σ credits.amount            (Google's view)
//	ListCost                 cost_at_list (0 where the export predates it, June 2023)
//	ContractedCost           cost                               (Google's view)
//	ChargeCategory           cost_type regular → Usage, tax → Tax, adjustment and rounding_error →
//	                         Adjustment (Google's view); a committed use discount's fee (SKU
//	                         "Commitment v1: A2 Cpu in Americas for 1 Year", "Commitment - dollar
//	                         based …", or a row carrying a FEE_UTILIZATION_OFFSET credit) is
//	                         Purchase, where the view calls it usage
//	ChargeClass              Correction when adjustment_info says a correction: type
//	                         USAGE_CORRECTION, PRICE_CORRECTION or METADATA_CORRECTION, or a
//	                         negating mode; goodwill and SLA credits are not corrections
//	ChargeFrequency          Usage-Based for usage, Recurring for commitment fees and tax,
//	                         One-Time for adjustments
//	PricingCategory          usage and fees only: Committed for commitment fees and for usage a
//	                         COMMITTED_USAGE_DISCOUNT or COMMITTED_USAGE_DISCOUNT_DOLLAR_BASE
//	                         credit covers or a consumption_model other than Default prices (as
//	                         Google's view); Dynamic for Spot and preemptible SKUs ("Spot
//	                         Preemptible Nvidia Tesla A100 GPU running in Americas", "Preemptible
//	                         …"), which the view leaves Standard; Standard otherwise
//	CommitmentDiscountId     subscription.instance_id, else the CUD credit's id, else its full_name
//	CommitmentDiscountCategory  Usage for resource-based CUDs (COMMITTED_USAGE_DISCOUNT, "Commitment
//	                         v1" fees), Spend for spend-based ones (…_DOLLAR_BASE, consumption
//	                         models, FEE_UTILIZATION_OFFSET, "dollar based" fees), as Google's view
//	CommitmentDiscountType   "Committed Use Discount"
//	CommitmentDiscountStatus Used on covered usage; empty on fees (FOCUS sets it for usage only)
//	ResourceId               resource.global_name, else resource.name (Google's view)
//	ResourceName             resource.name
//	ResourceType             the service and collection of the global name, "compute.instances"
//	                         (what Google's view's expression derives)
//	InstanceType             the system label compute.googleapis.com/machine_spec
//	                         ("a2-highgpu-1g", "a3-highgpu-8g", "g2-standard-8"): GPU SKUs are billed
//	                         apart from the host, and this names the machine they ran on
//	ServiceName              service.description
//	RegionId                 location.region, else location.location ("us", "global"), as the
//	                         converter does
//	AvailabilityZone         location.zone
//	SkuId                    sku.id
//	SkuPriceId               "Billing Account ID:…, SKU ID: …, Price Tier Start Amount: …" from
//	                         price.tier_start_amount, as Google's view builds it (usage only)
//	ChargeDescription        sku.description (the GPU, "Nvidia L4 GPU running in Americas")
//	ConsumedQuantity/Unit    usage.amount / usage.unit, on usage (not fees, tax or adjustments)
//	PricingQuantity/Unit     usage.amount_in_pricing_units / usage.pricing_unit (the converter's)
//	Tags                     labels, system_labels, tags and project.labels, keys as written
//	                         ("team", "goog-k8s-cluster-name", "compute.googleapis.com/cores"), as
//	                         Google's view gathers them. A key in several resolves to the most
//	                         specific value: the resource's label, then its system label (keys
//	                         namespaced, they cannot clash), then a tag bound to the resource
//	                         itself, then the project's label, then a tag it inherits.
//	Extra                    x_ServiceId, x_CostType, x_Location, x_CurrencyConversionRate (as in
//	                         Google's view), x_ProjectName, x_ConsumptionModel, x_AdjustmentType,
//	                         x_SellerName, and x_CreditTypes: the types of the credits netted into
//	                         the line, sorted, comma-separated
//
// # Credits
//
// Google's view nets every credit into its row — free tier, sustained use, resource- and
// spend-based committed use discounts, promotions, contract discounts, reseller margins,
// subscription benefits, fee offsets — and keeps them apart only in x_Credits; the FinOps
// converter nets them into EffectiveCost too. So does this reader: one CostLine per row, its
// credits subtracted from BilledCost and EffectiveCost and kept out of ContractedCost, so a
// line's credits are BilledCost − ContractedCost. No separate Credit lines are made: a credit
// stays on the resource, SKU, project and tags that earned it, so allocation charges each team
// its net cost, and a credit-netted line needs no pairing. A resource-based CUD's credit makes
// the usage it covers cost (nearly) nothing and its fee is a Purchase line of its own, as Google
// bills it; the export carries no amortisation to spread the fee over the usage.
//
// # Totals
//
// Stats.Totals holds, per currency, exact sums (nano-units; amounts are parsed from their decimal
// text, never through float64): BilledCost and EffectiveCost (Σ cost + Σ credits.amount, the net
// cost Google's invoice and Cost table show), ListCost (Σ cost_at_list), ContractedCost and
// Source (Σ cost as the source has it); Stats.Credits holds Total (Σ credits.amount over every
// credit of every row) and ByType (Σ credits.amount by credits.type). BilledCost = Source +
// Credits.Total holds exactly. An import reconciles its BilledCost with `SELECT SUM(cost) +
// SUM(IFNULL((SELECT SUM(c.amount) FROM UNNEST(credits) c), 0))` over the same rows, Google's
// own total query.
//
// # Speed
//
// A row is about 1 KB, most of it the same from hour to hour: its strings and label records, the
// dimensions. The CSV scanner splits records in place, finding quoted fields' ends eight bytes
// at a time (flattened JSON cells are dense with doubled quotes); the JSON reader walks each
// row once, reading nested records in place and guessing each key from the previous row's
// order. A row's dimension cells are hashed (128 bits) and looked up in a two-generation cache,
// so only new dimensions are unescaped, interned, parsed and mapped; timestamps and quantities
// that repeat the previous row's are not parsed again; credits are parsed without allocating.
//
// # Bad input
//
// Reading stops at the first value it cannot read, with a gpucost.EInvalid error naming the file,
// line and column (the CSV column, or the character of the JSON value), the field, the value and
// what to do. Truncated gzip and JSON fail the same way. Negative amounts (credits, corrections,
// goodwill) are kept as such.
package gcp
