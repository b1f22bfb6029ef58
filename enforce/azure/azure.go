// Package azure is enforcement on Azure virtual machines: it lists the VMs of some
// subscriptions (enforce.Inventory) and deallocates and starts them (enforce.Actuator) through
// the Azure Resource Manager REST API (virtualMachines list with statusOnly, deallocate,
// start), with plain HTTP requests and a bearer token. A VM is deallocated rather than powered
// off: a powered-off VM is still billed for its compute.
package azure

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/internal/bearer"
)

// DefaultBaseURL is Azure Resource Manager's.
const DefaultBaseURL = "https://management.azure.com"

// APIVersion is the Microsoft.Compute API version the requests name.
const APIVersion = "2024-07-01"

// Client lists and acts on the VMs of Subscriptions. A resource's id is its ARM resource id.
type Client struct {
	Subscriptions []string
	Token         string // an ARM access token; never logged
	// Tokens, when set, gives the token for each request instead of Token (azurecreds.Chain.Token, which
	// renews it before it expires).
	Tokens  func(context.Context) (string, error)
	BaseURL string       // DefaultBaseURL when empty
	HTTP    *http.Client // http.DefaultClient when nil
	// GPUSizes, when set, keeps only VMs whose size it reports to carry GPUs, with their
	// count (the store's inventory or the catalog); nil lists every VM with 0 GPUs.
	GPUSizes func(size string) (int, bool)
}

var (
	_ enforce.Inventory = (*Client)(nil)
	_ enforce.Actuator  = (*Client)(nil)
)

// vm is the part of an ARM virtual machine that is read.
type vm struct {
	ID         string            `json:"id"`
	Name       string            `json:"name"`
	Location   string            `json:"location"`
	Tags       map[string]string `json:"tags"`
	Properties struct {
		HardwareProfile struct {
			VMSize string `json:"vmSize"`
		} `json:"hardwareProfile"`
		Priority     string `json:"priority"` // Regular, Spot, Low
		TimeCreated  string `json:"timeCreated"`
		InstanceView struct {
			Statuses []struct {
				Code string `json:"code"`
			} `json:"statuses"`
		} `json:"instanceView"`
	} `json:"properties"`
}

// Resources lists the VMs of every subscription with their power state.
func (c *Client) Resources(ctx context.Context) ([]enforce.Resource, error) {
	var out []enforce.Resource
	for _, sub := range c.Subscriptions {
		next := "/subscriptions/" + url.PathEscape(sub) + "/providers/Microsoft.Compute/virtualMachines?api-version=" + APIVersion + "&statusOnly=true"
		for next != "" {
			var page struct {
				Value    []vm   `json:"value"`
				NextLink string `json:"nextLink"`
			}
			if err := c.do(ctx, http.MethodGet, next, &page); err != nil {
				return nil, fmt.Errorf("list the VMs of Azure subscription %s: %w", sub, err)
			}
			for _, v := range page.Value {
				r := v.resource()
				if c.GPUSizes != nil {
					n, ok := c.GPUSizes(r.InstanceType)
					if !ok || n == 0 {
						continue
					}
					r.GPUs = n
				}
				out = append(out, r)
			}
			next = page.NextLink
		}
	}
	return out, nil
}

func (v vm) resource() enforce.Resource {
	state := ""
	for _, s := range v.Properties.InstanceView.Statuses {
		if p, ok := strings.CutPrefix(s.Code, "PowerState/"); ok {
			state = p
		}
	}
	r := enforce.Resource{Kind: enforce.KindAzureVM, ID: v.ID, Name: v.Name, Provider: "azure", Region: v.Location,
		InstanceType: v.Properties.HardwareProfile.VMSize, Count: 1, State: state, Running: state == "running" || state == "starting",
		Spot: v.Properties.Priority == "Spot" || v.Properties.Priority == "Low", Tags: map[string]string{}}
	for k, val := range v.Tags {
		r.Tags[k] = val
	}
	if t, err := time.Parse(time.RFC3339, v.Properties.TimeCreated); err == nil {
		r.Launched = t.UTC()
	}
	return r
}

// Do deallocates (stop) or starts a VM.
func (c *Client) Do(ctx context.Context, a enforce.Action) error {
	ref := a.Resource
	if ref == nil || ref.Kind != enforce.KindAzureVM {
		return fmt.Errorf("%s: not an Azure VM", a.Action)
	}
	if !strings.HasPrefix(ref.ID, "/subscriptions/") || !strings.Contains(ref.ID, "/providers/Microsoft.Compute/virtualMachines/") {
		return fmt.Errorf("%s %s: want the VM's resource id, /subscriptions/…/providers/Microsoft.Compute/virtualMachines/NAME", a.Action, ref.ID)
	}
	verb := map[string]string{enforce.ActStop: "deallocate", enforce.ActStart: "start"}[a.Action]
	if verb == "" {
		return fmt.Errorf("%s cannot be done to Azure VM %s; Azure VMs are deallocated and started", a.Action, ref.ID)
	}
	if err := c.do(ctx, http.MethodPost, ref.ID+"/"+verb+"?api-version="+APIVersion, nil); err != nil {
		return fmt.Errorf("%s Azure VM %s: %w", verb, ref.ID, err)
	}
	return nil
}

// do sends one request (p is a path, or a nextLink URL on the same host) and decodes a JSON
// answer into out (if not nil).
func (c *Client) do(ctx context.Context, method, p string, out any) error {
	base := strings.TrimRight(c.BaseURL, "/")
	if base == "" {
		base = DefaultBaseURL
	}
	u := base + p
	if strings.HasPrefix(p, "https://") || strings.HasPrefix(p, "http://") {
		next, err := url.Parse(p)
		if err != nil {
			return gpucost.Errorf(gpucost.EUnavailable, "Azure's nextLink %q: %w", p, err)
		}
		b, _ := url.Parse(base)
		if next.Host != b.Host {
			return gpucost.Errorf(gpucost.EUnavailable, "Azure's nextLink points to %s, not %s; refusing to send the token there", next.Host, b.Host)
		}
		u = p
	}
	req, err := http.NewRequestWithContext(ctx, method, u, nil)
	if err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "Azure Resource Manager %s: %w", base, err)
	}
	status, data, err := bearer.Auth{HTTP: c.HTTP, Token: c.Token, Tokens: c.Tokens}.Do(ctx, req, "Azure Resource Manager "+base)
	if err != nil {
		return err
	}
	if status/100 != 2 {
		return armError(status, data)
	}
	if out == nil || len(data) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return gpucost.Errorf(gpucost.EUnavailable, "decode Azure Resource Manager's answer: %w", err)
	}
	return nil
}

// armError turns a refusal into an error with ARM's code and message.
func armError(code int, body []byte) error {
	var e struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	msg := http.StatusText(code)
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		msg = e.Error.Code + ": " + e.Error.Message
	}
	if len(msg) > 300 {
		msg = msg[:300] + "…"
	}
	switch {
	case code == http.StatusUnauthorized || code == http.StatusForbidden:
		return gpucost.Errorf(gpucost.EInvalid, "Azure Resource Manager answered %d: %s (the token needs Microsoft.Compute/virtualMachines/read, /deallocate/action and /start/action, e.g. the Virtual Machine Contributor role)", code, msg)
	case code == http.StatusNotFound:
		return gpucost.Errorf(gpucost.ENotFound, "Azure Resource Manager answered %d: %s", code, msg)
	case code == http.StatusTooManyRequests || code >= 500:
		return gpucost.Errorf(gpucost.EUnavailable, "Azure Resource Manager answered %d: %s", code, msg)
	}
	return gpucost.Errorf(gpucost.EInvalid, "Azure Resource Manager answered %d: %s", code, msg)
}
