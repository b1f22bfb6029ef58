package fakecloud

import (
	"encoding/json"
	"encoding/xml"
	"net/http"
)

const ec2NS = "http://ec2.amazonaws.com/doc/2016-11-15/"

var stateCodes = map[string]int{"pending": 0, "running": 16, "shutting-down": 32, "terminated": 48, "stopping": 64, "stopped": 80}

type xmlState struct {
	Code int    `xml:"code"`
	Name string `xml:"name"`
}

func state(name string) xmlState { return xmlState{Code: stateCodes[name], Name: name} }

type xmlTag struct {
	Key   string `xml:"key"`
	Value string `xml:"value"`
}

type xmlInstance struct {
	ID        string   `xml:"instanceId"`
	Type      string   `xml:"instanceType"`
	Launch    string   `xml:"launchTime"`
	State     xmlState `xml:"instanceState"`
	Lifecycle string   `xml:"instanceLifecycle,omitempty"`
	Tags      []xmlTag `xml:"tagSet>item"`
}

type reservation struct {
	ID        string        `xml:"reservationId"`
	Instances []xmlInstance `xml:"instancesSet>item"`
}

type describeResponse struct {
	XMLName      xml.Name      `xml:"DescribeInstancesResponse"`
	XMLNS        string        `xml:"xmlns,attr"`
	RequestID    string        `xml:"requestId"`
	Reservations []reservation `xml:"reservationSet>item"`
	NextToken    string        `xml:"nextToken,omitempty"`
}

type stateChange struct {
	ID       string   `xml:"instanceId"`
	Current  xmlState `xml:"currentState"`
	Previous xmlState `xml:"previousState"`
}

type stopResponse struct {
	XMLName   xml.Name      `xml:"StopInstancesResponse"`
	XMLNS     string        `xml:"xmlns,attr"`
	RequestID string        `xml:"requestId"`
	Items     []stateChange `xml:"instancesSet>item"`
}

type createTagsResponse struct {
	XMLName   xml.Name `xml:"CreateTagsResponse"`
	XMLNS     string   `xml:"xmlns,attr"`
	RequestID string   `xml:"requestId"`
	Return    bool     `xml:"return"`
}

type ec2ErrorResponse struct {
	XMLName   xml.Name `xml:"Response"`
	Errors    []ec2Err `xml:"Errors>Error"`
	RequestID string   `xml:"RequestID"`
}

type ec2Err struct {
	Code    string `xml:"Code"`
	Message string `xml:"Message"`
}

func writeXML(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.Write([]byte(xml.Header))
	xml.NewEncoder(w).Encode(v)
}

func ec2Error(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "text/xml;charset=UTF-8")
	w.WriteHeader(status)
	xml.NewEncoder(w).Encode(ec2ErrorResponse{Errors: []ec2Err{{Code: code, Message: msg}}, RequestID: "req-error"})
}

func jsonError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-ErrorType", code)
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"__type": code, "message": msg})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	json.NewEncoder(w).Encode(v)
}

// sagemaker answers one SageMaker JSON 1.1 action.
func (f *AWS) sagemaker(w http.ResponseWriter, action string, in map[string]any) {
	str := func(k string) string { s, _ := in[k].(string); return s }
	switch action {
	case "ListEndpoints":
		var eps []map[string]any
		for _, e := range f.endpoints {
			eps = append(eps, map[string]any{"EndpointName": e.Name, "EndpointArn": arn(e.Name), "EndpointStatus": e.Status,
				"CreationTime": float64(e.Created.Unix()), "LastModifiedTime": float64(e.Created.Unix())})
		}
		writeJSON(w, map[string]any{"Endpoints": eps})
	case "DescribeEndpoint":
		e := f.endpoint(str("EndpointName"))
		if e == nil {
			jsonError(w, 400, "ValidationException", "Could not find endpoint "+str("EndpointName"))
			return
		}
		writeJSON(w, map[string]any{"EndpointName": e.Name, "EndpointArn": arn(e.Name), "EndpointConfigName": e.Config,
			"EndpointStatus": e.Status, "CreationTime": float64(e.Created.Unix()), "LastModifiedTime": float64(e.Created.Unix()),
			"ProductionVariants": []map[string]any{{"VariantName": "AllTraffic", "CurrentInstanceCount": e.Instances, "DesiredInstanceCount": e.Instances}}})
	case "DescribeEndpointConfig":
		for _, e := range f.endpoints {
			if e.Config == str("EndpointConfigName") {
				writeJSON(w, map[string]any{"EndpointConfigName": e.Config, "EndpointConfigArn": arn(e.Config), "CreationTime": float64(e.Created.Unix()),
					"ProductionVariants": []map[string]any{{"VariantName": "AllTraffic", "InstanceType": e.InstanceType, "InitialInstanceCount": 1}}})
				return
			}
		}
		jsonError(w, 400, "ValidationException", "Could not find endpoint configuration "+str("EndpointConfigName"))
	case "ListTags":
		for _, e := range f.endpoints {
			if arn(e.Name) == str("ResourceArn") {
				writeJSON(w, map[string]any{"Tags": tagList(e.Tags)})
				return
			}
		}
		jsonError(w, 400, "ValidationException", "no such resource")
	case "AddTags":
		f.addTags(w, in)
	case "ListInferenceComponents":
		var ics []map[string]any
		if e := f.endpoint(str("EndpointNameEquals")); e != nil {
			for _, name := range sortedKeys(e.Components) {
				ics = append(ics, map[string]any{"InferenceComponentName": name, "InferenceComponentArn": arn("inference-component/" + name),
					"EndpointName": e.Name, "EndpointArn": arn(e.Name), "VariantName": "AllTraffic", "InferenceComponentStatus": "InService",
					"CreationTime": float64(e.Created.Unix()), "LastModifiedTime": float64(e.Created.Unix())})
			}
		}
		writeJSON(w, map[string]any{"InferenceComponents": ics})
	case "UpdateInferenceComponentRuntimeConfig":
		f.updateRuntime(w, in)
	case "DescribeInferenceComponent":
		f.describeComponent(w, str("InferenceComponentName"))
	case "UpdateEndpointWeightsAndCapacities":
		f.updateCapacities(w, in)
	default:
		jsonError(w, 400, "UnknownOperationException", "unknown operation "+action)
	}
}

func (f *AWS) endpoint(name string) *Endpoint {
	for _, e := range f.endpoints {
		if e.Name == name {
			return e
		}
	}
	return nil
}

func (f *AWS) addTags(w http.ResponseWriter, in map[string]any) {
	target, _ := in["ResourceArn"].(string)
	for _, e := range f.endpoints {
		if arn(e.Name) != target {
			continue
		}
		tags, _ := in["Tags"].([]any)
		for _, t := range tags {
			m, _ := t.(map[string]any)
			k, _ := m["Key"].(string)
			v, _ := m["Value"].(string)
			e.Tags[k] = v
		}
		writeJSON(w, map[string]any{"Tags": tagList(e.Tags)})
		return
	}
	jsonError(w, 400, "ValidationException", "no such resource "+target)
}

func (f *AWS) updateRuntime(w http.ResponseWriter, in map[string]any) {
	name, _ := in["InferenceComponentName"].(string)
	cfg, _ := in["DesiredRuntimeConfig"].(map[string]any)
	copies, ok := cfg["CopyCount"].(float64)
	if !ok {
		jsonError(w, 400, "ValidationException", "DesiredRuntimeConfig.CopyCount is required")
		return
	}
	for _, e := range f.endpoints {
		if _, ok := e.Components[name]; ok {
			e.Components[name] = int(copies)
			e.scaleInstances()
			writeJSON(w, map[string]any{"InferenceComponentArn": arn("inference-component/" + name)})
			return
		}
	}
	jsonError(w, 400, "ValidationException", "Could not find inference component "+name)
}

func tagList(tags map[string]string) []map[string]string {
	out := []map[string]string{}
	for _, k := range sortedKeys(tags) {
		out = append(out, map[string]string{"Key": k, "Value": tags[k]})
	}
	return out
}

// arn returns the fake's ARN of a SageMaker resource in account 123456789012.
func arn(name string) string {
	if len(name) > 20 && name[:20] == "inference-component/" {
		return "arn:aws:sagemaker:us-east-1:123456789012:" + name
	}
	return "arn:aws:sagemaker:us-east-1:123456789012:endpoint/" + name
}

// ARN returns the ARN the fake gives endpoint name.
func ARN(name string) string { return arn(name) }
