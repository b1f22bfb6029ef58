package kube

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net/http"
	"time"
)

// HTTPClient returns the HTTP client a Client talks to the API server with: requests time out
// after a minute and, when caPEM is given, only the CA certificates in it are trusted (a cluster's
// own CA, as in a service account's ca.crt).
func HTTPClient(caPEM []byte) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if caPEM != nil {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(caPEM) {
			return nil, errors.New("no PEM certificate in it")
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	return &http.Client{Transport: tr, Timeout: time.Minute}, nil
}
