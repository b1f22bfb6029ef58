package gpucost

import (
	"context"
	"iter"
	"slices"
	"strings"
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
	// rollup of the same series and start (see MergeRollups), so writing the same samples
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

// CostImport is one bill imported into a CostStore: one file, or the parts of one export.
type CostImport struct {
	ID         int64
	Name       string // a label: the file's path as given to the CLI, or an upload's base name
	Checksum   string // SHA-256 of the file's bytes, hex; of a multi-part import, of its parts' (ImportFile)
	Identity   string // the bill's identity key (BillIdentity.Key); empty for imports that have none
	Format     string // focus, aws-cur, gcp, azure
	Version    string // the format's version or dialect, as the reader detected it
	Grain      time.Duration
	Rows       int // source rows read
	Lines      int // aggregated lines stored
	Totals     []CostTotal
	ImportedAt time.Time

	// What the bill covers (BillIdentity.Describe), which makes two imports the same bill.
	Providers  []string       // lower case, sorted
	Coverage   []BillCoverage // the (billing account, billing period) pairs, sorted
	ChargeFrom time.Time      // the earliest charge period start; zero without lines
	ChargeTo   time.Time      // the latest charge period end
	Files      []ImportFile   // the parts of a multi-part import; empty for one file (Name, Checksum)

	// Lenient says the bill was read with gpucost import billing --lenient, which coerced
	// amounts such as "$10,000.00" and dates such as "2025/10/01" a strict read refuses; its
	// kept source is read the same way by export focus --all, which writes the coerced values.
	Lenient bool
}

// CostTotal is the exact sum of one currency's amounts in an import.
type CostTotal struct {
	Currency      string `json:"currency"`
	BilledCost    Money  `json:"billed_cost"`
	EffectiveCost Money  `json:"effective_cost"`
}

// CostFilter selects stored cost lines. Empty fields match everything.
type CostFilter struct {
	From, To    time.Time // lines whose charge period starts in [From, To)
	Providers   []string
	ResourceIDs []string

	// BilledFrom and BilledTo select the lines whose billing period starts in
	// [BilledFrom, BilledTo): a month's invoice, with lines charged outside the month.
	BilledFrom, BilledTo time.Time
}

// CostStore keeps aggregated bill lines, grouped by the import that brought them.
type CostStore interface {
	// CostImportByChecksum returns the import of a file with the given checksum, if any.
	CostImportByChecksum(ctx context.Context, checksum string) (CostImport, bool, error)

	// PutCosts stores an import and its lines in one transaction, first deleting the imports
	// listed in replace and their lines: PutCostBatch of one. It returns the import with its
	// ID set. The lines may reuse one *CostLine; each is valid only until the next is asked
	// for. An import whose checksum, whose Identity (when not empty) or one of whose Coverage
	// pairs a stored import that is not replaced has is an EConflict, checked within the
	// transaction, so of two imports of one bill made at once, by any number of processes,
	// one lands.
	PutCosts(ctx context.Context, imp CostImport, lines iter.Seq[*CostLine], replace []int64) (CostImport, error)

	// RemoveCosts deletes the import id and its lines in one transaction and returns the
	// import as it was. An id not stored is an ENotFound.
	RemoveCosts(ctx context.Context, id int64) (CostImport, error)

	// CostImports lists the imports, oldest first.
	CostImports(ctx context.Context) ([]CostImport, error)

	// PutCostBatch stores the imports of puts in ONE transaction: all land or none does (see
	// CostPut). Besides PutCosts' conflicts, an import whose Coverage shares an (account,
	// period) pair with a stored import not replaced, or with an earlier import of the batch,
	// is an EConflict naming that import, the account and the period. It returns the imports
	// stored, in the order of puts.
	PutCostBatch(ctx context.Context, puts []CostPut) ([]CostImport, error)

	// ScanCosts calls fn for each stored line that matches f, in order of import and then line.
	// The *CostLine is valid only during the call. Its maps may be shared by the lines that
	// hold the same ones and are never changed once passed to fn, so a map seen again holds
	// what it held (fleet.Build compares a resource's tags by the map). Scanning stops at the
	// first error fn returns, and ScanCosts returns it.
	ScanCosts(ctx context.Context, f CostFilter, fn func(*CostLine) error) error
}

// InventoryEntry ties a billed resource to the host its GPUs report telemetry from, for fleets
// where neither the instance id nor the hostname shows in both (gpucost import inventory).
type InventoryEntry struct {
	ResourceID   string // as the bill names it: instance id, ARN, VM resource id
	Host         string // as telemetry names it
	Provider     string
	InstanceType string
	GPUModel     string // canonical name, empty if unknown
	GPUs         int    // 0 if unknown
	Tags         Labels // owner tags to use where the bill has none
}

// InventoryStore keeps the inventory.
type InventoryStore interface {
	// PutInventory adds entries, replacing stored ones with the same resource id, in one
	// transaction. It returns how many were added and how many replaced.
	PutInventory(ctx context.Context, entries []InventoryEntry) (added, replaced int, err error)

	// Inventory returns every entry, ordered by resource id.
	Inventory(ctx context.Context) ([]InventoryEntry, error)
}

// CostTotals sums BilledCost and EffectiveCost per currency, never adding currencies together.
// The zero value is empty and ready; bills hold few currencies, so a short list serves.
type CostTotals struct{ list []CostTotal }

// Add adds one line's amounts, in the currency of billed.
func (t *CostTotals) Add(billed, effective Money) {
	cur := billed.currency()
	for i := range t.list {
		if s := &t.list[i]; s.Currency == cur {
			s.BilledCost.Nanos += billed.Nanos
			s.EffectiveCost.Nanos += effective.Nanos
			return
		}
	}
	t.list = append(t.list, CostTotal{Currency: cur, BilledCost: Money{Nanos: billed.Nanos, Currency: cur},
		EffectiveCost: Money{Nanos: effective.Nanos, Currency: cur}})
}

// Sorted returns the totals by currency, an empty list (not nil) when nothing was added.
func (t *CostTotals) Sorted() []CostTotal {
	out := make([]CostTotal, 0, len(t.list))
	out = append(out, t.list...)
	slices.SortFunc(out, func(a, b CostTotal) int { return strings.Compare(a.Currency, b.Currency) })
	return out
}

// CostPut is one import of a CostStore.PutCostBatch: the import, its lines (which may reuse one
// *CostLine, as PutCosts' may) and the ids of the stored imports it replaces, deleted first.
type CostPut struct {
	Import  CostImport
	Lines   iter.Seq[*CostLine]
	Replace []int64
}

// How a step was found applied (AppliedStep.How).
const (
	AppliedManual   = "manual"    // recorded by gpucost recommend apply, the API or the dashboard
	AppliedDetected = "detected:" // the prefix of a change found in the bill: "detected: pricing became spot"
)

// AppliedStep is a step of the recommender's plan that a team made, kept so that gpucost can
// measure on the bill what it saved (docs/architecture.md "Realized savings"). It keeps what
// the plan predicted when the step was applied, and the workload it changed: the group's
// machines may change their instance type, region or pricing, so the step is measured on its
// namespace (or, without telemetry, its billed resources), not on the plan group's id.
type AppliedStep struct {
	ID     string `json:"id"` // the plan step's id: group/lever/target
	Group  string `json:"group"`
	Lever  string `json:"lever"`
	Action string `json:"action"`
	// Predicted is the step's monthly saving as the plan priced it; Before and After the
	// group's monthly cost before and after the step.
	Predicted Money `json:"predicted"`
	Before    Money `json:"before"`
	After     Money `json:"after"`

	// The workload: the group's provider, region, instance type and namespace when the step
	// was applied, and its machines as the plan named them.
	Provider     string   `json:"provider"`
	Region       string   `json:"region"`
	InstanceType string   `json:"instance_type"`
	Namespace    string   `json:"namespace,omitempty"`
	Resources    []string `json:"resources"`

	At       time.Time `json:"applied_at"`     // when the change was made
	How      string    `json:"how"`            // AppliedManual, or AppliedDetected and what the bill showed
	Actor    string    `json:"actor"`          // who recorded it, as the audit log names actors
	Note     string    `json:"note,omitempty"` // what people wrote about it
	Recorded time.Time `json:"recorded_at"`    // times are kept to the microsecond
}

// Check refuses a step that does not say which step, of which group, when, and how.
func (s AppliedStep) Check() error {
	if s.ID == "" || s.Group == "" || s.Lever == "" || s.At.IsZero() || s.How == "" {
		return Errorf(EInvalid, "record applied step: id %q, group %q, lever %q, time %v and how %q must all be set",
			s.ID, s.Group, s.Lever, s.At, s.How)
	}
	return nil
}

// AppliedStepStore keeps the plan steps teams applied.
type AppliedStepStore interface {
	// PutAppliedStep records s. A step already recorded under s.ID is an EConflict: remove it
	// first (RemoveAppliedStep) to record it again.
	PutAppliedStep(ctx context.Context, s AppliedStep) error

	// AppliedSteps returns every recorded step, in order of At and then ID.
	AppliedSteps(ctx context.Context) ([]AppliedStep, error)

	// RemoveAppliedStep deletes the step recorded under id and returns it as it was. An id
	// not recorded is an ENotFound.
	RemoveAppliedStep(ctx context.Context, id string) (AppliedStep, error)
}
