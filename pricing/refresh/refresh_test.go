package refresh

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/pricing"
)

var now = time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)

func TestParseProviders(t *testing.T) {
	for _, tc := range []struct {
		in   []string
		want []string
		err  string
	}{
		{[]string{"GCP", " aws", "gcp"}, []string{"gcp", "aws"}, ""},
		{[]string{"azure"}, []string{"azure"}, ""},
		{nil, nil, "--provider: say aws, azure or gcp"},
		{[]string{"aws", "ibm"}, nil, `--provider "ibm": use aws, azure or gcp`},
	} {
		got, err := ParseProviders(tc.in)
		if msg := errText(err); !slices.Equal(got, tc.want) || msg != tc.err {
			t.Errorf("ParseProviders(%q) = %q, %q; want %q, %q", tc.in, got, msg, tc.want, tc.err)
		}
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func bundled(t *testing.T) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Bundled()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestFetchOffline(t *testing.T) {
	down := httptest.NewServer(http.NotFoundHandler())
	down.Close()
	c := bundled(t)
	cfg := Config{BaseURL: down.URL, Now: func() time.Time { return now }}
	_, err := Fetch(context.Background(), c, []string{"gcp"}, cfg)
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.Contains(err.Error(), "; nothing was stored: the bundled gcp catalog of 2026-11-22 (10 days old) stays in use") {
		t.Errorf("Fetch(gcp, offline) = %v, want EUnavailable naming the bundled catalog", err)
	}
	_, err = Fetch(context.Background(), c, []string{"azure"}, cfg)
	if gpucost.ErrorCode(err) != gpucost.EUnavailable || !strings.HasSuffix(err.Error(), "; nothing was stored: the bundled azure catalog of 2026-11-27 (5 days old) stays in use") {
		t.Errorf("Fetch(azure, offline) = %v, want EUnavailable naming the bundled Azure prices", err)
	}
}

func TestFetchCredentials(t *testing.T) {
	c := bundled(t)
	_, err := Fetch(context.Background(), c, []string{"gcp"}, Config{Now: func() time.Time { return now }})
	if gpucost.ErrorCode(err) != gpucost.EInvalid || !strings.Contains(err.Error(), "set GPUCOST_GCP_API_KEY") {
		t.Errorf("Fetch(gcp, no key) = %v, want EInvalid asking for the key", err)
	}
	refused := gpucost.Errorf(gpucost.EInvalid, "no AWS credentials")
	asked := 0
	cfg := Config{Now: func() time.Time { return now }, AWSCredentials: func() (aws.CredentialsProvider, error) { asked++; return nil, refused }}
	if _, err := Fetch(context.Background(), c, []string{"aws"}, cfg); !errors.Is(err, refused) || asked != 1 {
		t.Errorf("Fetch(aws, no credentials) = %v after %d asks, want the credentials' error", err, asked)
	}
}

func TestFetchAzure(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"Items":[],"NextPageLink":null,"Count":0}`))
	}))
	defer srv.Close()
	asked := 0
	cfg := Config{BaseURL: srv.URL, Regions: []string{"eastus"}, Now: func() time.Time { return now },
		AWSCredentials: func() (aws.CredentialsProvider, error) { asked++; return nil, nil }}
	res, err := Fetch(context.Background(), bundled(t), []string{"azure"}, cfg)
	if err != nil || len(res) != 1 || res[0].Provider != "azure" || !res[0].AsOf.Equal(now) || asked != 0 {
		t.Errorf("Fetch(azure) = %+v, %v (AWS credentials asked %d times)", res, err, asked)
	}
}

func TestBundled(t *testing.T) {
	c := bundled(t)
	for _, tc := range []struct {
		provider string
		now      time.Time
		want     string
	}{
		{"aws", now, "2026-11-22 (10 days old)"},
		{"lambda", time.Date(2026, 11, 23, 1, 0, 0, 0, time.UTC), "2026-11-22 (1 day old)"},
		{"azure", now, "2026-11-27 (5 days old)"},
		{"oci", now, "none"},
	} {
		if got := Bundled(c, tc.provider, tc.now); got != tc.want {
			t.Errorf("Bundled(%s) = %q, want %q", tc.provider, got, tc.want)
		}
	}
}

func TestSkipReasons(t *testing.T) {
	r := &pricing.Result{Skipped: []gpucost.Skip{{Reason: "b"}, {Reason: "not a GPU"}, {Reason: "a"}, {Reason: "not a GPU"}}}
	if got, want := SkipReasons(r), []string{"not a GPU", "a", "b"}; !slices.Equal(got, want) {
		t.Errorf("SkipReasons = %q, want %q", got, want)
	}
}
