// Package spotrisk measures how often spot instances are interrupted, per pool (provider,
// instance type, region, zone), from gpucost run's events and from the bill's spot instances,
// and says which rate a planner should use for a pool: the measured one, else the AWS Spot
// Instance Advisor's bucket (docs/architecture.md "Spot risk"). It also matches AWS zone names
// with zone IDs and keeps the spot price history whose 30-day trend report spot shows.
// It is the one place rates and their confidence intervals are computed; the report, the
// planners' flags and recommend read them from here. It reads no clock and does no I/O.
package spotrisk
