package aws

import (
	"context"
	"errors"
	"fmt"

	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/internal/awsrpc"
)

// copyCounts records each inference component's desired copy count (DescribeInferenceComponent's
// RuntimeConfig.DesiredCopyCount) on r, so that a scale-to-zero of the endpoint logs what its
// scale-back restores.
func (c *Client) copyCounts(ctx context.Context, sm *awsrpc.Client, r *enforce.Resource) error {
	for _, ic := range r.Components {
		var d struct {
			RuntimeConfig struct{ DesiredCopyCount, CurrentCopyCount int }
		}
		if err := sm.JSON(ctx, "SageMaker DescribeInferenceComponent", "SageMaker.DescribeInferenceComponent", map[string]string{"InferenceComponentName": ic}, &d); err != nil {
			return classify("SageMaker DescribeInferenceComponent "+ic, err)
		}
		if r.Copies == nil {
			r.Copies = map[string]int{}
		}
		r.Copies[ic] = d.RuntimeConfig.DesiredCopyCount
	}
	return nil
}

// scaleEndpoint sets every inference component of an endpoint to zero copies (SageMaker scales
// only endpoints hosting inference components to zero instances; their endpoint configuration
// must allow MinInstanceCount 0).
func (c *Client) scaleEndpoint(ctx context.Context, ref *enforce.Ref, components []string) error {
	if len(components) == 0 {
		return fmt.Errorf("scale SageMaker endpoint %s to zero: it hosts no inference components; SageMaker scales only those to zero", ref.ID)
	}
	sm := c.sagemaker(ref.Region)
	var errs []error
	for _, ic := range components {
		if err := setCopies(ctx, sm, ic, 0); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// restoreEndpoint scales an endpoint back to the counts its scale-to-zero recorded: each
// inference component to its copy count (UpdateInferenceComponentRuntimeConfig), then, in one
// UpdateEndpointWeightsAndCapacities, each production variant to its desired instance count.
// Counts of zero are left as they are.
func (c *Client) restoreEndpoint(ctx context.Context, ref *enforce.Ref, copies, variants map[string]int) error {
	sm := c.sagemaker(ref.Region)
	var errs []error
	calls := 0
	for _, ic := range sortedKeys(copies) {
		if n := copies[ic]; n > 0 {
			calls++
			if err := setCopies(ctx, sm, ic, n); err != nil {
				errs = append(errs, err)
			}
		}
	}
	type capacity struct {
		VariantName          string
		DesiredInstanceCount int
	}
	in := struct {
		EndpointName                string
		DesiredWeightsAndCapacities []capacity
	}{EndpointName: ref.ID}
	for _, v := range sortedKeys(variants) {
		if n := variants[v]; n > 0 {
			in.DesiredWeightsAndCapacities = append(in.DesiredWeightsAndCapacities, capacity{VariantName: v, DesiredInstanceCount: n})
		}
	}
	if len(in.DesiredWeightsAndCapacities) > 0 {
		calls++
		err := sm.JSON(ctx, "SageMaker UpdateEndpointWeightsAndCapacities", "SageMaker.UpdateEndpointWeightsAndCapacities", in, nil)
		errs = append(errs, classify("SageMaker UpdateEndpointWeightsAndCapacities "+ref.ID, err))
	}
	if calls == 0 {
		return fmt.Errorf("scale SageMaker endpoint %s back: the action recorded no copy or instance counts above zero", ref.ID)
	}
	return errors.Join(errs...)
}

// setCopies sets an inference component's copy count.
func setCopies(ctx context.Context, sm *awsrpc.Client, component string, n int) error {
	in := struct {
		InferenceComponentName string
		DesiredRuntimeConfig   struct{ CopyCount int }
	}{InferenceComponentName: component}
	in.DesiredRuntimeConfig.CopyCount = n
	err := sm.JSON(ctx, "SageMaker UpdateInferenceComponentRuntimeConfig", "SageMaker.UpdateInferenceComponentRuntimeConfig", in, nil)
	return classify("SageMaker UpdateInferenceComponentRuntimeConfig "+component, err)
}
