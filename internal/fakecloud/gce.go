package fakecloud

import (
	"crypto"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// VM is a Compute Engine or Azure virtual machine a fake holds.
type VM struct {
	Project, Zone, Name string // GCE: the project and zone; Azure: the subscription and location
	ResourceGroup       string // Azure only
	MachineType         string // a GCE machine type or an Azure VM size
	GPUs                int
	Running             bool
	Spot                bool
	Labels              map[string]string
}

// GCE is a fake Compute Engine API (instances.aggregatedList, stop, start) and Google OAuth 2
// token endpoint (/token): the token endpoint takes a service account's JWT-bearer grant,
// checked against Key, and hands out Token, the only token the API accepts.
type GCE struct {
	URL   string
	Token string
	Key   *rsa.PublicKey // the service account's key; assertions it did not sign are refused

	mu    sync.Mutex
	vms   []*VM
	calls []string
}

// NewGCE starts the fake, stopped when t ends.
func NewGCE(t testing.TB, token string, key *rsa.PublicKey, vms []VM) *GCE {
	f := &GCE{Token: token, Key: key}
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
func (f *GCE) Calls() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// VM returns the VM named name.
func (f *GCE) VM(name string) VM {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, v := range f.vms {
		if v.Name == name {
			return *v
		}
	}
	return VM{}
}

func gceError(w http.ResponseWriter, code int, msg string) {
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"code": code, "message": msg}})
}

func (f *GCE) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, r.Method+" "+r.URL.Path)
	if r.URL.Path == "/token" {
		f.token(w, r)
		return
	}
	if r.Header.Get("Authorization") != "Bearer "+f.Token {
		gceError(w, 401, "Request had invalid authentication credentials.")
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && len(parts) == 6 && parts[4] == "aggregated":
		items := map[string]any{}
		for _, v := range f.vms {
			if v.Project == parts[3] {
				zone := "zones/" + v.Zone
				list, _ := items[zone].(map[string]any)
				if list == nil {
					list = map[string]any{"instances": []any{}}
					items[zone] = list
				}
				list["instances"] = append(list["instances"].([]any), v.gce())
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"items": items})
	case r.Method == http.MethodPost && len(parts) == 9 && (parts[8] == "stop" || parts[8] == "start"):
		for _, v := range f.vms {
			if v.Project == parts[3] && v.Zone == parts[5] && v.Name == parts[7] {
				v.Running = parts[8] == "start"
				json.NewEncoder(w).Encode(map[string]any{"kind": "compute#operation", "status": "RUNNING"})
				return
			}
		}
		gceError(w, 404, "The resource was not found")
	default:
		gceError(w, 404, "The resource was not found")
	}
}

func (v *VM) gce() map[string]any {
	status := "TERMINATED"
	if v.Running {
		status = "RUNNING"
	}
	m := map[string]any{"name": v.Name, "zone": "zones/" + v.Zone, "machineType": "zones/" + v.Zone + "/machineTypes/" + v.MachineType,
		"status": status, "labels": v.Labels, "creationTimestamp": "2026-11-01T08:00:00.000-07:00"}
	if v.GPUs > 0 {
		m["guestAccelerators"] = []any{map[string]any{"acceleratorCount": v.GPUs}}
	}
	if v.Spot {
		m["scheduling"] = map[string]any{"provisioningModel": "SPOT"}
	}
	return m
}

// token checks a JWT-bearer grant: the assertion's RS256 signature by Key, and its audience.
func (f *GCE) token(w http.ResponseWriter, r *http.Request) {
	r.ParseForm()
	refuse := func(why string) {
		w.WriteHeader(400)
		fmt.Fprintf(w, `{"error":"invalid_grant","error_description":%q}`, why)
	}
	if r.PostForm.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" {
		refuse("grant_type")
		return
	}
	parts := strings.Split(r.PostForm.Get("assertion"), ".")
	if len(parts) != 3 {
		refuse("not a JWT")
		return
	}
	sig, _ := base64.RawURLEncoding.DecodeString(parts[2])
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if f.Key == nil || rsa.VerifyPKCS1v15(f.Key, crypto.SHA256, sum[:], sig) != nil {
		refuse("Invalid JWT Signature.")
		return
	}
	var claims struct {
		Aud string `json:"aud"`
	}
	b, _ := base64.RawURLEncoding.DecodeString(parts[1])
	if json.Unmarshal(b, &claims) != nil || claims.Aud != "http://"+r.Host+"/token" {
		refuse("Invalid JWT: aud")
		return
	}
	fmt.Fprintf(w, `{"access_token":%q,"expires_in":3599,"token_type":"Bearer"}`, f.Token)
}
