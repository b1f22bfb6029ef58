// Package spotrisk measures how often spot instances are interrupted, per pool (provider,
// instance type, region, zone), and says which rate a planner should use for a pool: the
// measured one, else the AWS Spot Instance Advisor's bucket (docs/architecture.md "Spot risk").
// It is the one place rates and their confidence intervals are computed; the report, the
// planners' flags and recommend read them from here. It reads no clock and does no I/O.
package spotrisk
