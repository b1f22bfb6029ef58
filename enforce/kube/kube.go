// Package kube is enforcement on Kubernetes: it lists the Deployments that request GPUs
// (enforce.Inventory) and scales them to zero or annotates them (enforce.Actuator) through the
// API server, with plain HTTP requests and a bearer token.
package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/internal/bearer"
)

// gpuResources are the extended resources that count as GPUs in a pod spec.
var gpuResources = []string{"nvidia.com/gpu", "amd.com/gpu", "gpu.intel.com/i915"}

// Client lists the Deployments of a Kubernetes cluster that request GPUs and acts on them through
// the API server with a bearer token, over plain HTTP requests: the scale subresource sets a
// Deployment's replicas to zero (a JSON merge patch), and the tag action sets annotations.
type Client struct {
	Server string // the API server's URL, https://10.0.0.1:6443
	Token  string // a service account's bearer token; never logged
	// Tokens, when set, gives the token for each request instead of Token: a rotated token
	// file or a kubeconfig exec plugin's token, renewed before it expires.
	Tokens     func(context.Context) (string, error)
	HTTP       *http.Client // with the cluster's CA; http.DefaultClient when nil
	Namespaces []string     // the namespaces to list; all when empty
	Selector   string       // a label selector the Deployments must match, such as team=research
	// AllDeployments lists Deployments that request no GPUs too.
	AllDeployments bool
	// StatefulSets lists the StatefulSets that request GPUs too, such as the one a Kubeflow
	// Notebook runs its server in, for idle and off-hours policies to scale to zero and back.
	StatefulSets bool
}

var (
	_ enforce.Inventory = (*Client)(nil)
	_ enforce.Actuator  = (*Client)(nil)
)

// deploymentList is the part of an apps/v1 DeploymentList that is read.
type deploymentList struct {
	Metadata struct {
		Continue string `json:"continue"`
	} `json:"metadata"`
	Items []deployment `json:"items"`
}

type deployment struct {
	Metadata struct {
		Name              string            `json:"name"`
		Namespace         string            `json:"namespace"`
		Labels            map[string]string `json:"labels"`
		CreationTimestamp time.Time         `json:"creationTimestamp"`
	} `json:"metadata"`
	Spec struct {
		Replicas *int `json:"replicas"`
		Template struct {
			Spec struct {
				Containers []struct {
					Resources struct {
						Limits   map[string]string `json:"limits"`
						Requests map[string]string `json:"requests"`
					} `json:"resources"`
				} `json:"containers"`
			} `json:"spec"`
		} `json:"template"`
	} `json:"spec"`
}

// Resources lists the Deployments (those requesting GPUs unless AllDeployments) and, with
// StatefulSets, the StatefulSets that request GPUs.
func (k *Client) Resources(ctx context.Context) ([]enforce.Resource, error) {
	out, err := k.list(ctx, "deployments", enforce.KindDeployment, k.AllDeployments)
	if err != nil || !k.StatefulSets {
		return out, err
	}
	sts, err := k.list(ctx, "statefulsets", enforce.KindStatefulSet, false)
	return append(out, sts...), err
}

// list pages through one kind of workload, all namespaces or k.Namespaces.
func (k *Client) list(ctx context.Context, resource, kind string, all bool) ([]enforce.Resource, error) {
	paths := []string{"/apis/apps/v1/" + resource}
	if len(k.Namespaces) > 0 {
		paths = paths[:0]
		for _, ns := range k.Namespaces {
			paths = append(paths, "/apis/apps/v1/namespaces/"+url.PathEscape(ns)+"/"+resource)
		}
	}
	var out []enforce.Resource
	for _, p := range paths {
		cont := ""
		for {
			q := url.Values{"limit": {"500"}}
			if k.Selector != "" {
				q.Set("labelSelector", k.Selector)
			}
			if cont != "" {
				q.Set("continue", cont)
			}
			var list deploymentList
			if err := k.do(ctx, http.MethodGet, p+"?"+q.Encode(), "", nil, &list); err != nil {
				return nil, fmt.Errorf("list %s: %w", resource, err)
			}
			for _, d := range list.Items {
				if r := d.resource(kind); r.GPUs > 0 || all {
					out = append(out, r)
				}
			}
			if cont = list.Metadata.Continue; cont == "" {
				break
			}
		}
	}
	return out, nil
}

func (d deployment) resource(kind string) enforce.Resource {
	m := d.Metadata
	replicas := 1 // the API's default
	if d.Spec.Replicas != nil {
		replicas = max(0, *d.Spec.Replicas)
	}
	perPod := 0
	for _, c := range d.Spec.Template.Spec.Containers {
		perPod += gpuCount(c.Resources.Limits, c.Resources.Requests)
	}
	state := fmt.Sprintf("%d replicas", replicas)
	return enforce.Resource{Kind: kind, ID: m.Namespace + "/" + m.Name, Name: m.Name, Namespace: m.Namespace, Count: replicas,
		GPUs: perPod * replicas, State: state, Running: replicas > 0, Launched: m.CreationTimestamp.UTC(), Tags: m.Labels}
}

// gpuCount returns the GPUs a container asks for: its limit, else its request.
func gpuCount(limits, requests map[string]string) int {
	n := 0
	for _, name := range gpuResources {
		v, ok := limits[name]
		if !ok {
			v = requests[name]
		}
		if c, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && c > 0 {
			n += c
		}
	}
	return n
}

// Do scales a Deployment or StatefulSet to zero or back to the action's recorded size, or
// annotates it with the action's tags.
func (k *Client) Do(ctx context.Context, a enforce.Action) error {
	ref := a.Resource
	kinds := map[string]string{enforce.KindDeployment: "deployments", enforce.KindStatefulSet: "statefulsets"}
	if ref == nil || kinds[ref.Kind] == "" {
		return fmt.Errorf("%s: not a Kubernetes Deployment or StatefulSet", a.Action)
	}
	ns, name, ok := strings.Cut(ref.ID, "/")
	if !ok || ns == "" || name == "" {
		return fmt.Errorf("%s %s: want NAMESPACE/NAME", a.Action, ref.ID)
	}
	base := "/apis/apps/v1/namespaces/" + url.PathEscape(ns) + "/" + kinds[ref.Kind] + "/" + url.PathEscape(name)
	switch a.Action {
	case enforce.ActScaleToZero, enforce.ActScaleBack:
		n := 0
		if a.Action == enforce.ActScaleBack {
			if a.Size <= 0 {
				return fmt.Errorf("scale %s back: the action recorded no size", ref.ID)
			}
			n = a.Size
		}
		err := k.do(ctx, http.MethodPatch, base+"/scale", "application/merge-patch+json", map[string]any{"spec": map[string]any{"replicas": n}}, nil)
		if err != nil {
			return fmt.Errorf("scale %s %s to %d: %w", ref.Kind, ref.ID, n, err)
		}
		return nil
	case enforce.ActTag:
		patch := map[string]any{"metadata": map[string]any{"annotations": a.Tags}}
		if err := k.do(ctx, http.MethodPatch, base, "application/merge-patch+json", patch, nil); err != nil {
			return fmt.Errorf("annotate Deployment %s: %w", ref.ID, err)
		}
		return nil
	}
	return fmt.Errorf("%s cannot be done to Deployment %s", a.Action, ref.ID)
}

// do sends one request to the API server and decodes a JSON answer into out (if not nil).
func (k *Client) do(ctx context.Context, method, path, contentType string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(k.Server, "/")+path, rd)
	if err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "Kubernetes API %s: %w", k.Server, err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	status, data, err := bearer.Auth{HTTP: k.HTTP, Token: k.Token, Tokens: k.Tokens}.Do(ctx, req, "Kubernetes API "+k.Server)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return kubeError(status, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return gpucost.Errorf(gpucost.EUnavailable, "decode the Kubernetes API's answer: %w", err)
	}
	return nil
}

// kubeError turns a refusal into an error with the Status message the API server sent.
func kubeError(code int, body []byte) error {
	var st struct {
		Message string `json:"message"`
		Reason  string `json:"reason"`
	}
	msg := http.StatusText(code)
	if json.Unmarshal(body, &st) == nil && st.Message != "" {
		msg = st.Message
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	ec := gpucost.EInvalid
	switch {
	case code == http.StatusNotFound:
		ec = gpucost.ENotFound
	case code == http.StatusConflict:
		ec = gpucost.EConflict
	case code == http.StatusTooManyRequests || code >= 500:
		ec = gpucost.EUnavailable
	}
	return gpucost.Errorf(ec, "Kubernetes API answered %d: %s", code, msg)
}
