package fleet

import (
	"context"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

// Bills is what a snapshot reads of the stored bill (gpucost.CostStore).
type Bills interface {
	// ScanCosts calls fn for each stored line that matches f; the line is valid only during the call.
	ScanCosts(ctx context.Context, f gpucost.CostFilter, fn func(*gpucost.CostLine) error) error
	// CostImports lists the imports, oldest first.
	CostImports(ctx context.Context) ([]gpucost.CostImport, error)
}

// Telemetry is what a snapshot reads of the stored telemetry (gpucost.RollupStore).
type Telemetry interface {
	// ScanRollups calls fn for each stored rollup of the given width that matches f.
	ScanRollups(ctx context.Context, width time.Duration, f gpucost.RollupFilter, fn func(*gpucost.Rollup) error) error
}

// Inventory is what a snapshot reads of the inventory (gpucost.InventoryStore): which telemetry
// hosts a billed resource is, and the owner tags its bill lacks.
type Inventory interface {
	Inventory(ctx context.Context) ([]gpucost.InventoryEntry, error)
}

// Store is the stores a snapshot is built from.
type Store interface {
	Bills
	Telemetry
	Inventory
}

// Catalog is what a snapshot asks the GPU catalog (*catalog.Catalog): the GPUs a bill line pays
// for, and the on-demand price of a GPU-hour where no bill line covers it. LineGPU's answer is
// the same for lines of the same InstanceType and ChargeDescription, as *catalog.Catalog keeps
// its answers by them: a snapshot asks once per run of such lines.
type Catalog interface {
	LineGPU(l *gpucost.CostLine) (catalog.LineGPU, bool)
	PricePerGPUHour(model, provider string) (gpucost.Money, gpucost.Offer, bool)
	// Offers lists the catalog's instance offers (the recommender's on-demand prices).
	Offers() []gpucost.Offer
}

var _ Catalog = (*catalog.Catalog)(nil)
