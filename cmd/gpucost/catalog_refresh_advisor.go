package main

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

// fetchSpotAdvisor downloads the Spot Instance Advisor's data, from baseURL's
// /spot-advisor-data.json when baseURL is set (a mirror or a test server).
func fetchSpotAdvisor(ctx context.Context, baseURL string) (*catalog.SpotAdvisor, error) {
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

// refreshSpotAdvisor fetches the Spot Instance Advisor's data into the store for catalog refresh
// --provider aws and says what it did; a failure is a note, not an error, since the prices were
// stored: the advisor data kept before stays in use.
func (e *env) refreshSpotAdvisor(ctx context.Context, baseURL string) string {
	adv, err := fetchSpotAdvisor(ctx, baseURL)
	if err == nil {
		var t result
		if t, err = putSpotAdvisor(ctx, e, adv); err == nil {
			return strings.Join(t.Notes, " ")
		}
	}
	return fmt.Sprintf("Spot Instance Advisor data not refreshed (%v); what was imported before stays in use, or import the file with catalog import --format aws-spot-advisor.", err)
}
