// Package aws is enforcement on AWS: it lists the EC2 instances and SageMaker endpoints policies
// act on (enforce.Inventory) and tags, stops and scales them to zero (enforce.Actuator) through
// signed EC2 query and SageMaker JSON requests (internal/awsrpc).
package aws

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	awssdk "github.com/aws/aws-sdk-go-v2/aws"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/internal/awsrpc"
)

// Client lists EC2 instances and SageMaker endpoints in some regions and acts on them: EC2
// CreateTags and StopInstances; SageMaker AddTags and, to scale an endpoint to zero,
// UpdateInferenceComponentRuntimeConfig with a copy count of 0 for each inference component it
// hosts (SageMaker scales only endpoints hosting inference components to zero instances; their
// endpoint configuration must allow MinInstanceCount 0).
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

// ec2Version is the EC2 query API version the requests name.
const ec2Version = "2016-11-15"

func (c *Client) ec2(region string) *awsrpc.Client {
	return c.rpc("ec2", "ec2", region)
}

func (c *Client) sagemaker(region string) *awsrpc.Client {
	return c.rpc("sagemaker", "api.sagemaker", region)
}

func (c *Client) rpc(service, host, region string) *awsrpc.Client {
	attempts := 3
	if c.MaxAttempts > 0 {
		attempts = c.MaxAttempts
	}
	return &awsrpc.Client{Service: service, Host: host, Region: region, BaseURL: c.BaseURL, Credentials: c.Credentials,
		HTTP: c.HTTP, MaxAttempts: attempts}
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

// filter is an EC2 filter: a name and the values any of which matches.
type filter struct {
	name   string
	values []string
}

// SpotInstances lists the pending and running spot instances of every region that carry all of
// tags, filtered by EC2 itself (instance-lifecycle=spot and tag:KEY=VALUE filters).
func (c *Client) SpotInstances(ctx context.Context, tags map[string]string) ([]enforce.Resource, error) {
	filters := []filter{{"instance-lifecycle", []string{"spot"}}}
	for _, k := range sortedKeys(tags) {
		filters = append(filters, filter{"tag:" + k, []string{tags[k]}})
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

// describeInstances is the part of a DescribeInstances answer gpucost reads.
type describeInstances struct {
	Reservations []struct {
		Instances []ec2Instance `xml:"instancesSet>item"`
	} `xml:"reservationSet>item"`
	NextToken string `xml:"nextToken"`
}

type ec2Instance struct {
	ID        string    `xml:"instanceId"`
	Type      string    `xml:"instanceType"`
	Launch    time.Time `xml:"launchTime"`
	State     string    `xml:"instanceState>name"`
	Lifecycle string    `xml:"instanceLifecycle"`
	Tags      []struct {
		Key   string `xml:"key"`
		Value string `xml:"value"`
	} `xml:"tagSet>item"`
}

// instances pages through DescribeInstances for the pending and running instances of a region.
func (c *Client) instances(ctx context.Context, region string, filters []filter) ([]enforce.Resource, error) {
	filters = append([]filter{{"instance-state-name", []string{"pending", "running"}}}, filters...)
	params := url.Values{}
	for i, f := range filters {
		params.Set(fmt.Sprintf("Filter.%d.Name", i+1), f.name)
		for j, v := range f.values {
			params.Set(fmt.Sprintf("Filter.%d.Value.%d", i+1, j+1), v)
		}
	}
	api := c.ec2(region)
	var out []enforce.Resource
	for {
		var page describeInstances
		if err := api.Query(ctx, "EC2 DescribeInstances", "DescribeInstances", ec2Version, params, &page); err != nil {
			return nil, classify("EC2 DescribeInstances "+region, err)
		}
		for _, res := range page.Reservations {
			for _, inst := range res.Instances {
				out = append(out, instanceResource(region, inst))
			}
		}
		if page.NextToken == "" || page.NextToken == params.Get("NextToken") {
			return out, nil
		}
		params.Set("NextToken", page.NextToken)
	}
}

func instanceResource(region string, inst ec2Instance) enforce.Resource {
	r := enforce.Resource{Kind: enforce.KindEC2, ID: inst.ID, Provider: "aws", Region: region, InstanceType: inst.Type,
		Count: 1, Spot: inst.Lifecycle == "spot", Tags: map[string]string{}, State: inst.State,
		Running: inst.State == "running" || inst.State == "pending"}
	if !inst.Launch.IsZero() {
		r.Launched = inst.Launch.UTC()
	}
	for _, t := range inst.Tags {
		r.Tags[t.Key] = t.Value
	}
	r.Name = r.Tags["Name"]
	return r
}

// epoch is a SageMaker timestamp: seconds since 1970 as a JSON number.
type epoch float64

func (e epoch) time() time.Time {
	if e == 0 {
		return time.Time{}
	}
	sec, frac := math.Modf(float64(e))
	return time.Unix(int64(sec), int64(math.Round(frac*1e9))).UTC()
}

type tag struct {
	Key   string `json:"Key"`
	Value string `json:"Value"`
}

// endpointSummary is a ListEndpoints entry.
type endpointSummary struct {
	EndpointName, EndpointArn, EndpointStatus string
	CreationTime                              epoch
}

// endpoints lists a region's SageMaker endpoints with their instances, instance type, tags and
// inference components.
func (c *Client) endpoints(ctx context.Context, region string) ([]enforce.Resource, error) {
	sm := c.sagemaker(region)
	var out []enforce.Resource
	in := struct {
		NextToken string `json:",omitempty"`
	}{}
	for {
		var page struct {
			Endpoints []endpointSummary
			NextToken string
		}
		if err := sm.JSON(ctx, "SageMaker ListEndpoints", "SageMaker.ListEndpoints", in, &page); err != nil {
			return nil, classify("SageMaker ListEndpoints "+region, err)
		}
		for _, e := range page.Endpoints {
			r, err := c.endpoint(ctx, sm, region, e)
			if err != nil {
				return nil, err
			}
			out = append(out, r)
		}
		if page.NextToken == "" || page.NextToken == in.NextToken {
			return out, nil
		}
		in.NextToken = page.NextToken
	}
}

func (c *Client) endpoint(ctx context.Context, sm *awsrpc.Client, region string, e endpointSummary) (enforce.Resource, error) {
	name := e.EndpointName
	r := enforce.Resource{Kind: enforce.KindSageMaker, ID: name, Name: name, ARN: e.EndpointArn, Provider: "aws", Region: region,
		State: e.EndpointStatus, Tags: map[string]string{}, Launched: e.CreationTime.time()}
	var d struct {
		EndpointConfigName string
		ProductionVariants []struct {
			VariantName                                string
			CurrentInstanceCount, DesiredInstanceCount int
		}
	}
	if err := sm.JSON(ctx, "SageMaker DescribeEndpoint", "SageMaker.DescribeEndpoint", map[string]string{"EndpointName": name}, &d); err != nil {
		return r, classify("SageMaker DescribeEndpoint "+name, err)
	}
	for _, v := range d.ProductionVariants {
		r.Count += v.CurrentInstanceCount
		if v.VariantName != "" {
			if r.Variants == nil {
				r.Variants = map[string]int{}
			}
			r.Variants[v.VariantName] = v.DesiredInstanceCount
		}
	}
	if cfg := d.EndpointConfigName; cfg != "" {
		var dc struct {
			ProductionVariants []struct{ InstanceType string }
		}
		if err := sm.JSON(ctx, "SageMaker DescribeEndpointConfig", "SageMaker.DescribeEndpointConfig", map[string]string{"EndpointConfigName": cfg}, &dc); err != nil {
			return r, classify("SageMaker DescribeEndpointConfig "+cfg, err)
		}
		if len(dc.ProductionVariants) > 0 {
			r.InstanceType = dc.ProductionVariants[0].InstanceType
		}
	}
	var tags struct{ Tags []tag }
	if err := sm.JSON(ctx, "SageMaker ListTags", "SageMaker.ListTags", map[string]string{"ResourceArn": e.EndpointArn}, &tags); err != nil {
		return r, classify("SageMaker ListTags "+name, err)
	}
	for _, t := range tags.Tags {
		r.Tags[t.Key] = t.Value
	}
	in := struct {
		EndpointNameEquals string
		NextToken          string `json:",omitempty"`
	}{EndpointNameEquals: name}
	for {
		var page struct {
			InferenceComponents []struct{ InferenceComponentName string }
			NextToken           string
		}
		if err := sm.JSON(ctx, "SageMaker ListInferenceComponents", "SageMaker.ListInferenceComponents", in, &page); err != nil {
			return r, classify("SageMaker ListInferenceComponents "+name, err)
		}
		for _, ic := range page.InferenceComponents {
			r.Components = append(r.Components, ic.InferenceComponentName)
		}
		if page.NextToken == "" || page.NextToken == in.NextToken {
			break
		}
		in.NextToken = page.NextToken
	}
	slices.Sort(r.Components)
	if err := c.copyCounts(ctx, sm, &r); err != nil {
		return r, err
	}
	r.Running = r.State == "InService" && r.Count > 0 || r.State == "Updating" || r.State == "Creating"
	return r, nil
}

// Do carries out a tag, stop, start, scale-to-zero or scale-back action on an EC2 instance or
// SageMaker endpoint.
func (c *Client) Do(ctx context.Context, a enforce.Action) error {
	if a.Resource == nil {
		return fmt.Errorf("%s: no resource", a.Action)
	}
	ref := a.Resource
	switch {
	case ref.Kind == enforce.KindEC2 && a.Action == enforce.ActStop:
		var out struct{}
		err := c.ec2(ref.Region).Query(ctx, "EC2 StopInstances", "StopInstances", ec2Version, url.Values{"InstanceId.1": {ref.ID}}, &out)
		return classify("EC2 StopInstances "+ref.ID, err)
	case ref.Kind == enforce.KindEC2 && a.Action == enforce.ActStart:
		var out struct{}
		err := c.ec2(ref.Region).Query(ctx, "EC2 StartInstances", "StartInstances", ec2Version, url.Values{"InstanceId.1": {ref.ID}}, &out)
		return classify("EC2 StartInstances "+ref.ID, err)
	case ref.Kind == enforce.KindEC2 && a.Action == enforce.ActTag:
		params := url.Values{"ResourceId.1": {ref.ID}}
		for i, k := range sortedKeys(a.Tags) {
			params.Set("Tag."+strconv.Itoa(i+1)+".Key", k)
			params.Set("Tag."+strconv.Itoa(i+1)+".Value", a.Tags[k])
		}
		var out struct{}
		err := c.ec2(ref.Region).Query(ctx, "EC2 CreateTags", "CreateTags", ec2Version, params, &out)
		return classify("EC2 CreateTags "+ref.ID, err)
	case ref.Kind == enforce.KindSageMaker && a.Action == enforce.ActTag:
		if ref.ARN == "" {
			return fmt.Errorf("tag SageMaker endpoint %s: its ARN is unknown", ref.ID)
		}
		in := struct {
			ResourceArn string
			Tags        []tag
		}{ResourceArn: ref.ARN}
		for _, k := range sortedKeys(a.Tags) {
			in.Tags = append(in.Tags, tag{Key: k, Value: a.Tags[k]})
		}
		err := c.sagemaker(ref.Region).JSON(ctx, "SageMaker AddTags", "SageMaker.AddTags", in, nil)
		return classify("SageMaker AddTags "+ref.ID, err)
	case ref.Kind == enforce.KindSageMaker && a.Action == enforce.ActScaleToZero:
		return c.scaleEndpoint(ctx, ref, a.Components)
	case ref.Kind == enforce.KindSageMaker && a.Action == enforce.ActScaleBack:
		return c.restoreEndpoint(ctx, ref, a.Copies, a.Variants)
	}
	return fmt.Errorf("%s cannot be done to %s %s", a.Action, ref.Kind, ref.ID)
}

// classify gives an AWS error its code: throttling, server errors and unreachable endpoints are
// EUnavailable; other refusals (no permission, an unknown instance) EInvalid. A nil error stays
// nil.
func classify(api string, err error) error {
	if err == nil {
		return nil
	}
	var re *awsrpc.Error
	if errors.As(err, &re) {
		if code := re.Status; code >= 400 && code < 500 && code != http.StatusTooManyRequests {
			return gpucost.Errorf(gpucost.EInvalid, "%s: %w", api, err)
		} else if code != 0 {
			return gpucost.Errorf(gpucost.EUnavailable, "%s: %w", api, err)
		}
	}
	return gpucost.Errorf(gpucost.EUnavailable, "%s cannot be reached: %w", api, err)
}

// sortedKeys returns m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
