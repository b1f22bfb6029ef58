package kube

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/fakecloud"
)

// writeFile writes text to name under dir and returns its path.
func writeFile(t *testing.T, dir, name, text string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, name)
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// clientCert makes a CA and a client certificate with common name cn signed by it.
func clientCert(t *testing.T, cn string) (pool *x509.CertPool, certPEM, keyPEM []byte) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kube-ca"}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: cn}, NotBefore: time.Now().Add(-time.Hour),
		NotAfter: time.Now().Add(time.Hour), ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, _ := x509.MarshalECPrivateKey(key)
	pool = x509.NewCertPool()
	pool.AddCert(ca)
	return pool, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
}

// TestKubeconfig lists Deployments through the cluster each kubeconfig context names, over
// TLS with the cluster's CA, and checks how each authenticated.
func TestKubeconfig(t *testing.T) {
	pool, certPEM, keyPEM := clientCert(t, "gpucost-admin")
	k := fakecloud.NewKubeTLS(t, kubeToken, []fakecloud.Deployment{{Namespace: "ml", Name: "vllm", Replicas: 1, GPUsPerPod: 1, Created: t0}}, pool)
	k.ClientCN = "gpucost-admin"
	dir := t.TempDir()
	writeFile(t, dir, "ca.crt", string(k.CAPEM), 0o600)
	writeFile(t, dir, "token", kubeToken+"\n", 0o600)
	plugin := writeFile(t, dir, "plugin.sh", fmt.Sprintf(`#!/bin/sh
case "$KUBERNETES_EXEC_INFO" in *'"interactive":false'*) ;; *) echo "no exec info" >&2; exit 1;; esac
[ "$CLUSTER" = prod ] || exit 1
echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"%s","expirationTimestamp":"2099-01-01T00:00:00Z"}}'
`, kubeToken), 0o700)
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	cfg := writeFile(t, dir, "config", fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: token
clusters:
- name: prod
  cluster:
    server: %[1]s
    certificate-authority: ca.crt
- name: prod-data
  cluster:
    server: %[1]s
    certificate-authority-data: %[2]s
contexts:
- {name: token, context: {cluster: prod, user: token-user, namespace: ml}}
- {name: token-file, context: {cluster: prod-data, user: file-user}}
- {name: cert, context: {cluster: prod-data, user: cert-user}}
- {name: exec, context: {cluster: prod, user: exec-user}}
- {name: gcp, context: {cluster: prod, user: gcp-user}}
- {name: nobody, context: {cluster: prod, user: none}}
users:
- {name: token-user, user: {token: %[3]s}}
- {name: file-user, user: {tokenFile: token}}
- {name: cert-user, user: {client-certificate-data: %[4]s, client-key-data: %[5]s}}
- name: exec-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1
      command: %[6]s
      env: [{name: CLUSTER, value: prod}]
- {name: gcp-user, user: {auth-provider: {name: gcp}}}
`, k.URL, b64(k.CAPEM), kubeToken, b64(certPEM), b64(keyPEM), plugin), 0o600)

	home := t.TempDir()
	b, _ := os.ReadFile(cfg)
	writeFile(t, home, ".kube/config", strings.ReplaceAll(string(b), "certificate-authority: ca.crt", "certificate-authority: "+filepath.Join(dir, "ca.crt")), 0o600)
	for _, c := range []struct {
		name    string
		cfg     Config
		auth    string
		cn      string
		wantErr string
	}{
		{"current context", Config{Getenv: envOf("KUBECONFIG", cfg)}, "Bearer " + kubeToken, "", ""},
		{"~/.kube/config", Config{Getenv: envOf("HOME", home)}, "Bearer " + kubeToken, "", ""},
		{"token file", Config{Kubeconfig: cfg, Context: "token-file"}, "Bearer " + kubeToken, "", ""},
		{"client certificate", Config{Kubeconfig: cfg, Context: "cert"}, "", "gpucost-admin", ""},
		{"exec plugin", Config{Kubeconfig: cfg, Context: "exec"}, "Bearer " + kubeToken, "", ""},
		{"KUBECONFIG list", Config{Getenv: envOf("KUBECONFIG", filepath.Join(dir, "none")+string(os.PathListSeparator)+cfg), Context: "cert"}, "", "gpucost-admin", ""},
		{"unknown context", Config{Kubeconfig: cfg, Context: "staging"}, "", "", `has no context "staging"`},
		{"auth-provider", Config{Kubeconfig: cfg, Context: "gcp"}, "", "", "gke-gcloud-auth-plugin"},
		{"no credentials", Config{Kubeconfig: cfg, Context: "nobody"}, "", "", "has no token"},
		{"missing --kubeconfig", Config{Kubeconfig: filepath.Join(dir, "none")}, "", "", "kubeconfig: open"},
		{"nothing", Config{Getenv: envOf("HOME", t.TempDir())}, "", "", "pass --kubeconfig and --context"},
	} {
		client, err := c.cfg.Open()
		if c.wantErr != "" {
			if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("%s: Open() = %v; want an %s error containing %q", c.name, err, gpucost.EInvalid, c.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: Open() = %v", c.name, err)
			continue
		}
		n := len(k.Calls())
		rs, err := client.Resources(context.Background())
		if err != nil || len(rs) != 1 || rs[0].ID != "ml/vllm" {
			t.Errorf("%s: Resources() = %+v, %v; want ml/vllm", c.name, rs, err)
			continue
		}
		if call := k.Calls()[n]; call.Authorization != c.auth || call.ClientCN != c.cn {
			t.Errorf("%s: request Authorization %q, client certificate %q; want %q, %q", c.name, call.Authorization, call.ClientCN, c.auth, c.cn)
		}
	}
}

// TestInCluster reads the pod's service account, and checks that it yields to an explicit
// --kubeconfig and that the token file is read again for each request.
func TestInCluster(t *testing.T) {
	k := fakecloud.NewKubeTLS(t, kubeToken, []fakecloud.Deployment{{Namespace: "ml", Name: "vllm", Replicas: 1, GPUsPerPod: 1, Created: t0}}, nil)
	sa := t.TempDir()
	writeFile(t, sa, "ca.crt", string(k.CAPEM), 0o600)
	writeFile(t, sa, "token", "old-token", 0o600)
	writeFile(t, sa, "namespace", "gpucost", 0o600)
	u, _ := url.Parse(k.URL)
	env := envOf("KUBERNETES_SERVICE_HOST", u.Hostname(), "KUBERNETES_SERVICE_PORT", u.Port())
	client, err := Config{Getenv: env, ServiceAccountDir: sa}.Open()
	if err != nil {
		t.Fatalf("Open() in a pod = %v", err)
	}
	if client.Server != "https://"+u.Host {
		t.Errorf("Open() in a pod: server %s, want https://%s", client.Server, u.Host)
	}
	writeFile(t, sa, "token", kubeToken, 0o600) // the kubelet rotated it
	if rs, err := client.Resources(context.Background()); err != nil || len(rs) != 1 {
		t.Fatalf("Resources() with the rotated token = %+v, %v", rs, err)
	}
	if got := k.Calls()[0].Authorization; got != "Bearer "+kubeToken {
		t.Errorf("in-cluster Authorization = %q, want the token file's current token", got)
	}
	_, err = Config{Getenv: env, ServiceAccountDir: sa, Kubeconfig: filepath.Join(sa, "none")}.Open()
	if err == nil || !strings.Contains(err.Error(), "kubeconfig") {
		t.Errorf("Open(--kubeconfig) in a pod = %v; want the kubeconfig's error, not the service account", err)
	}
	if _, err := (Config{Getenv: env, ServiceAccountDir: t.TempDir()}).Open(); gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "automountServiceAccountToken") {
		t.Errorf("Open() in a pod without a mounted account = %v", err)
	}
}

func envOf(kv ...string) func(string) string {
	return func(k string) string {
		for i := 0; i < len(kv); i += 2 {
			if kv[i] == k {
				return kv[i+1]
			}
		}
		return ""
	}
}
