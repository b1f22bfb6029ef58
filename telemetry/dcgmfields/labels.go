package dcgmfields

import (
	"iter"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
)

// Labels that identify the GPU or the scrape target rather than the GPU's user: Identify drops
// them. Prometheus adds job and instance for the scrape target; job there is not the workload's
// job, which arrives as exported_job or, from dcgm-exporter's HPC job mapping, as hpc_job.
var dropped = map[string]bool{
	"device": true, "pci_bus_id": true, "instance": true, "job": true, "service": true,
	"endpoint": true, "exported_instance": true, "err_code": true, "err_msg": true,
	"prometheus": true, "prometheus_replica": true, "__name__": true,
}

// MIGUUID returns the UUID gpucost gives the MIG instance instanceID (dcgm-exporter's GPU_I_ID)
// of the GPU parent: dcgm-exporter labels MIG metrics with the parent's UUID only.
func MIGUUID(parent, instanceID string) string { return parent + "/" + instanceID }

// Identify returns the GPU or MIG instance a dcgm-exporter label set names and the labels that
// attribute it to a workload, lower-cased. host is the host of a set without a Hostname label.
// It returns a reason instead when the labels name no GPU.
func Identify(labels iter.Seq2[string, string], host string) (gpucost.GPU, gpucost.Labels, string) {
	exported := false
	for name, value := range labels {
		switch name {
		case "exported_pod", "exported_namespace", "exported_container":
			exported = exported || value != ""
		}
	}
	g := gpucost.GPU{Host: host, Index: -1}
	var uuid, index, instance string
	var attr gpucost.Labels
	for name, value := range labels {
		if value == "" {
			continue // an empty label is an absent one
		}
		switch name {
		case "UUID", "uuid":
			uuid = value
		case "gpu":
			index = value
		case "modelName", "modelname":
			g.Model = value
		case "Hostname", "hostname":
			g.Host = value
		case "GPU_I_ID":
			instance = value
		case "GPU_I_PROFILE":
			g.Profile = value
		default:
			if key, ok := attribution(name, exported); ok {
				if attr == nil {
					attr = gpucost.Labels{}
				}
				attr[key] = value
			}
		}
	}
	if uuid == "" && index == "" {
		return g, nil, "labels name no GPU (no UUID or gpu label)"
	}
	if index != "" {
		n, err := strconv.Atoi(index)
		if err != nil || n < 0 {
			return g, nil, "gpu label " + strconv.Quote(index) + " is not a device index"
		}
		g.Index = n
	}
	if uuid == "" {
		uuid = "gpu" + index
	}
	g.UUID = uuid
	if instance != "" {
		g.Parent, g.UUID = uuid, MIGUUID(uuid, instance)
	}
	return g, attr, ""
}

// attribution returns the Sample.Labels key for a source label, and false for a label that
// says nothing about who uses the GPU. With exported set, Prometheus has renamed the workload's
// pod, namespace and container to exported_*, and the plain ones name the exporter itself.
func attribution(name string, exported bool) (string, bool) {
	switch name {
	case "pod", "namespace", "container":
		return name, !exported
	case "exported_pod", "exported_namespace", "exported_container":
		return strings.TrimPrefix(name, "exported_"), true
	case "hpc_job", "exported_job":
		return gpucost.LabelJob, true
	}
	if dropped[name] || strings.HasPrefix(name, "DCGM_") {
		return "", false
	}
	return strings.ToLower(name), true
}
