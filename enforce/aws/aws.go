// Package aws is enforcement on AWS: it lists the EC2 instances and SageMaker endpoints policies
// act on (enforce.Inventory) and tags, stops and scales them to zero (enforce.Actuator) through
// the AWS SDK.
package aws

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/ec2"
	ec2types "github.com/aws/aws-sdk-go-v2/service/ec2/types"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	smtypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
)

// Client lists EC2 instances and SageMaker endpoints in some regions and acts on them through the
// AWS SDK: EC2 CreateTags and StopInstances; SageMaker AddTags and, to scale an endpoint to
// zero, UpdateInferenceComponentRuntimeConfig with a copy count of 0 for each inference
// component it hosts (SageMaker scales only endpoints hosting inference components to zero
// instances; their endpoint configuration must allow MinInstanceCount 0).
type Client struct {
	Regions     []string
	Credentials awssdk.CredentialsProvider
	// BaseURL, when set, replaces both services' endpoints (a test server or a proxy).
	BaseURL     string
	HTTP        *http.Client // http.DefaultClient when nil
	MaxAttempts int          // tries per request; 3 when zero
	// SkipSageMaker leaves endpoints out of the inventory (no sagemaker:List* permission).
	SkipSageMaker bool
}

var (
	_ enforce.Inventory = (*Client)(nil)
	_ enforce.Actuator  = (*Client)(nil)
)

func (c *Client) ec2(region string) *ec2.Client {
	return ec2.New(ec2.Options{Region: region, BaseEndpoint: c.base(), Credentials: c.Credentials, HTTPClient: c.httpClient(), Retryer: c.retryer()})
}

func (c *Client) sagemaker(region string) *sagemaker.Client {
	return sagemaker.New(sagemaker.Options{Region: region, BaseEndpoint: c.base(), Credentials: c.Credentials, HTTPClient: c.httpClient(), Retryer: c.retryer()})
}

func (c *Client) base() *string {
	if c.BaseURL == "" {
		return nil
	}
	return awssdk.String(c.BaseURL)
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

func (c *Client) retryer() awssdk.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 3
		if c.MaxAttempts > 0 {
			o.MaxAttempts = c.MaxAttempts
		}
		o.RateLimiter = ratelimit.None
	})
}

// Resources lists the pending and running EC2 instances and the SageMaker endpoints of every
// region.
func (c *Client) Resources(ctx context.Context) ([]enforce.Resource, error) {
	var out []enforce.Resource
	for _, region := range c.Regions {
		rs, err := c.instances(ctx, region, nil)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
		if c.SkipSageMaker {
			continue
		}
		eps, err := c.endpoints(ctx, region)
		if err != nil {
			return nil, err
		}
		out = append(out, eps...)
	}
	return out, nil
}

// SpotInstances lists the pending and running spot instances of every region that carry all of
// tags, filtered by EC2 itself (instance-lifecycle=spot and tag:KEY=VALUE filters).
func (c *Client) SpotInstances(ctx context.Context, tags map[string]string) ([]enforce.Resource, error) {
	filters := []ec2types.Filter{{Name: awssdk.String("instance-lifecycle"), Values: []string{"spot"}}}
	for _, k := range sortedKeys(tags) {
		filters = append(filters, ec2types.Filter{Name: awssdk.String("tag:" + k), Values: []string{tags[k]}})
	}
	var out []enforce.Resource
	for _, region := range c.Regions {
		rs, err := c.instances(ctx, region, filters)
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
	}
	return out, nil
}

// instances pages through DescribeInstances for the pending and running instances of a region.
func (c *Client) instances(ctx context.Context, region string, filters []ec2types.Filter) ([]enforce.Resource, error) {
	in := &ec2.DescribeInstancesInput{Filters: append([]ec2types.Filter{
		{Name: awssdk.String("instance-state-name"), Values: []string{"pending", "running"}}}, filters...)}
	p := ec2.NewDescribeInstancesPaginator(c.ec2(region), in)
	var out []enforce.Resource
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, classify("EC2 DescribeInstances "+region, err)
		}
		for _, res := range page.Reservations {
			for _, inst := range res.Instances {
				out = append(out, instanceResource(region, inst))
			}
		}
	}
	return out, nil
}

func instanceResource(region string, inst ec2types.Instance) enforce.Resource {
	r := enforce.Resource{Kind: enforce.KindEC2, ID: awssdk.ToString(inst.InstanceId), Provider: "aws", Region: region, InstanceType: string(inst.InstanceType),
		Count: 1, Spot: inst.InstanceLifecycle == ec2types.InstanceLifecycleTypeSpot, Tags: map[string]string{}}
	if inst.State != nil {
		r.State = string(inst.State.Name)
		r.Running = inst.State.Name == ec2types.InstanceStateNameRunning || inst.State.Name == ec2types.InstanceStateNamePending
	}
	if inst.LaunchTime != nil {
		r.Launched = inst.LaunchTime.UTC()
	}
	for _, t := range inst.Tags {
		r.Tags[awssdk.ToString(t.Key)] = awssdk.ToString(t.Value)
	}
	r.Name = r.Tags["Name"]
	return r
}

// endpoints lists a region's SageMaker endpoints with their instances, instance type, tags and
// inference components.
func (c *Client) endpoints(ctx context.Context, region string) ([]enforce.Resource, error) {
	sm := c.sagemaker(region)
	p := sagemaker.NewListEndpointsPaginator(sm, &sagemaker.ListEndpointsInput{})
	var out []enforce.Resource
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, classify("SageMaker ListEndpoints "+region, err)
		}
		for _, e := range page.Endpoints {
			r, err := c.endpoint(ctx, sm, region, e)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
	}
	return out, nil
}

func (c *Client) endpoint(ctx context.Context, sm *sagemaker.Client, region string, e smtypes.EndpointSummary) (enforce.Resource, error) {
	name := awssdk.ToString(e.EndpointName)
	r := enforce.Resource{Kind: enforce.KindSageMaker, ID: name, Name: name, ARN: awssdk.ToString(e.EndpointArn), Provider: "aws", Region: region,
		State: string(e.EndpointStatus), Tags: map[string]string{}}
	if e.CreationTime != nil {
		r.Launched = e.CreationTime.UTC()
	}
	d, err := sm.DescribeEndpoint(ctx, &sagemaker.DescribeEndpointInput{EndpointName: e.EndpointName})
	if err != nil {
		return r, classify("SageMaker DescribeEndpoint "+name, err)
	}
	for _, v := range d.ProductionVariants {
		r.Count += int(awssdk.ToInt32(v.CurrentInstanceCount))
	}
	if cfg := awssdk.ToString(d.EndpointConfigName); cfg != "" {
		dc, err := sm.DescribeEndpointConfig(ctx, &sagemaker.DescribeEndpointConfigInput{EndpointConfigName: d.EndpointConfigName})
		if err != nil {
			return r, classify("SageMaker DescribeEndpointConfig "+cfg, err)
		}
		if len(dc.ProductionVariants) > 0 {
			r.InstanceType = string(dc.ProductionVariants[0].InstanceType)
		}
	}
	tags, err := sm.ListTags(ctx, &sagemaker.ListTagsInput{ResourceArn: e.EndpointArn})
	if err != nil {
		return r, classify("SageMaker ListTags "+name, err)
	}
	for _, t := range tags.Tags {
		r.Tags[awssdk.ToString(t.Key)] = awssdk.ToString(t.Value)
	}
	ics := sagemaker.NewListInferenceComponentsPaginator(sm, &sagemaker.ListInferenceComponentsInput{EndpointNameEquals: e.EndpointName})
	for ics.HasMorePages() {
		page, err := ics.NextPage(ctx)
		if err != nil {
			return r, classify("SageMaker ListInferenceComponents "+name, err)
		}
		for _, ic := range page.InferenceComponents {
			r.Components = append(r.Components, awssdk.ToString(ic.InferenceComponentName))
		}
	}
	slices.Sort(r.Components)
	r.Running = r.State == string(smtypes.EndpointStatusInService) && r.Count > 0 ||
		r.State == string(smtypes.EndpointStatusUpdating) || r.State == string(smtypes.EndpointStatusCreating)
	return r, nil
}

// Do carries out a tag, stop or scale-to-zero action on an EC2 instance or SageMaker endpoint.
func (c *Client) Do(ctx context.Context, a enforce.Action) error {
	if a.Resource == nil {
		return fmt.Errorf("%s: no resource", a.Action)
	}
	ref := a.Resource
	switch {
	case ref.Kind == enforce.KindEC2 && a.Action == enforce.ActStop:
		_, err := c.ec2(ref.Region).StopInstances(ctx, &ec2.StopInstancesInput{InstanceIds: []string{ref.ID}})
		return classify("EC2 StopInstances "+ref.ID, err)
	case ref.Kind == enforce.KindEC2 && a.Action == enforce.ActTag:
		in := &ec2.CreateTagsInput{Resources: []string{ref.ID}}
		for _, k := range sortedKeys(a.Tags) {
			in.Tags = append(in.Tags, ec2types.Tag{Key: awssdk.String(k), Value: awssdk.String(a.Tags[k])})
		}
		_, err := c.ec2(ref.Region).CreateTags(ctx, in)
		return classify("EC2 CreateTags "+ref.ID, err)
	case ref.Kind == enforce.KindSageMaker && a.Action == enforce.ActTag:
		if ref.ARN == "" {
			return fmt.Errorf("tag SageMaker endpoint %s: its ARN is unknown", ref.ID)
		}
		in := &sagemaker.AddTagsInput{ResourceArn: awssdk.String(ref.ARN)}
		for _, k := range sortedKeys(a.Tags) {
			in.Tags = append(in.Tags, smtypes.Tag{Key: awssdk.String(k), Value: awssdk.String(a.Tags[k])})
		}
		_, err := c.sagemaker(ref.Region).AddTags(ctx, in)
		return classify("SageMaker AddTags "+ref.ID, err)
	case ref.Kind == enforce.KindSageMaker && a.Action == enforce.ActScaleToZero:
		return c.scaleEndpoint(ctx, ref, a.Components)
	}
	return fmt.Errorf("%s cannot be done to %s %s", a.Action, ref.Kind, ref.ID)
}

// scaleEndpoint sets every inference component of an endpoint to zero copies.
func (c *Client) scaleEndpoint(ctx context.Context, ref *enforce.Ref, components []string) error {
	if len(components) == 0 {
		return fmt.Errorf("scale SageMaker endpoint %s to zero: it hosts no inference components; SageMaker scales only those to zero", ref.ID)
	}
	sm := c.sagemaker(ref.Region)
	var errs []error
	for _, ic := range components {
		_, err := sm.UpdateInferenceComponentRuntimeConfig(ctx, &sagemaker.UpdateInferenceComponentRuntimeConfigInput{
			InferenceComponentName: awssdk.String(ic), DesiredRuntimeConfig: &smtypes.InferenceComponentRuntimeConfig{CopyCount: awssdk.Int32(0)}})
		if err != nil {
			errs = append(errs, classify("SageMaker UpdateInferenceComponentRuntimeConfig "+ic, err))
		}
	}
	return errors.Join(errs...)
}

// classify gives an SDK error its code: throttling, server errors and unreachable endpoints are
// EUnavailable; other refusals (no permission, an unknown instance) EInvalid. A nil error stays
// nil.
func classify(api string, err error) error {
	if err == nil {
		return nil
	}
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) {
		if code := re.HTTPStatusCode(); code >= 400 && code < 500 && code != http.StatusTooManyRequests {
			return gpucost.Errorf(gpucost.EInvalid, "%s: %w", api, err)
		} else if code != 0 {
			return gpucost.Errorf(gpucost.EUnavailable, "%s: %w", api, err)
		}
	}
	return gpucost.Errorf(gpucost.EUnavailable, "%s cannot be reached: %w", api, err)
}

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
