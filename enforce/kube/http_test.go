package kube

import (
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestHTTPClientTrustsTheGivenCA(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	c, err := HTTPClient(ca)
	if err != nil {
		t.Fatalf("HTTPClient(the server's certificate) = %v", err)
	}
	if resp, err := c.Get(srv.URL); err != nil {
		t.Errorf("GET with the server's CA trusted: %v", err)
	} else {
		resp.Body.Close()
	}
	plain, err := HTTPClient(nil)
	if err != nil {
		t.Fatalf("HTTPClient(nil) = %v", err)
	}
	if _, err := plain.Get(srv.URL); err == nil {
		t.Errorf("GET without the server's CA succeeded; want a certificate error")
	}
	if _, err := HTTPClient([]byte("not a certificate")); err == nil {
		t.Errorf("HTTPClient(no PEM) succeeded; want an error")
	}
}
