// Package fakecloud holds small in-process stand-ins for the cloud APIs package enforce talks
// to, for tests on loopback: EC2 (the query protocol with XML answers) and SageMaker (JSON 1.1
// with X-Amz-Target) behind one server, and a Kubernetes API server's Deployments and their
// scale subresource. Each keeps state (a stopped instance stops being listed as running) and
// records every request, so that tests assert exactly what was asked.
package fakecloud

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Instance is an EC2 instance the fake holds.
type Instance struct {
	ID, Type, State string
	Spot            bool
	Launched        time.Time
	Tags            map[string]string
}

// Endpoint is a SageMaker endpoint the fake holds.
type Endpoint struct {
	Name, Config, InstanceType, Status string
	Instances                          int
	Created                            time.Time
	Tags                               map[string]string
	Components                         map[string]int // inference component → copy count
}

// Call is one request the fake received: the service (ec2 or sagemaker), the action and its
// parameters (EC2's form values; SageMaker's JSON body), and the Authorization header.
type Call struct {
	Service, Action string
	Form            url.Values
	JSON            map[string]any
	Authorization   string
}

// AWS is a fake EC2 and SageMaker endpoint.
type AWS struct {
	URL string

	mu        sync.Mutex
	instances []*Instance
	endpoints []*Endpoint
	calls     []Call
}

// NewAWS starts a fake holding instances and endpoints, stopped when t ends.
func NewAWS(t testing.TB, instances []Instance, endpoints []Endpoint) *AWS {
	f := &AWS{}
	for i := range instances {
		in := instances[i]
		f.instances = append(f.instances, &in)
	}
	for i := range endpoints {
		e := endpoints[i]
		f.endpoints = append(f.endpoints, &e)
	}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Calls returns the requests received so far.
func (f *AWS) Calls() []Call {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// Instance returns the instance with id as it stands now.
func (f *AWS) Instance(id string) Instance {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, in := range f.instances {
		if in.ID == id {
			return *in
		}
	}
	return Instance{}
}

// Endpoint returns the endpoint named name as it stands now.
func (f *AWS) Endpoint(name string) Endpoint {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range f.endpoints {
		if e.Name == name {
			return *e
		}
	}
	return Endpoint{}
}

func (f *AWS) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	defer f.mu.Unlock()
	if target := r.Header.Get("X-Amz-Target"); target != "" {
		action, _ := strings.CutPrefix(target, "SageMaker.")
		var in map[string]any
		if err := json.Unmarshal(body, &in); err != nil {
			jsonError(w, 400, "SerializationException", err.Error())
			return
		}
		f.calls = append(f.calls, Call{Service: "sagemaker", Action: action, JSON: in, Authorization: r.Header.Get("Authorization")})
		f.sagemaker(w, action, in)
		return
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		ec2Error(w, 400, "MalformedQueryString", err.Error())
		return
	}
	action := form.Get("Action")
	f.calls = append(f.calls, Call{Service: "ec2", Action: action, Form: form, Authorization: r.Header.Get("Authorization")})
	f.ec2(w, action, form)
}

// ec2 answers one EC2 query action.
func (f *AWS) ec2(w http.ResponseWriter, action string, form url.Values) {
	switch action {
	case "DescribeInstances":
		f.describeInstances(w, form)
	case "StopInstances", "StartInstances":
		next := map[string]string{"StopInstances": "stopping", "StartInstances": "pending"}[action]
		ids := listParam(form, "InstanceId")
		var items []stateChange
		for _, id := range ids {
			in := f.find(id)
			if in == nil {
				ec2Error(w, 400, "InvalidInstanceID.NotFound", fmt.Sprintf("The instance ID '%s' does not exist", id))
				return
			}
			items = append(items, stateChange{ID: id, Previous: state(in.State), Current: state(next)})
			in.State = next
		}
		writeXML(w, stopResponse{XMLNS: ec2NS, RequestID: "req-" + next, Items: items})
	case "CreateTags":
		ids := listParam(form, "ResourceId")
		for _, id := range ids {
			in := f.find(id)
			if in == nil {
				ec2Error(w, 400, "InvalidID", fmt.Sprintf("The ID '%s' is not valid", id))
				return
			}
			for i := 1; form.Has(fmt.Sprintf("Tag.%d.Key", i)); i++ {
				in.Tags[form.Get(fmt.Sprintf("Tag.%d.Key", i))] = form.Get(fmt.Sprintf("Tag.%d.Value", i))
			}
		}
		writeXML(w, createTagsResponse{XMLNS: ec2NS, RequestID: "req-tags", Return: true})
	default:
		ec2Error(w, 400, "InvalidAction", "The action "+action+" is not valid for this web service.")
	}
}

func (f *AWS) find(id string) *Instance {
	for _, in := range f.instances {
		if in.ID == id {
			return in
		}
	}
	return nil
}

// describeInstances applies the filters EC2 does (instance-state-name, instance-lifecycle,
// tag:KEY) and pages two instances at a time, so that pagination is exercised.
func (f *AWS) describeInstances(w http.ResponseWriter, form url.Values) {
	var match []*Instance
	for _, in := range f.instances {
		if filtersMatch(form, in) {
			match = append(match, in)
		}
	}
	start, _ := strconv.Atoi(form.Get("NextToken"))
	end := min(start+2, len(match))
	resp := describeResponse{XMLNS: ec2NS, RequestID: "req-describe"}
	if end < len(match) {
		resp.NextToken = strconv.Itoa(end)
	}
	for _, in := range match[start:end] {
		x := xmlInstance{ID: in.ID, Type: in.Type, Launch: in.Launched.UTC().Format("2006-01-02T15:04:05.000Z"), State: state(in.State)}
		if in.Spot {
			x.Lifecycle = "spot"
		}
		for _, k := range sortedKeys(in.Tags) {
			x.Tags = append(x.Tags, xmlTag{Key: k, Value: in.Tags[k]})
		}
		resp.Reservations = append(resp.Reservations, reservation{ID: "r-" + in.ID, Instances: []xmlInstance{x}})
	}
	writeXML(w, resp)
}

func filtersMatch(form url.Values, in *Instance) bool {
	for i := 1; form.Has(fmt.Sprintf("Filter.%d.Name", i)); i++ {
		name := form.Get(fmt.Sprintf("Filter.%d.Name", i))
		values := listParam(form, fmt.Sprintf("Filter.%d.Value", i))
		var got string
		switch {
		case name == "instance-state-name":
			got = in.State
		case name == "instance-lifecycle":
			got = "on-demand"
			if in.Spot {
				got = "spot"
			}
		case strings.HasPrefix(name, "tag:"):
			v, ok := in.Tags[strings.TrimPrefix(name, "tag:")]
			if !ok {
				return false
			}
			got = v
		default:
			return false
		}
		if !slices.Contains(values, got) {
			return false
		}
	}
	return true
}

// listParam returns the values of a query-protocol list: NAME.1, NAME.2, …
func listParam(form url.Values, name string) []string {
	var out []string
	for i := 1; form.Has(fmt.Sprintf("%s.%d", name, i)); i++ {
		out = append(out, form.Get(fmt.Sprintf("%s.%d", name, i)))
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
