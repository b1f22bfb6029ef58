package azure

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/gpucost/gpucost/internal/azurecreds"
)

// TestAzureWithManagedIdentity lists VMs with the managed identity's token from the instance
// metadata service.
func TestAzureWithManagedIdentity(t *testing.T) {
	var asked atomic.Int64
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/metadata/identity/oauth2/token" || r.Header.Get("Metadata") != "true" || r.URL.Query().Get("resource") != azurecreds.Resource {
			t.Errorf("IMDS request %s, Metadata %q", r.URL, r.Header.Get("Metadata"))
		}
		asked.Add(1)
		fmt.Fprintf(w, `{"access_token":%q,"expires_on":"4102444800","token_type":"Bearer"}`, token)
	}))
	defer imds.Close()
	f := &fakeARM{power: "running"}
	srv := httptest.NewServer(f)
	defer srv.Close()
	f.url = srv.URL
	chain := &azurecreds.Chain{IMDSEndpoint: imds.URL}
	c := &Client{Subscriptions: []string{"sub-1"}, Tokens: chain.Token, BaseURL: srv.URL}
	if rs, err := c.Resources(context.Background()); err != nil || len(rs) == 0 {
		t.Fatalf("Resources() with a managed identity = %+v, %v", rs, err)
	}
	if n := asked.Load(); n != 1 || len(f.calls) < 2 {
		t.Errorf("%d token requests for %d API requests, want 1 for all", n, len(f.calls))
	}
}
