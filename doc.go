// Package gpucost holds the domain of GPU cost optimisation: GPUs and their samples, hourly and
// minute rollups, the catalog of GPU models and priced offers, money, and the small interfaces that
// stores and collectors implement. It imports only the standard library; adapters live in
// packages named after their technology (sqlite, telemetry, catalog) and cmd/gpucost wires them.
package gpucost
