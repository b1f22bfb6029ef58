// Package fleet is gpucost's application core: it joins what the stores hold — telemetry
// rollups, the imported bill, the inventory — with the catalog into one snapshot of a period's
// GPU time: who held each GPU-hour, how much of it was used, and what it cost. Every report, API
// view and dashboard figure reads its numbers from a Snapshot, so the same fleet, period and
// group give the same number everywhere.
//
// The package does no I/O beyond the small store interfaces it is given (Bills, Telemetry,
// Inventory) and reads no clock: the period comes in as an argument.
package fleet
