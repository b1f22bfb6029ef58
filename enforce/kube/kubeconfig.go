package kube

import (
	"bytes"
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gpucost/gpucost"
	"go.yaml.in/yaml/v3"
)

// ServiceAccountDir is where Kubernetes mounts a pod's service account token, CA and namespace.
const ServiceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount"

// kubeconfig is the part of a kubeconfig file that is read.
type kubeconfig struct {
	CurrentContext string `yaml:"current-context"`
	Clusters       []struct {
		Name    string      `yaml:"name"`
		Cluster clusterInfo `yaml:"cluster"`
	} `yaml:"clusters"`
	Users []struct {
		Name string   `yaml:"name"`
		User authInfo `yaml:"user"`
	} `yaml:"users"`
	Contexts []struct {
		Name    string `yaml:"name"`
		Context struct {
			Cluster string `yaml:"cluster"`
			User    string `yaml:"user"`
		} `yaml:"context"`
	} `yaml:"contexts"`
	dir string // the file's directory, against which relative paths are read
}

// clusterInfo is a kubeconfig cluster.
type clusterInfo struct {
	Server   string `yaml:"server"`
	CA       string `yaml:"certificate-authority"`
	CAData   string `yaml:"certificate-authority-data"`
	Insecure bool   `yaml:"insecure-skip-tls-verify"`
}

// authInfo is a kubeconfig user.
type authInfo struct {
	Token        string      `yaml:"token"`
	TokenFile    string      `yaml:"tokenFile"`
	Cert         string      `yaml:"client-certificate"`
	CertData     string      `yaml:"client-certificate-data"`
	Key          string      `yaml:"client-key"`
	KeyData      string      `yaml:"client-key-data"`
	Exec         *execConfig `yaml:"exec"`
	AuthProvider *struct {
		Name string `yaml:"name"`
	} `yaml:"auth-provider"`
	Username string `yaml:"username"`
}

// execConfig is a client-go credential plugin: a command that prints an ExecCredential.
type execConfig struct {
	APIVersion string   `yaml:"apiVersion"`
	Command    string   `yaml:"command"`
	Args       []string `yaml:"args"`
	Env        []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
}

// kubeconfigPaths are the files to read: --kubeconfig, else each of $KUBECONFIG (a list),
// else ~/.kube/config.
func (c Config) kubeconfigPaths() []string {
	if c.Kubeconfig != "" {
		return []string{c.Kubeconfig}
	}
	if v := c.getenv("KUBECONFIG"); v != "" {
		return slices.DeleteFunc(filepath.SplitList(v), func(s string) bool { return s == "" })
	}
	if home := c.getenv("HOME"); home != "" {
		return []string{filepath.Join(home, ".kube", "config")}
	}
	return nil
}

// loadKubeconfig reads and merges the files, as kubectl does: the first file to name a cluster,
// user or context or to set current-context wins. Missing files of $KUBECONFIG are skipped; a
// missing --kubeconfig is an error.
func (c Config) loadKubeconfig() (*kubeconfig, []string, error) {
	var merged *kubeconfig
	var read []string
	for _, p := range c.kubeconfigPaths() {
		b, err := os.ReadFile(p)
		if errors.Is(err, os.ErrNotExist) && c.Kubeconfig == "" {
			continue
		}
		if err != nil {
			return nil, nil, gpucost.Errorf(gpucost.EInvalid, "kubeconfig: %w", err)
		}
		var k kubeconfig
		if err := yaml.Unmarshal(b, &k); err != nil {
			return nil, nil, gpucost.Errorf(gpucost.EInvalid, "kubeconfig %s: %w", p, err)
		}
		k.dir = filepath.Dir(p)
		read = append(read, p)
		if merged == nil {
			merged = &k
			continue
		}
		merged.CurrentContext = cmp.Or(merged.CurrentContext, k.CurrentContext)
		merged.Clusters = append(merged.Clusters, k.Clusters...)
		merged.Users = append(merged.Users, k.Users...)
		merged.Contexts = append(merged.Contexts, k.Contexts...)
	}
	return merged, read, nil
}

// fromKubeconfig builds the client of the context --context names, or of current-context.
func (c Config) fromKubeconfig(k *kubeconfig, files []string) (*Client, error) {
	name := cmp.Or(c.Context, k.CurrentContext)
	where := strings.Join(files, ", ")
	if name == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "kubeconfig %s sets no current-context; pass --context (kubectl config get-contexts lists them)", where)
	}
	ci := -1
	for i := range k.Contexts {
		if k.Contexts[i].Name == name {
			ci = i
			break
		}
	}
	if ci < 0 {
		return nil, gpucost.Errorf(gpucost.EInvalid, "kubeconfig %s has no context %q; kubectl config get-contexts lists them", where, name)
	}
	ctx := k.Contexts[ci].Context
	var cluster *clusterInfo
	for i := range k.Clusters {
		if k.Clusters[i].Name == ctx.Cluster {
			cluster = &k.Clusters[i].Cluster
			break
		}
	}
	if cluster == nil || cluster.Server == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "kubeconfig context %q names cluster %q, which has no server in %s", name, ctx.Cluster, where)
	}
	var user authInfo
	for _, u := range k.Users {
		if u.Name == ctx.User {
			user = u.User
			break
		}
	}
	t := tlsFiles{insecure: cluster.Insecure}
	var err error
	if t.ca, err = pemOf(cluster.CAData, k.abs(cluster.CA)); err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "kubeconfig cluster %q certificate authority: %w", ctx.Cluster, err)
	}
	if t.cert, err = pemOf(user.CertData, k.abs(user.Cert)); err == nil {
		t.key, err = pemOf(user.KeyData, k.abs(user.Key))
	}
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "kubeconfig user %q client certificate: %w", ctx.User, err)
	}
	tokens, err := c.userTokens(name, user, k.dir)
	if err != nil {
		return nil, err
	}
	if tokens == nil && t.cert == nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "kubeconfig user %q of context %q has no token, token file, client certificate or exec plugin gpucost can use", ctx.User, name)
	}
	return c.client(cluster.Server, t, tokens)
}

func (k *kubeconfig) abs(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(k.dir, p)
}

// pemOf returns base64 data decoded, else the file's contents, else nil.
func pemOf(data, file string) ([]byte, error) {
	if data != "" {
		return base64.StdEncoding.DecodeString(data)
	}
	if file != "" {
		return os.ReadFile(file)
	}
	return nil, nil
}

// userTokens returns how the user's bearer token is got, nil for none.
func (c Config) userTokens(contextName string, u authInfo, dir string) (func(context.Context) (string, error), error) {
	switch {
	case u.AuthProvider != nil:
		return nil, gpucost.Errorf(gpucost.EInvalid, "kubeconfig context %q uses the %s auth-provider, which kubectl no longer supports; switch to its exec plugin "+
			"(gke-gcloud-auth-plugin, kubelogin, aws eks get-token)", contextName, u.AuthProvider.Name)
	case u.Token != "":
		return func(context.Context) (string, error) { return u.Token, nil }, nil
	case u.TokenFile != "":
		return fileTokens((&kubeconfig{dir: dir}).abs(u.TokenFile)), nil
	case u.Exec != nil:
		return (&execTokens{cfg: *u.Exec, now: c.now}).get, nil
	}
	return nil, nil
}

// fileTokens reads the token file on each request, as a projected service account token
// is rotated in place.
func fileTokens(path string) func(context.Context) (string, error) {
	return func(context.Context) (string, error) {
		b, err := os.ReadFile(path)
		if err != nil {
			return "", gpucost.Errorf(gpucost.EInvalid, "Kubernetes token file: %w", err)
		}
		return strings.TrimSpace(string(b)), nil
	}
}

// execTokens runs a credential plugin and keeps its token until its expirationTimestamp.
type execTokens struct {
	cfg     execConfig
	now     func() time.Time
	mu      sync.Mutex
	token   string
	expires time.Time
}

func (e *execTokens) get(ctx context.Context) (string, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.token != "" && (e.expires.IsZero() || e.now().Add(time.Minute).Before(e.expires)) {
		return e.token, nil
	}
	api := cmp.Or(e.cfg.APIVersion, "client.authentication.k8s.io/v1")
	cmd := exec.CommandContext(ctx, e.cfg.Command, e.cfg.Args...)
	cmd.Env = os.Environ()
	for _, kv := range e.cfg.Env {
		cmd.Env = append(cmd.Env, kv.Name+"="+kv.Value)
	}
	info, _ := json.Marshal(map[string]any{"apiVersion": api, "kind": "ExecCredential", "spec": map[string]any{"interactive": false}})
	cmd.Env = append(cmd.Env, "KUBERNETES_EXEC_INFO="+string(info))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", gpucost.Errorf(gpucost.EInvalid, "kubeconfig exec plugin %s: %v: %s", e.cfg.Command, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var cred struct {
		Status struct {
			Token               string    `json:"token"`
			ExpirationTimestamp time.Time `json:"expirationTimestamp"`
		} `json:"status"`
	}
	if err := json.Unmarshal(out, &cred); err != nil || cred.Status.Token == "" {
		return "", gpucost.Errorf(gpucost.EInvalid, "kubeconfig exec plugin %s printed no ExecCredential with a status.token", e.cfg.Command)
	}
	e.token, e.expires = cred.Status.Token, cred.Status.ExpirationTimestamp
	return e.token, nil
}

// inCluster builds the client of the pod's service account: the API server from
// KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT, the token and CA from the mounted
// ServiceAccountDir. It returns nil, nil outside a pod.
func (c Config) inCluster() (*Client, error) {
	host, port := c.getenv("KUBERNETES_SERVICE_HOST"), c.getenv("KUBERNETES_SERVICE_PORT")
	dir := cmp.Or(c.ServiceAccountDir, ServiceAccountDir)
	if host == "" || port == "" {
		return nil, nil
	}
	ca, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "in-cluster service account: %w; is automountServiceAccountToken off?", err)
	}
	return c.client("https://"+net.JoinHostPort(host, port), tlsFiles{ca: ca}, fileTokens(filepath.Join(dir, "token")))
}

// client makes the Client, its first token fetched now so that a bad source fails at start.
func (c Config) client(server string, t tlsFiles, tokens func(context.Context) (string, error)) (*Client, error) {
	hc, err := t.httpClient()
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "Kubernetes TLS for %s: %w", server, err)
	}
	k := &Client{Server: server, Namespaces: c.Namespaces, Selector: c.Selector, HTTP: hc, Tokens: tokens}
	if tokens != nil {
		if k.Token, err = tokens(context.Background()); err != nil {
			return nil, err
		}
	}
	return k, nil
}

func (c Config) getenv(k string) string {
	if c.Getenv == nil {
		return ""
	}
	return c.Getenv(k)
}

func (c Config) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}
