// Package analyze turns rollups and bills into findings: utilisation statistics per GPU, host,
// model or label with the profiler verdict, idle GPU-hours and what they cost, idle periods and
// their daily pattern, the alert rules of docs/architecture.md evaluated with Prometheus-like `for`
// durations, the allocation of GPU resources' cost to the teams, projects, namespaces, pods and
// jobs that held or used them with idle capacity apart (Allocator), and cost anomalies against a
// robust trailing baseline (Detector).
//
// It is pure: it imports only the standard library and the root package, does no I/O and reads
// no clock. Rollups come in one at a time (Add), in the order a gpucost.RollupStore scans them —
// by series, then start — and each accumulator keeps only per-group or per-series state, so a
// month of a 10,000-GPU fleet is analysed in one pass in bounded memory. Time, prices and TDPs
// come in as arguments and funcs; the catalog is wired in by the caller. Money stays exact:
// allocations split amounts in integer nano-units by largest remainder, so the parts of a cost
// add up to it.
package analyze
