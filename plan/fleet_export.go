package plan

// The fleet as the requests that launch it: an EC2 CreateFleet request and a Karpenter NodePool.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gpucost/gpucost"
)

// The EC2 CreateFleet request, field names as the EC2 API reference spells them
// (FleetLaunchTemplateConfigRequest, FleetLaunchTemplateOverridesRequest,
// TargetCapacitySpecificationRequest, SpotOptionsRequest, OnDemandOptionsRequest).
type (
	ec2FleetRequest struct {
		LaunchTemplateConfigs       []ec2LaunchTemplateConfig `json:"LaunchTemplateConfigs"`
		TargetCapacitySpecification ec2TargetCapacity         `json:"TargetCapacitySpecification"`
		SpotOptions                 *ec2SpotOptions           `json:"SpotOptions,omitempty"`
		OnDemandOptions             *ec2OnDemandOptions       `json:"OnDemandOptions,omitempty"`
		Type                        string                    `json:"Type"`
		TagSpecifications           []ec2TagSpecification     `json:"TagSpecifications"`
	}
	ec2LaunchTemplateConfig struct {
		LaunchTemplateSpecification ec2LaunchTemplate `json:"LaunchTemplateSpecification"`
		Overrides                   []ec2Override     `json:"Overrides"`
	}
	ec2LaunchTemplate struct {
		LaunchTemplateName string `json:"LaunchTemplateName"`
		Version            string `json:"Version"`
	}
	ec2Override struct {
		InstanceType     string  `json:"InstanceType"`
		AvailabilityZone string  `json:"AvailabilityZone,omitempty"`
		WeightedCapacity float64 `json:"WeightedCapacity"`
		Priority         float64 `json:"Priority"`
	}
	ec2TargetCapacity struct {
		TotalTargetCapacity       int    `json:"TotalTargetCapacity"`
		OnDemandTargetCapacity    int    `json:"OnDemandTargetCapacity"`
		SpotTargetCapacity        int    `json:"SpotTargetCapacity"`
		DefaultTargetCapacityType string `json:"DefaultTargetCapacityType"`
	}
	ec2SpotOptions struct {
		AllocationStrategy           string                  `json:"AllocationStrategy"`
		InstanceInterruptionBehavior string                  `json:"InstanceInterruptionBehavior"`
		MaintenanceStrategies        *ec2MaintenanceStrategy `json:"MaintenanceStrategies,omitempty"`
	}
	ec2MaintenanceStrategy struct {
		CapacityRebalance struct {
			ReplacementStrategy string `json:"ReplacementStrategy"`
		} `json:"CapacityRebalance"`
	}
	ec2OnDemandOptions struct {
		AllocationStrategy string `json:"AllocationStrategy"`
	}
	ec2TagSpecification struct {
		ResourceType string   `json:"ResourceType"`
		Tags         []ec2Tag `json:"Tags"`
	}
	ec2Tag struct {
		Key   string `json:"Key"`
		Value string `json:"Value"`
	}
)

// EC2FleetRequest returns r as the JSON input of EC2 CreateFleet (`aws ec2 create-fleet
// --cli-input-json`). Capacity is counted in GPUs: each override weighs its instance type's GPU
// count (WeightedCapacity), so TotalTargetCapacity is the GPUs asked for and
// OnDemandTargetCapacity the base. Spot capacity uses the price-capacity-optimized strategy over
// every spot pool listed; on-demand capacity goes by Priority, the base pool first. For type
// maintain, capacity rebalancing launches a replacement on AWS's rebalance recommendation, ahead
// of the 2-minute spot notice (docs/architecture.md reference facts, spot notice).
func EC2FleetRequest(r FleetResult) ([]byte, error) {
	if r.Provider != "aws" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "export ec2-fleet: the fleet is on %q: EC2 Fleet needs aws offers (--provider aws)", r.Provider)
	}
	if len(r.Pools) == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "export ec2-fleet: the plan has no pool")
	}
	req := ec2FleetRequest{
		LaunchTemplateConfigs: []ec2LaunchTemplateConfig{{
			LaunchTemplateSpecification: ec2LaunchTemplate{LaunchTemplateName: r.Options.LaunchTemplate, Version: "$Latest"},
			Overrides:                   ec2Overrides(r),
		}},
		TargetCapacitySpecification: ec2TargetCapacity{
			TotalTargetCapacity: r.TargetGPUs, OnDemandTargetCapacity: r.OnDemandTargetGPUs,
			SpotTargetCapacity: r.TargetGPUs - r.OnDemandTargetGPUs, DefaultTargetCapacityType: "on-demand",
		},
		OnDemandOptions: &ec2OnDemandOptions{AllocationStrategy: "prioritized"},
		Type:            r.Options.FleetType,
		TagSpecifications: []ec2TagSpecification{{ResourceType: "fleet", Tags: []ec2Tag{{Key: "Name", Value: r.Options.Name}}},
			{ResourceType: "instance", Tags: []ec2Tag{{Key: "Name", Value: r.Options.Name}}}},
	}
	if r.TargetGPUs > r.OnDemandTargetGPUs {
		req.TargetCapacitySpecification.DefaultTargetCapacityType = "spot"
		req.SpotOptions = &ec2SpotOptions{AllocationStrategy: "price-capacity-optimized", InstanceInterruptionBehavior: "terminate"}
		if r.Options.FleetType == "maintain" {
			req.SpotOptions.MaintenanceStrategies = &ec2MaintenanceStrategy{}
			req.SpotOptions.MaintenanceStrategies.CapacityRebalance.ReplacementStrategy = "launch"
		}
	}
	out, err := jsonIndent(req)
	if err != nil {
		return nil, fmt.Errorf("export ec2-fleet: %w", err)
	}
	return out, nil
}

// ec2Overrides lists one override per pool, the on-demand base pool at priority 0 and the rest
// by on-demand $/GPU-hour. An override takes a zone name; a zone ID without a name in
// Options.ZoneNames leaves the zone out, and the instance type is listed once.
func ec2Overrides(r FleetResult) []ec2Override {
	pools := slices.Clone(r.Pools)
	slices.SortStableFunc(pools, func(a, b FleetPool) int {
		return cmp.Or(cmp.Compare(notBase(a), notBase(b)),
			cmp.Compare(a.OnDemandPerHour.DivInt(int64(a.GPUsPerInstance)).Nanos, b.OnDemandPerHour.DivInt(int64(b.GPUsPerInstance)).Nanos))
	})
	var out []ec2Override
	seen := map[[2]string]bool{}
	for _, p := range pools {
		zone := p.Zone
		if name, ok := r.Options.ZoneNames[zone]; ok {
			zone = name
		} else if isZoneID(zone) {
			zone = ""
		}
		if k := [2]string{p.InstanceType, zone}; !seen[k] {
			seen[k] = true
			out = append(out, ec2Override{InstanceType: p.InstanceType, AvailabilityZone: zone,
				WeightedCapacity: float64(p.GPUsPerInstance), Priority: float64(len(out))})
		}
	}
	return out
}

// notBase is 0 for a pool of the on-demand base and 1 for any other, to sort the base first.
func notBase(p FleetPool) int {
	if p.Capacity == gpucost.OnDemand && p.Instances > 0 {
		return 0
	}
	return 1
}

// KarpenterNodePool returns r as Karpenter v1 NodePool YAML (apiVersion karpenter.sh/v1): one
// NodePool per capacity type, each limited to its GPUs (limits nvidia.com/gpu) and required to
// use the plan's instance types and zones (zone IDs under topology.k8s.aws/zone-id, names under
// topology.kubernetes.io/zone). The on-demand NodePool carries the higher weight, so Karpenter
// fills the base first and provisions the rest on spot once it reaches its limit. A NodePool
// admits every listed type in every listed zone, a little wider than the plan's pools.
func KarpenterNodePool(r FleetResult) ([]byte, error) {
	if r.Provider != "aws" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "export karpenter: the fleet is on %q: the NodePool uses the AWS provider's EC2NodeClass (--provider aws)", r.Provider)
	}
	var b strings.Builder
	for _, capacity := range []gpucost.PricingModel{gpucost.OnDemand, gpucost.Spot} {
		var pools []FleetPool
		gpus := 0
		for _, p := range r.Pools {
			if p.Capacity == capacity {
				pools, gpus = append(pools, p), gpus+p.GPUs
			}
		}
		if gpus == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("---\n")
		}
		weight := 0
		if capacity == gpucost.OnDemand && r.SpotGPUs > 0 {
			weight = 100
		}
		writeNodePool(&b, r, capacity, pools, gpus, weight)
	}
	if b.Len() == 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "export karpenter: the plan has no instance")
	}
	return []byte(b.String()), nil
}

// writeNodePool writes one NodePool document.
func writeNodePool(b *strings.Builder, r FleetResult, capacity gpucost.PricingModel, pools []FleetPool, gpus, weight int) {
	var types, zones, zoneIDs []string
	for _, p := range pools {
		types = appendNew(types, p.InstanceType)
		switch {
		case p.Zone == "":
		case isZoneID(p.Zone):
			zoneIDs = appendNew(zoneIDs, p.Zone)
		default:
			zones = appendNew(zones, p.Zone)
		}
	}
	fmt.Fprintf(b, "apiVersion: karpenter.sh/v1\nkind: NodePool\nmetadata:\n  name: %s\n", yamlQuote(r.Options.Name+"-"+string(capacity)))
	fmt.Fprintf(b, "  labels:\n    app.kubernetes.io/managed-by: gpucost\nspec:\n")
	if weight > 0 {
		fmt.Fprintf(b, "  weight: %d\n", weight)
	}
	fmt.Fprintf(b, "  template:\n    spec:\n      nodeClassRef:\n        group: karpenter.k8s.aws\n        kind: EC2NodeClass\n        name: %s\n",
		yamlQuote(r.Options.NodeClass))
	b.WriteString("      taints:\n        - key: nvidia.com/gpu\n          effect: NoSchedule\n      requirements:\n")
	writeRequirement(b, "node.kubernetes.io/instance-type", types)
	writeRequirement(b, "karpenter.sh/capacity-type", []string{string(capacity)})
	writeRequirement(b, "topology.kubernetes.io/region", []string{r.Region})
	writeRequirement(b, "topology.kubernetes.io/zone", zones)
	writeRequirement(b, "topology.k8s.aws/zone-id", zoneIDs)
	fmt.Fprintf(b, "  limits:\n    nvidia.com/gpu: %d\n", gpus)
}

// writeRequirement writes one In requirement, or nothing for no values.
func writeRequirement(b *strings.Builder, key string, values []string) {
	if len(values) == 0 {
		return
	}
	fmt.Fprintf(b, "        - key: %s\n          operator: In\n          values:\n", key)
	for _, v := range values {
		fmt.Fprintf(b, "            - %s\n", yamlQuote(v))
	}
}

// appendNew appends s to list unless it is there already.
func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// yamlQuote writes s as a YAML double-quoted scalar, which takes JSON's escapes.
func yamlQuote(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

// jsonIndent marshals v indented by two spaces, with a final newline, leaving <, > and & as they are.
func jsonIndent(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
