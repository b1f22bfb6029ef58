// Package analyze turns rollups into findings: utilisation statistics per GPU, host, model or
// label with the profiler verdict, idle GPU-hours and what they cost, idle periods and their daily
// pattern, and the alert rules of DESIGN.md evaluated with Prometheus-like `for` durations.
//
// It is pure: it imports only the standard library and the root package, does no I/O and reads
// no clock. Rollups come in one at a time (Add), in the order a gpucost.RollupStore scans them —
// by series, then start — and each accumulator keeps only per-group or per-series state, so a
// month of a 10,000-GPU fleet is analysed in one pass in bounded memory. Time, prices and TDPs
// come in as arguments and funcs; the catalog is wired in by the caller.
package analyze
