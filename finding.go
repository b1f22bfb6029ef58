package gpucost

// RecommendationKind names what a recommendation changes.
type RecommendationKind string

// Recommendation kinds, one per lever of issue 4.
const (
	RecIdleSchedule RecommendationKind = "idle-schedule" // stop idle machines on a schedule
	RecRightSize    RecommendationKind = "right-size"    // fewer GPUs, a smaller type, or shorter holds
	RecSpot         RecommendationKind = "spot"          // interruptible work to spot capacity
	RecShareMIG     RecommendationKind = "share-mig"     // low-utilisation replicas onto MIG slices
	RecCommit       RecommendationKind = "commit"        // a commitment for the steady baseline
	RecMoveRegion   RecommendationKind = "move-region"   // movable work to a cheaper region or provider
	RecAutoscale    RecommendationKind = "autoscale"     // serving scaled to demand
)

// Confidence says how far a recommendation's saving can be trusted.
type Confidence string

// Confidence levels.
const (
	ConfidenceHigh   Confidence = "high"
	ConfidenceMedium Confidence = "medium"
	ConfidenceLow    Confidence = "low"
)

// Recommendation is one change to a fleet: the exact action, what it saves each month, the
// evidence it rests on, how sure the saving is and what could go wrong. MonthlySaving is never
// negative.
type Recommendation struct {
	Kind          RecommendationKind `json:"kind"`
	Resources     []string           `json:"resources"`              // resource ids it changes
	Action        string             `json:"action"`                 // what to do, in words a person can follow
	MonthlySaving Money              `json:"monthly_saving"`         // per month, against the fleet it was computed on
	OneTimeCost   Money              `json:"one_time_cost,omitzero"` // paid once to make the change, such as data egress of a move
	Evidence      []string           `json:"evidence"`               // metrics, period, resources, cost lines, prices
	Confidence    Confidence         `json:"confidence"`
	ConfidenceWhy string             `json:"confidence_why"`
	Risk          string             `json:"risk"`
}
