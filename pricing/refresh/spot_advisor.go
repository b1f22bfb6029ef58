package refresh

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/catalog"
)

// maxSpotAdvisor bounds the Spot Instance Advisor's file: it is a few MB.
const maxSpotAdvisor = 64 << 20

// FetchSpotAdvisor downloads the Spot Instance Advisor's data (catalog.SpotAdvisorURL), from
// baseURL's /spot-advisor-data.json when baseURL is set (a mirror or a test server). A server
// that cannot be reached, or answers other than 200, is an EUnavailable error.
func FetchSpotAdvisor(ctx context.Context, baseURL string) (*catalog.SpotAdvisor, error) {
	url := catalog.SpotAdvisorURL
	if baseURL != "" {
		url = strings.TrimSuffix(baseURL, "/") + "/spot-advisor-data.json"
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, fmt.Errorf("fetch spot advisor data: %w", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EUnavailable, "fetch spot advisor data %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, gpucost.Errorf(gpucost.EUnavailable, "fetch spot advisor data %s: %s", url, resp.Status)
	}
	return catalog.ParseSpotAdvisor(io.LimitReader(resp.Body, maxSpotAdvisor), url)
}
