package refresh

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
)

// TestFetchSpotAdvisor: the advisor's file from a mirror's /spot-advisor-data.json; a mirror
// that answers 404 is unavailable.
func TestFetchSpotAdvisor(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/spot-advisor-data.json" {
			http.NotFound(w, r)
			return
		}
		http.ServeFile(w, r, "../../catalog/testdata/spot-advisor-data.json")
	}))
	defer srv.Close()
	adv, err := FetchSpotAdvisor(context.Background(), srv.URL+"/")
	if err != nil || adv.Pools() == 0 {
		t.Fatalf("FetchSpotAdvisor(mirror) = %v, %v; want the fixture's pools", adv, err)
	}
	_, err = FetchSpotAdvisor(context.Background(), srv.URL+"/missing")
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), "404") {
		t.Errorf("FetchSpotAdvisor(404) = %v; want an unavailable error naming the 404", err)
	}
}

// TestAWSCredentialsNone: with no AWS credentials anywhere, a mirror is asked unsigned and
// AWS's own endpoint is refused, saying which permissions the credentials need.
func TestAWSCredentialsNone(t *testing.T) {
	none := func(k string) string {
		return map[string]string{"AWS_EC2_METADATA_DISABLED": "true", "HOME": t.TempDir()}[k]
	}
	creds, err := AWSCredentials(none, "", true)
	if _, anon := creds.(aws.AnonymousCredentials); err != nil || !anon {
		t.Errorf("AWSCredentials(none, a mirror) = %T, %v; want anonymous credentials", creds, err)
	}
	if _, err := AWSCredentials(none, "", false); err == nil || !strings.Contains(err.Error(), "pricing:GetProducts") {
		t.Errorf("AWSCredentials(none, AWS) = %v; want an error naming pricing:GetProducts", err)
	}
}
