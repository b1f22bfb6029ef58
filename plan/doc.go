// Package plan answers "what should I run, and what will it cost?" before a workload exists or
// before a change is made. Each planner is one pure function: an options struct in, a result
// struct out, with everything a table or `--output json` needs.
//
//   - Instance: the memory a model needs (weights, gradients, optimizer state, activations, KV
//     cache, overhead), the catalog offers it fits and, for training, time and total cost.
//   - Commitment: the hindsight-optimal hourly commitment for a usage series and discount, its
//     utilisation, saving and break-even, back-tests, and reserved-instance ROI tables.
//   - MIG: valid MIG layouts that pack serving workloads onto GPU slices, GPUs needed against
//     whole-GPU serving, and stranded slices.
//   - Checkpoint: Young's and Daly's checkpoint intervals for a spot or failure-prone job, the
//     expected overhead against failure-free time, and whether an emergency checkpoint fits the
//     provider's interruption notice.
//   - Fleet: a diversified spot pool across instance types and zones with an on-demand base,
//     exportable as an EC2 Fleet request or a Karpenter NodePool.
//
// It is pure: it imports only the standard library and the root package; it does no I/O and
// reads no clock. Catalog offers, usage series and prices
// come in as arguments; the cmd/gpucost commands read files and flags and print the results.
// Money stays exact (gpucost.Money). Requests that cannot be met return a gpucost.EInvalid error
// that says what would work, so no NaN, infinity or negative saving reaches a report.
package plan
