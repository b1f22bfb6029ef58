package kube

import (
	"os"
	"strings"

	"github.com/gpucost/gpucost"
)

// Config is how gpucost enforce and serve reach a cluster, as their flags give it.
type Config struct {
	Server     string   // --kube-server
	TokenFile  string   // --kube-token-file: the bearer token, which wins over Token
	Token      string   // $GPUCOST_KUBE_TOKEN
	CAFile     string   // --kube-ca-file: PEM of the CA that signed the API server's certificate
	Namespaces []string // --kube-namespace
	Selector   string   // --kube-selector
}

// Open returns the client c describes, the token read from c.TokenFile when given and the CA
// from c.CAFile (HTTPClient). It returns an EInvalid error naming the flag for a file it cannot
// read, a bad CA, or no token.
func (c Config) Open() (*Client, error) {
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
