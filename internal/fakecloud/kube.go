package fakecloud

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Deployment is a Kubernetes Deployment the fake API server holds, or a StatefulSet (such as a
// Kubeflow Notebook's) when StatefulSet is set.
type Deployment struct {
	StatefulSet     bool
	Namespace, Name string
	Replicas        int
	GPUsPerPod      int
	Labels          map[string]string
	Annotations     map[string]string
	Created         time.Time
}

// KubeCall is one request the fake API server received.
type KubeCall struct {
	Method, Path, Query, ContentType, Authorization string
	Body                                            map[string]any
	ClientCN                                        string // the verified client certificate's common name, over TLS
}

// Kube is a fake Kubernetes API server: it lists Deployments (all namespaces or one, with a
// label selector of key=value terms and continue tokens), patches a Deployment's scale
// subresource and its metadata with JSON merge patches, and requires a bearer token.
type Kube struct {
	URL   string
	Token string
	CAPEM []byte // the server certificate's PEM, for a client to trust (NewKubeTLS)
	// ClientCN, when set, authenticates a request with a client certificate of that common name
	// signed by the ClientCAs given to NewKubeTLS, instead of the token.
	ClientCN string

	mu    sync.Mutex
	deps  []*Deployment
	calls []KubeCall
}

// NewKube starts a fake API server that accepts token, stopped when t ends.
func NewKube(t testing.TB, token string, deps []Deployment) *Kube {
	k := newKube(token, deps)
	srv := httptest.NewServer(http.HandlerFunc(k.serve))
	t.Cleanup(srv.Close)
	k.URL = srv.URL
	return k
}

// NewKubeTLS starts the fake API server over TLS, as real ones are: CAPEM is its certificate,
// and a client certificate signed by clientCAs (when not nil) is verified and recorded.
func NewKubeTLS(t testing.TB, token string, deps []Deployment, clientCAs *x509.CertPool) *Kube {
	k := newKube(token, deps)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(k.serve))
	if clientCAs != nil {
		srv.TLS = &tls.Config{ClientCAs: clientCAs, ClientAuth: tls.VerifyClientCertIfGiven}
	}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	k.URL = srv.URL
	k.CAPEM = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return k
}

func newKube(token string, deps []Deployment) *Kube {
	k := &Kube{Token: token}
	for i := range deps {
		d := deps[i]
		if d.Annotations == nil {
			d.Annotations = map[string]string{}
		}
		k.deps = append(k.deps, &d)
	}
	return k
}

// Calls returns the requests received so far.
func (k *Kube) Calls() []KubeCall {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.calls)
}

// Deployment returns namespace/name as it stands now.
func (k *Kube) Deployment(ns, name string) Deployment {
	k.mu.Lock()
	defer k.mu.Unlock()
	if d := k.find(ns, name); d != nil {
		return *d
	}
	return Deployment{}
}

func (k *Kube) find(ns, name string) *Deployment { return k.findKind("deployments", ns, name) }

// findKind finds a Deployment (resource "deployments") or a StatefulSet ("statefulsets").
func (k *Kube) findKind(resource, ns, name string) *Deployment {
	for _, d := range k.deps {
		if d.Namespace == ns && d.Name == name && d.resource() == resource {
			return d
		}
	}
	return nil
}

func status(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": msg, "reason": reason, "code": code})
}

func (k *Kube) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	var body map[string]any
	json.Unmarshal(raw, &body)
	k.mu.Lock()
	defer k.mu.Unlock()
	cn := ""
	if r.TLS != nil && len(r.TLS.VerifiedChains) > 0 {
		cn = r.TLS.VerifiedChains[0][0].Subject.CommonName
	}
	k.calls = append(k.calls, KubeCall{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, ContentType: r.Header.Get("Content-Type"),
		Authorization: r.Header.Get("Authorization"), Body: body, ClientCN: cn})
	if r.Header.Get("Authorization") != "Bearer "+k.Token && (k.ClientCN == "" || cn != k.ClientCN) {
		status(w, 401, "Unauthorized", "Unauthorized")
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && len(parts) == 4 && workload(parts[3]):
		k.list(w, r, parts[3], "")
	case r.Method == http.MethodGet && len(parts) == 6 && workload(parts[5]):
		k.list(w, r, parts[5], parts[4])
	case r.Method == http.MethodPatch && len(parts) >= 7 && workload(parts[5]):
		k.patch(w, r, parts, body)
	default:
		status(w, 404, "NotFound", "the server could not find the requested resource")
	}
}

// workload reports whether a path's resource is one the fake holds.
func workload(resource string) bool { return resource == "deployments" || resource == "statefulsets" }

func (d *Deployment) resource() string {
	if d.StatefulSet {
		return "statefulsets"
	}
	return "deployments"
}

// list answers a DeploymentList or StatefulSetList one item per page, so that continue tokens
// are exercised.
func (k *Kube) list(w http.ResponseWriter, r *http.Request, resource, ns string) {
	var match []*Deployment
	for _, d := range k.deps {
		if d.resource() == resource && (ns == "" || d.Namespace == ns) && selects(r.URL.Query().Get("labelSelector"), d.Labels) {
			match = append(match, d)
		}
	}
	start, _ := strconv.Atoi(r.URL.Query().Get("continue"))
	end := min(start+1, len(match))
	meta := map[string]any{"resourceVersion": "100"}
	if end < len(match) {
		meta["continue"] = strconv.Itoa(end)
	}
	items := []any{}
	for _, d := range match[start:end] {
		items = append(items, d.json())
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"kind": "DeploymentList", "apiVersion": "apps/v1", "metadata": meta, "items": items})
}

func selects(sel string, labels map[string]string) bool {
	if sel == "" {
		return true
	}
	for _, term := range strings.Split(sel, ",") {
		k, v, _ := strings.Cut(term, "=")
		if labels[k] != v {
			return false
		}
	}
	return true
}

func (d *Deployment) json() map[string]any {
	res := map[string]any{}
	if d.GPUsPerPod > 0 {
		res = map[string]any{"limits": map[string]any{"nvidia.com/gpu": strconv.Itoa(d.GPUsPerPod), "cpu": "8"}}
	}
	return map[string]any{
		"metadata": map[string]any{"name": d.Name, "namespace": d.Namespace, "labels": d.Labels, "annotations": d.Annotations,
			"creationTimestamp": d.Created.UTC().Format(time.RFC3339)},
		"spec": map[string]any{"replicas": d.Replicas, "template": map[string]any{"spec": map[string]any{
			"containers": []any{map[string]any{"name": "main", "image": "vllm/vllm-openai", "resources": res}}}}},
		"status": map[string]any{"replicas": d.Replicas},
	}
}

func (k *Kube) patch(w http.ResponseWriter, r *http.Request, parts []string, body map[string]any) {
	if ct := r.Header.Get("Content-Type"); ct != "application/merge-patch+json" {
		status(w, 415, "UnsupportedMediaType", "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json")
		return
	}
	d := k.findKind(parts[5], parts[4], parts[6])
	if d == nil {
		status(w, 404, "NotFound", parts[5]+`.apps "`+parts[6]+`" not found`)
		return
	}
	if len(parts) == 8 && parts[7] == "scale" {
		spec, _ := body["spec"].(map[string]any)
		n, ok := spec["replicas"].(float64)
		if !ok {
			status(w, 422, "Invalid", "spec.replicas: Required value")
			return
		}
		d.Replicas = int(n)
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"kind": "Scale", "apiVersion": "autoscaling/v1", "spec": map[string]any{"replicas": d.Replicas}})
		return
	}
	meta, _ := body["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	for key, v := range ann {
		s, _ := v.(string)
		d.Annotations[key] = s
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(d.json())
}

// StatefulSet returns the StatefulSet namespace/name as it stands now.
func (k *Kube) StatefulSet(ns, name string) Deployment {
	k.mu.Lock()
	defer k.mu.Unlock()
	if d := k.findKind("statefulsets", ns, name); d != nil {
		return *d
	}
	return Deployment{}
}
