package kube

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// HTTPClient returns the HTTP client a Client talks to the API server with: requests time out
// after a minute and, when caPEM is given, only the CA certificates in it are trusted (a cluster's
// own CA, as in a service account's ca.crt).
func HTTPClient(caPEM []byte) (*http.Client, error) {
	return tlsFiles{ca: caPEM}.httpClient()
}

// tlsFiles are the PEM a kubeconfig gives for TLS: the cluster's CA, and a client certificate
// and key when the user authenticates with one.
type tlsFiles struct {
	ca, cert, key []byte
	insecure      bool // insecure-skip-tls-verify, as the kubeconfig asks
}

func (t tlsFiles) httpClient() (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	cfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: t.insecure}
	if t.ca != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(t.ca) {
			return nil, errors.New("no PEM certificate in it")
		}
		cfg.RootCAs = pool
	}
	if t.cert != nil || t.key != nil {
		pair, err := tls.X509KeyPair(t.cert, t.key)
		if err != nil {
			return nil, fmt.Errorf("client certificate and key: %w", err)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if t.ca != nil || t.cert != nil || t.insecure {
		tr.TLSClientConfig = cfg
	}
	return &http.Client{Transport: tr, Timeout: time.Minute}, nil
}
