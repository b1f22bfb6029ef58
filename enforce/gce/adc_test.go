package gce

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gpucost/gpucost/internal/gcpcreds"
)

// TestGCEWithADC lists VMs with the token Application Default Credentials got from the
// metadata server, asked once for two pages.
func TestGCEWithADC(t *testing.T) {
	var asked atomic.Int64
	meta := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/computeMetadata/v1/instance/service-accounts/default/token" || r.Header.Get("Metadata-Flavor") != "Google" {
			t.Errorf("metadata request %s, Metadata-Flavor %q", r.URL.Path, r.Header.Get("Metadata-Flavor"))
		}
		asked.Add(1)
		w.Header().Set("Metadata-Flavor", "Google")
		fmt.Fprintf(w, `{"access_token":%q,"expires_in":3599,"token_type":"Bearer"}`, token)
	}))
	defer meta.Close()
	f := &fakeGCE{state: map[string]string{"europe-west4-a/dev-a100": "RUNNING"}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	adc := &gcpcreds.Chain{MetadataHost: strings.TrimPrefix(meta.URL, "http://")}
	c := &Client{Projects: []string{"ml-dev"}, Tokens: adc.Token, BaseURL: srv.URL}
	if rs, err := c.Resources(context.Background()); err != nil || len(rs) == 0 {
		t.Fatalf("Resources() with ADC = %+v, %v", rs, err)
	}
	if n := asked.Load(); n != 1 || len(f.calls) != 2 {
		t.Errorf("%d token requests for %d API requests; want 1 for 2", n, len(f.calls))
	}
}
