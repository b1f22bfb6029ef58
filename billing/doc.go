// Package billing is the home of the bill readers: each subpackage reads one provider format
// (focus for FOCUS 1.0–1.2, awscur for AWS CUR 2.0, …) and streams gpucost.CostLine values with
// FOCUS semantics, so import, allocation and reports never see a provider's own column names.
package billing
