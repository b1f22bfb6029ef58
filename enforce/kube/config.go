package kube

import (
	"os"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Config is how gpucost enforce and serve reach a cluster, as their flags give it. With Server
// the token and CA come from the flags; without it the cluster is the one kubectl would use
// (docs/architecture.md "Credentials"): the context --context names in --kubeconfig, $KUBECONFIG
// or ~/.kube/config when --kubeconfig or --context is given, else the pod's service account
// when running in a cluster, else the current context of $KUBECONFIG or ~/.kube/config.
type Config struct {
	Server     string   // --kube-server
	TokenFile  string   // --kube-token-file: the bearer token, which wins over Token
	Token      string   // $GPUCOST_KUBE_TOKEN
	CAFile     string   // --kube-ca-file: PEM of the CA that signed the API server's certificate
	Namespaces []string // --kube-namespace
	Selector   string   // --kube-selector

	Kubeconfig string              // --kubeconfig
	Context    string              // --context
	Getenv     func(string) string // KUBECONFIG, HOME, KUBERNETES_SERVICE_HOST and _PORT
	// ServiceAccountDir replaces the mounted ServiceAccountDir (a test's).
	ServiceAccountDir string
	Now               func() time.Time // for exec plugin tokens' expiry; time.Now when nil
}

// Open returns the client c describes. With Server, the token is read from c.TokenFile when
// given and the CA from c.CAFile (HTTPClient); otherwise from a kubeconfig or the service
// account as the Config comment orders them. It returns an EInvalid error naming the flag or
// file to fix, or the sources it tried.
func (c Config) Open() (*Client, error) {
	if c.Server == "" {
		return c.discover()
	}
	token := c.Token
	if c.TokenFile != "" {
		b, err := os.ReadFile(c.TokenFile)
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "--kube-token-file: %w", err)
		}
		token = strings.TrimSpace(string(b))
	}
	if token == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--kube-server needs a bearer token: give --kube-token-file or set GPUCOST_KUBE_TOKEN")
	}
	var pem []byte
	if c.CAFile != "" {
		var err error
		if pem, err = os.ReadFile(c.CAFile); err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "--kube-ca-file: %w", err)
		}
	}
	hc, err := HTTPClient(pem)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--kube-ca-file %s: %w", c.CAFile, err)
	}
	return &Client{Server: c.Server, Token: token, Namespaces: c.Namespaces, Selector: c.Selector, HTTP: hc}, nil
}

// discover finds the cluster without --kube-server.
func (c Config) discover() (*Client, error) {
	explicit := c.Kubeconfig != "" || c.Context != ""
	if !explicit {
		if k, err := c.inCluster(); k != nil || err != nil {
			return k, err
		}
	}
	k, files, err := c.loadKubeconfig()
	if err != nil {
		return nil, err
	}
	if k == nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "no Kubernetes cluster: tried --kubeconfig, $KUBECONFIG, %s and the in-cluster service account "+
			"(KUBERNETES_SERVICE_HOST); pass --kubeconfig and --context, or --kube-server with --kube-token-file", strings.Join(c.kubeconfigPaths(), ", "))
	}
	return c.fromKubeconfig(k, files)
}
