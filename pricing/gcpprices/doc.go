// Package gcpprices reads Compute Engine GPU prices from the Cloud Billing Catalog API.
//
// GET https://cloudbilling.googleapis.com/v1/services/6F81-5844-456A/skus?key=API_KEY lists
// the public SKUs of Compute Engine (service id 6F81-5844-456A), 5,000 a page; a response
// has skus[] and nextPageToken, passed back as pageToken and absent on the last page. Each SKU
// has description ("Nvidia Tesla T4 GPU running in Americas"), category {serviceDisplayName,
// resourceFamily "Compute", resourceGroup "GPU", usageType "OnDemand", "Preemptible",
// "Commit1Yr", …}, serviceRegions[] and pricingInfo[] {effectiveTime, pricingExpression
// {usageUnit "h", tieredRates[] {startUsageAmount, unitPrice {currencyCode, units, nanos}}}}.
// units is an int64 that proto3 JSON writes as a string; units + nanos·10⁻⁹ is the price, kept
// exact here. Source: "Get Google Cloud pricing information" (Cloud Billing Catalog API how-to),
// https://cloud.google.com/billing/v1/how-tos/catalog-api.
//
// GPUs that attach to N1 machines (T4, V100, P100, P4) are priced alone; they become offers
// "n1+T4:4" as in the bundled catalog, for 1, 2, 4 (and 8 V100) GPUs. GPUs of the A2, A3, A4
// and G2 families are billed with their machine type's vCPU and memory SKUs; joining those is
// not done yet, so their SKUs are skipped with that reason and the bundled catalog keeps them.
package gcpprices
