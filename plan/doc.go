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
//   - Capacity: replicas for a latency SLO by Erlang C (M/M/c) with headroom, the utilisation and
//     predicted response-time quantiles at that size, cost per hour and per 1,000 requests, and
//     reference case R4's rule of thumb (per-GPU QPS plus headroom) beside it.
//   - Batching: from a latency profile (measured batch sizes, or α + β·b fitted by least
//     squares), each batch size's replicas and GPUs at a rate, the largest queue delay that keeps
//     the SLO (Triton's max_batch_size and max_queue_delay_microseconds) and the throughput.
//   - Autoscale: a discrete-event replay of an arrival trace under static, target-tracking,
//     step, schedule, scale-to-zero and predictive policies, with provisioning delay, cooldowns,
//     per-replica concurrency and spot replicas interrupted at a seeded random rate; replica-hours,
//     cost and SLO attainment against the oracle, the per-interval Erlang C minimum.
//
// It is pure: it imports only the standard library and the root package; it does no I/O and
// reads no clock. Catalog offers, usage series and prices come in as arguments; plan/planfile
// reads the planners' files, the Parse functions here read the quantities people write
// (p99=200ms, 20%, 98GB, 7B), and the cmd/gpucost commands wire flags to them and print the
// results.
// Money stays exact (gpucost.Money). Requests that cannot be met return a gpucost.EInvalid error
// that says what would work, so no NaN, infinity or negative saving reaches a report.
package plan
