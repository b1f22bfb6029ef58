package fakecloud

import (
	"net/http"
)

// scaleInstances is managed instance scaling with MinInstanceCount 0: an endpoint whose
// inference components all have zero copies keeps no instances.
func (e *Endpoint) scaleInstances() {
	for _, n := range e.Components {
		if n > 0 {
			return
		}
	}
	if len(e.Components) > 0 {
		e.Instances = 0
	}
}

// describeComponent answers DescribeInferenceComponent with the component's copy count as both
// its desired and current count.
func (f *AWS) describeComponent(w http.ResponseWriter, name string) {
	for _, e := range f.endpoints {
		if n, ok := e.Components[name]; ok {
			writeJSON(w, map[string]any{"InferenceComponentName": name, "InferenceComponentArn": arn("inference-component/" + name),
				"EndpointName": e.Name, "EndpointArn": arn(e.Name), "VariantName": "AllTraffic", "InferenceComponentStatus": "InService",
				"RuntimeConfig": map[string]any{"DesiredCopyCount": n, "CurrentCopyCount": n},
				"CreationTime":  float64(e.Created.Unix()), "LastModifiedTime": float64(e.Created.Unix())})
			return
		}
	}
	jsonError(w, 400, "ValidationException", "Could not find inference component "+name)
}

// updateCapacities answers UpdateEndpointWeightsAndCapacities for the fake's one variant,
// AllTraffic: its DesiredInstanceCount becomes the endpoint's instances.
func (f *AWS) updateCapacities(w http.ResponseWriter, in map[string]any) {
	name, _ := in["EndpointName"].(string)
	e := f.endpoint(name)
	if e == nil {
		jsonError(w, 400, "ValidationException", "Could not find endpoint "+name)
		return
	}
	caps, _ := in["DesiredWeightsAndCapacities"].([]any)
	if len(caps) == 0 {
		jsonError(w, 400, "ValidationException", "DesiredWeightsAndCapacities must have at least 1 item")
		return
	}
	for _, c := range caps {
		m, _ := c.(map[string]any)
		if v, _ := m["VariantName"].(string); v != "AllTraffic" {
			jsonError(w, 400, "ValidationException", "The variant name(s) ["+v+"] is/are not present in endpoint "+name)
			return
		}
		if n, ok := m["DesiredInstanceCount"].(float64); ok {
			e.Instances = int(n)
		}
	}
	writeJSON(w, map[string]any{"EndpointArn": arn(e.Name)})
}
