package enforce

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// recordScale fills a scale-to-zero action with what its scale-back restores: a Kubernetes
// workload's replicas are its Size, set by the caller; a SageMaker endpoint's are its inference
// components (the ones set to zero copies), their copy counts and its production variants'
// instance counts as the inventory listed them.
func (r *Resource) recordScale(a *Action) {
	if r.Kind != KindSageMaker {
		return
	}
	a.Components = r.Components
	a.Copies = maps.Clone(r.Copies)
	a.Variants = maps.Clone(r.Variants)
}

// restorable says why a SageMaker scale-to-zero cannot be scaled back, or nil: a
// scale-back sets each inference component to its recorded copy count and each production
// variant to its recorded instance count, so at least one count above zero must be recorded
// (an action logged before gpucost recorded them has none).
func (a Action) restorable() error {
	for _, n := range a.Copies {
		if n > 0 {
			return nil
		}
	}
	for _, n := range a.Variants {
		if n > 0 {
			return nil
		}
	}
	return fmt.Errorf("scaled SageMaker endpoint %s to zero without recording its inference components' copy counts: "+
		"set them back with aws sagemaker update-inference-component-runtime-config --desired-runtime-config CopyCount=N", a.Resource.ID)
}

// recordedCounts says what a SageMaker scale-back restores: "chat-70b 2 copies, chat-8b 4
// copies on AllTraffic 3 instances".
func (a Action) recordedCounts() string {
	var parts []string
	for _, ic := range slices.Sorted(maps.Keys(a.Copies)) {
		parts = append(parts, fmt.Sprintf("%s %d copies", ic, a.Copies[ic]))
	}
	out := strings.Join(parts, ", ")
	parts = nil
	for _, v := range slices.Sorted(maps.Keys(a.Variants)) {
		parts = append(parts, fmt.Sprintf("%s %d instances", v, a.Variants[v]))
	}
	if len(parts) > 0 {
		out += " on " + strings.Join(parts, ", ")
	}
	return out
}
