package gpucost

import (
	"context"
	"time"
)

// RollupFilter selects rollups. Empty fields match everything.
type RollupFilter struct {
	From, To time.Time // rollups that start in [From, To)
	Hosts    []string
	GPUs     []string // UUIDs
	Models   []string
	Labels   Labels // each key must have the given value
}

// WriteStats says what a write did.
type WriteStats struct {
	Written   int // rollups new to the store
	Merged    int // rollups merged with stored ones holding other samples
	Unchanged int // rollups whose samples were all stored already (a re-import)
	Replaced  int // rollups that held more samples than the stored ones and replaced them
	Conflicts int // rollups that overlapped stored ones only in part: the fuller one was kept
}

// RollupStore keeps series and their minute and hourly rollups.
type RollupStore interface {
	// WriteRollups stores rollups of any width in one transaction, merging each with the stored
	// rollup of the same series and start (see telemetry.Merge), so writing the same samples
	// twice leaves the store unchanged.
	WriteRollups(ctx context.Context, rs []Rollup) (WriteStats, error)

	// ScanRollups calls fn for each stored rollup of the given width that matches f, in order of
	// series and then start. The *Rollup is valid only during the call. Scanning stops at the
	// first error fn returns, and ScanRollups returns it.
	ScanRollups(ctx context.Context, width time.Duration, f RollupFilter, fn func(*Rollup) error) error
}

// OfferFilter selects offers. Empty fields match everything.
type OfferFilter struct {
	Providers []string
	Regions   []string
	GPUModels []string // canonical names
}

// OfferStore keeps price offers imported by users on top of the bundled catalog.
type OfferStore interface {
	// PutOffers adds offers, replacing stored ones with the same provider, region, zone and
	// instance type, in one transaction. It returns how many were added and how many replaced.
	PutOffers(ctx context.Context, offers []Offer) (added, replaced int, err error)

	// Offers returns the stored offers that match f.
	Offers(ctx context.Context, f OfferFilter) ([]Offer, error)
}
