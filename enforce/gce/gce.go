// Package gce is enforcement on Google Compute Engine: it lists the VMs of some projects that
// carry GPUs (enforce.Inventory) and stops and starts them (enforce.Actuator) through the
// Compute Engine REST API (instances.aggregatedList, instances.stop, instances.start), with
// plain HTTP requests and an OAuth 2 access token.
package gce

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/internal/bearer"
)

// DefaultBaseURL is the Compute Engine API's.
const DefaultBaseURL = "https://compute.googleapis.com"

// Client lists and acts on the GPU VMs of Projects. A resource's id is PROJECT/ZONE/NAME.
type Client struct {
	Projects []string
	Token    string // an OAuth 2 access token with the compute scope; never logged
	// Tokens, when set, gives the token for each request instead of Token (gcpcreds.Chain.Token, which
	// renews it before it expires).
	Tokens  func(context.Context) (string, error)
	BaseURL string       // DefaultBaseURL when empty
	HTTP    *http.Client // http.DefaultClient when nil
	// AllInstances lists VMs without accelerators too.
	AllInstances bool
}

var (
	_ enforce.Inventory = (*Client)(nil)
	_ enforce.Actuator  = (*Client)(nil)
)

// instance is the part of a Compute Engine instance that is read.
type instance struct {
	Name              string            `json:"name"`
	Zone              string            `json:"zone"`        // a URL ending in zones/ZONE
	MachineType       string            `json:"machineType"` // a URL ending in machineTypes/TYPE
	Status            string            `json:"status"`      // PROVISIONING, STAGING, RUNNING, STOPPING, TERMINATED, …
	CreationTimestamp string            `json:"creationTimestamp"`
	Labels            map[string]string `json:"labels"`
	GuestAccelerators []struct {
		AcceleratorCount int `json:"acceleratorCount"`
	} `json:"guestAccelerators"`
	Scheduling struct {
		Preemptible       bool   `json:"preemptible"`
		ProvisioningModel string `json:"provisioningModel"`
	} `json:"scheduling"`
}

// Resources lists the VMs with accelerators of every project (all VMs with AllInstances).
func (c *Client) Resources(ctx context.Context) ([]enforce.Resource, error) {
	var out []enforce.Resource
	for _, project := range c.Projects {
		token := ""
		for {
			q := url.Values{"maxResults": {"500"}}
			if token != "" {
				q.Set("pageToken", token)
			}
			var page struct {
				Items map[string]struct {
					Instances []instance `json:"instances"`
				} `json:"items"`
				NextPageToken string `json:"nextPageToken"`
			}
			p := "/compute/v1/projects/" + url.PathEscape(project) + "/aggregated/instances?" + q.Encode()
			if err := c.do(ctx, http.MethodGet, p, &page); err != nil {
				return nil, fmt.Errorf("list the VMs of GCE project %s: %w", project, err)
			}
			scopes := make([]string, 0, len(page.Items))
			for k := range page.Items {
				scopes = append(scopes, k)
			}
			slices.Sort(scopes) // zones listed alike every time
			for _, scope := range scopes {
				for _, in := range page.Items[scope].Instances {
					if r := in.resource(project); r.GPUs > 0 || c.AllInstances {
						out = append(out, r)
					}
				}
			}
			if token = page.NextPageToken; token == "" {
				break
			}
		}
	}
	return out, nil
}

func (in instance) resource(project string) enforce.Resource {
	zone := path.Base(in.Zone)
	gpus := 0
	for _, a := range in.GuestAccelerators {
		gpus += a.AcceleratorCount
	}
	r := enforce.Resource{Kind: enforce.KindGCE, ID: project + "/" + zone + "/" + in.Name, Name: in.Name, Provider: "gcp", Region: zone,
		InstanceType: path.Base(in.MachineType), Count: 1, GPUs: gpus, State: in.Status,
		Running: in.Status == "RUNNING" || in.Status == "PROVISIONING" || in.Status == "STAGING",
		Spot:    in.Scheduling.Preemptible || in.Scheduling.ProvisioningModel == "SPOT", Tags: map[string]string{}}
	for k, v := range in.Labels {
		r.Tags[k] = v
	}
	if t, err := time.Parse(time.RFC3339, in.CreationTimestamp); err == nil {
		r.Launched = t.UTC()
	}
	return r
}

// Do stops (instances.stop) or starts (instances.start) a VM.
func (c *Client) Do(ctx context.Context, a enforce.Action) error {
	ref := a.Resource
	if ref == nil || ref.Kind != enforce.KindGCE {
		return fmt.Errorf("%s: not a GCE VM", a.Action)
	}
	parts := strings.Split(ref.ID, "/")
	if len(parts) != 3 || parts[0] == "" || parts[1] == "" || parts[2] == "" {
		return fmt.Errorf("%s %s: want PROJECT/ZONE/NAME", a.Action, ref.ID)
	}
	verb := map[string]string{enforce.ActStop: "stop", enforce.ActStart: "start"}[a.Action]
	if verb == "" {
		return fmt.Errorf("%s cannot be done to GCE VM %s; GCE VMs are stopped and started", a.Action, ref.ID)
	}
	p := fmt.Sprintf("/compute/v1/projects/%s/zones/%s/instances/%s/%s", url.PathEscape(parts[0]), url.PathEscape(parts[1]), url.PathEscape(parts[2]), verb)
	if err := c.do(ctx, http.MethodPost, p, nil); err != nil {
		return fmt.Errorf("%s GCE VM %s: %w", verb, ref.ID, err)
	}
	return nil
}

// do sends one request and decodes a JSON answer into out (if not nil).
func (c *Client) do(ctx context.Context, method, p string, out any) error {
	base := c.BaseURL
	if base == "" {
		base = DefaultBaseURL
	}
	var body io.Reader
	if method == http.MethodPost {
		body = bytes.NewReader(nil)
	}
	req, err := http.NewRequestWithContext(ctx, method, strings.TrimRight(base, "/")+p, body)
	if err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "Compute Engine API %s: %w", base, err)
	}
	status, data, err := bearer.Auth{HTTP: c.HTTP, Token: c.Token, Tokens: c.Tokens}.Do(ctx, req, "Compute Engine API "+base)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return apiError("Compute Engine", status, data)
	}
	if out == nil {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return gpucost.Errorf(gpucost.EUnavailable, "decode the Compute Engine API's answer: %w", err)
	}
	return nil
}

// apiError turns a refusal into an error with the message Google's error body carries:
// 401 and 403 say to check the token's scope and roles.
func apiError(api string, code int, body []byte) error {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := http.StatusText(code)
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		msg = e.Error.Message
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return gpucost.Errorf(gpucost.EInvalid, "%s API answered %d: %s (the token needs compute.instances.list, .stop and .start, e.g. roles/compute.instanceAdmin.v1)", api, code, msg)
	case code == http.StatusNotFound:
		return gpucost.Errorf(gpucost.ENotFound, "%s API answered %d: %s", api, code, msg)
	case code == http.StatusTooManyRequests || code >= 500:
		return gpucost.Errorf(gpucost.EUnavailable, "%s API answered %d: %s", api, code, msg)
	}
	return gpucost.Errorf(gpucost.EInvalid, "%s API answered %d: %s", api, code, msg)
}
