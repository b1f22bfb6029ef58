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
// "n1+T4:4" as in the bundled catalog, for 1, 2, 4 (and 8 V100) GPUs.
//
// The machine types of the A2, A3 High, A4 and G2 families are billed per vCPU, per GiB of
// memory and per GPU, so an offer a2-highgpu-1g = vCPUs × "A2 Instance Core running in
// Americas" + GiB × "A2 Instance Ram running in Americas" + GPUs × "Nvidia Tesla A100 GPU
// running in Americas" (G2: "G2 Instance Core/Ram", "Nvidia L4 GPU"; A3: "A3 Instance
// Core/Ram", "Nvidia H100 80GB GPU"), and its spot price the same from the Preemptible SKUs
// ("Spot Preemptible A2 Instance Core running in Americas", "Nvidia Tesla A100 GPU attached to
// Spot Preemptible VMs running in Americas"). Core SKUs have resourceGroup "CPU" and usageUnit
// "h", RAM SKUs "RAM" and "GiBy.h", GPU SKUs "GPU" and "h". Descriptions and groups as in
// public Catalog API responses and users of them: cloudbilling v1 sample responses ("A2 Instance
// Ram running in Americas", resourceGroup "RAM", usageUnit "GiBy.h"), the Cloud Billing API's
// own field docs ("A2 Instance Core running in Americas") and SKU lists naming "G2 Instance Ram
// running in Iowa", "Nvidia L4 GPU attached to Spot Preemptible VMs running in Virginia" and
// "Spot Preemptible A2 Instance Core running in Americas".
//
// The shapes (vCPUs, GiB, GPU count and model) come from the caller in Client.Shapes, read from
// the bundled catalog by ShapesOf. A machine type is priced in a region only where its family's
// core, RAM and GPU prices all exist (spot: all three spot prices); otherwise it is skipped with
// the part it lacks and the bundled catalog keeps it. Money is exact: integer nanos × whole
// vCPUs and GPUs; memory is taken as whole MiB and its price, nanos × MiB / 1024, rounded half
// up to the nano. A3 Mega, Ultra and Edge have GPU SKUs of their own and are not priced here.
//
// The second offline source of GCP prices, the GCP pricing YAML (on-demand, spot and 1- and
// 3-year committed prices of whole GPU machine types per region), is read by
// catalog.ParseGCPPricingYAML: the bundled catalog checks its GCP prices against it, and the
// catalog imports no pricing package.
package gcpprices
