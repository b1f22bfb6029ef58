package fakecloud

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// ARM is a fake Azure Resource Manager (virtualMachines list with statusOnly, deallocate,
// start) and Entra ID token endpoint (/TENANT/oauth2/v2.0/token): a client credentials grant
// of ClientID and ClientSecret for the ARM scope gets Token, the only token ARM accepts.
type ARM struct {
	URL                    string
	Token, Tenant          string
	ClientID, ClientSecret string

	mu    sync.Mutex
	vms   []*VM
	calls []string
}

// NewARM starts the fake, stopped when t ends.
func NewARM(t testing.TB, token, tenant, clientID, secret string, vms []VM) *ARM {
	f := &ARM{Token: token, Tenant: tenant, ClientID: clientID, ClientSecret: secret}
	for i := range vms {
		v := vms[i]
		f.vms = append(f.vms, &v)
	}
	srv := httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(srv.Close)
	f.URL = srv.URL
	return f
}

// Calls returns the requests received so far, as "METHOD PATH".
func (f *ARM) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

func (v *VM) armID() string {
	return "/subscriptions/" + v.Project + "/resourceGroups/" + v.ResourceGroup + "/providers/Microsoft.Compute/virtualMachines/" + v.Name
}

func armError(w http.ResponseWriter, status int, code, msg string) {
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": msg}})
}

func (f *ARM) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	if r.URL.Path == "/"+f.Tenant+"/oauth2/v2.0/token" {
		r.ParseForm()
		form := r.PostForm
		if form.Get("grant_type") != "client_credentials" || form.Get("scope") != "https://management.azure.com/.default" ||
			form.Get("client_id") != f.ClientID || form.Get("client_secret") != f.ClientSecret {
			w.WriteHeader(401)
			fmt.Fprint(w, `{"error":"invalid_client","error_description":"AADSTS7000215: Invalid client secret provided."}`)
			return
		}
		fmt.Fprintf(w, `{"token_type":"Bearer","expires_in":3599,"access_token":%q}`, f.Token)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+f.Token {
		armError(w, 401, "InvalidAuthenticationToken", "The access token is invalid.")
		return
	}
	switch {
	case r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/providers/Microsoft.Compute/virtualMachines") && r.URL.Query().Get("statusOnly") == "true":
		sub := strings.Split(strings.Trim(r.URL.Path, "/"), "/")[1]
		value := []any{}
		for _, v := range f.vms {
			if v.Project == sub {
				value = append(value, v.arm())
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"value": value})
	case r.Method == http.MethodPost:
		for _, v := range f.vms {
			if r.URL.Path == v.armID()+"/deallocate" || r.URL.Path == v.armID()+"/start" {
				v.Running = strings.HasSuffix(r.URL.Path, "/start")
				w.WriteHeader(202)
				return
			}
		}
		armError(w, 404, "ResourceNotFound", "The Resource was not found.")
	default:
		armError(w, 404, "ResourceNotFound", "The Resource was not found.")
	}
}

func (v *VM) arm() map[string]any {
	power := "PowerState/deallocated"
	if v.Running {
		power = "PowerState/running"
	}
	priority := "Regular"
	if v.Spot {
		priority = "Spot"
	}
	return map[string]any{"id": v.armID(), "name": v.Name, "location": v.Zone, "tags": v.Labels,
		"properties": map[string]any{"hardwareProfile": map[string]any{"vmSize": v.MachineType}, "priority": priority, "timeCreated": "2026-11-02T09:30:00Z",
			"instanceView": map[string]any{"statuses": []any{map[string]any{"code": "ProvisioningState/succeeded"}, map[string]any{"code": power}}}}}
}
