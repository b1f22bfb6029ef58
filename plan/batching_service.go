package plan

import (
	"fmt"
	"time"

	"github.com/gpucost/gpucost"
)

// BatchService is how a replica serves when it runs batches: batches of Batch requests that
// fill in Fill and run in S, varying by Spread, with a sentence that says so.
type BatchService struct {
	S      time.Duration
	Spread Spread
	Batch  int
	Fill   time.Duration
	Note   string
}

// PlanBatchService plans the batches a replica serves at rate from a latency profile: of
// batchSize when above 0 (the largest size up to it that keeps the SLO), else the batching
// plan's best size. A zero spread takes the profile's run times as constant (ProfileSpread).
func PlanBatchService(prof LatencyProfile, rate, quantile float64, slo time.Duration, batchSize int, sp Spread) (BatchService, error) {
	if rate <= 0 {
		return BatchService{}, gpucost.Errorf(gpucost.EInvalid, "--batch-profile needs a positive --rate to plan batches")
	}
	res, err := Batching(BatchingOptions{Rate: rate, Quantile: quantile, SLO: slo, Profile: prof, MaxBatch: batchSize, Spread: sp})
	if err != nil {
		return BatchService{}, err
	}
	best := res.Best
	if batchSize > 0 && best.MaxBatchSize != batchSize {
		i := len(res.Plans) - 1
		for i >= 0 && res.Plans[i].MaxBatchSize > batchSize {
			i--
		}
		if i < 0 {
			return BatchService{}, gpucost.Errorf(gpucost.EInvalid, "--batch-size %d: no batch size up to it keeps the SLO", batchSize)
		}
		best = res.Plans[i]
	}
	if sp.Source == "" {
		sp = ProfileSpread
	}
	return BatchService{S: best.Service, Spread: sp, Batch: best.MaxBatchSize, Fill: best.Fill,
		Note: fmt.Sprintf("Batches of %d (max_queue_delay_microseconds %d): each runs in %v and fills in %v at %.4g requests/s; %s.",
			best.MaxBatchSize, best.MaxQueueDelay.Microseconds(), best.Service, best.Fill.Round(time.Microsecond), rate, prof)}, nil
}
