package enforce

import (
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

// Kinds of resources policies act on.
const (
	KindEC2         = "ec2-instance"
	KindSageMaker   = "sagemaker-endpoint"
	KindDeployment  = "k8s-deployment"
	KindGCE         = "gce-instance"    // a Compute Engine VM
	KindAzureVM     = "azure-vm"        // an Azure virtual machine
	KindStatefulSet = "k8s-statefulset" // a StatefulSet, such as a Kubeflow Notebook's
)

// Services the resources are billed under, for budget scopes that name a service.
const (
	serviceEC2       = "Amazon Elastic Compute Cloud"
	serviceSageMaker = "Amazon SageMaker"
)

// Resource is one running thing that costs money, as the inventory saw it.
type Resource struct {
	Kind         string            `json:"kind"` // KindEC2, KindGCE, KindAzureVM, KindSageMaker, KindDeployment or KindStatefulSet
	ID           string            `json:"id"`   // instance id, GCE project/zone/name, Azure VM resource id, endpoint name, or namespace/name
	Name         string            `json:"name,omitempty"`
	ARN          string            `json:"arn,omitempty"`      // a SageMaker endpoint's, for tagging
	Provider     string            `json:"provider,omitempty"` // aws; empty for a Kubernetes cluster
	Region       string            `json:"region,omitempty"`
	Namespace    string            `json:"namespace,omitempty"` // a Deployment's
	InstanceType string            `json:"instance_type,omitempty"`
	Count        int               `json:"count"` // instances behind an endpoint, replicas of a Deployment; 1 for an instance
	GPUs         int               `json:"gpus,omitempty"`
	Spot         bool              `json:"spot,omitempty"`
	State        string            `json:"state"`   // as the provider names it: running, InService, …
	Running      bool              `json:"running"` // it is spending: running or pending, in service with instances, replicas above zero
	Launched     time.Time         `json:"launched"`
	Tags         map[string]string `json:"tags,omitempty"` // tags, or a Deployment's labels
	// Components are a SageMaker endpoint's inference components, which scale-to-zero sets to
	// zero copies; empty for an endpoint that hosts its model in production variants.
	Components []string `json:"inference_components,omitempty"`
	// Copies are each inference component's desired copy count and Variants each production
	// variant's desired instance count, as listed: what a scale-back of the endpoint restores.
	Copies   map[string]int `json:"copy_counts,omitempty"`
	Variants map[string]int `json:"variant_instances,omitempty"`
	// Hosts are the telemetry host names its GPUs report from (the store's inventory joins a
	// billed resource id to them); idle policies also match its ID and Name.
	Hosts []string `json:"hosts,omitempty"`
	// Hourly is what the resource costs an hour as it runs (the bill's effective cost per
	// held hour, else on-demand), for the cost of the hours a policy avoids; nil when unknown.
	Hourly *gpucost.Money `json:"hourly,omitempty"`
	// Rehearsal marks a resource read from the store rather than listed live
	// (StoredResources): no adapter can act on it, so its actions are always dry runs.
	Rehearsal bool `json:"rehearsal,omitempty"`
}

// isK8s reports whether r is a Kubernetes workload, joined to telemetry by its pods' labels.
func (r *Resource) isK8s() bool { return r.Kind == KindDeployment || r.Kind == KindStatefulSet }

// Ref names a resource in an action.
type Ref struct {
	Kind      string `json:"kind"`
	ID        string `json:"id"`
	Region    string `json:"region,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	ARN       string `json:"arn,omitempty"`
}

func (r *Resource) ref() Ref {
	return Ref{Kind: r.Kind, ID: r.ID, Region: r.Region, Namespace: r.Namespace, ARN: r.ARN}
}

// Line returns the cost line r is billed as, for matching budget scopes: its provider,
// service, instance type and tags, a Deployment's namespace as a namespace tag.
func (r *Resource) Line() *gpucost.CostLine {
	tags := gpucost.Labels{}
	for k, v := range r.Tags {
		tags[k] = v
	}
	l := &gpucost.CostLine{Provider: r.Provider, InstanceType: r.InstanceType, RegionID: r.Region, ResourceID: r.ID, Tags: tags}
	switch r.Kind {
	case KindEC2:
		l.ServiceName = serviceEC2
	case KindSageMaker:
		l.ServiceName = serviceSageMaker
	case KindDeployment, KindStatefulSet:
		if r.Namespace != "" {
			tags["namespace"] = r.Namespace
		}
	}
	return l
}

// canDo reports whether action a applies to resources of kind.
func canDo(a, kind string) bool {
	switch a {
	case ActStop, ActStart:
		return kind == KindEC2 || kind == KindGCE || kind == KindAzureVM
	case ActScaleToZero, ActScaleBack:
		return kind == KindSageMaker || kind == KindDeployment || kind == KindStatefulSet
	case ActTag:
		return true
	}
	return false
}

// matcher returns a scope matcher that counts a resource's line as a GPU line when the
// resource has GPUs, else by the bundled catalog.
func matcher(gpus map[*gpucost.CostLine]bool) *budget.Matcher {
	var fallback budget.Matcher
	return &budget.Matcher{IsGPU: func(l *gpucost.CostLine) bool {
		if gpus[l] {
			return true
		}
		return fallback.Matches(budget.Scope{GPUOnly: true}, l)
	}}
}
