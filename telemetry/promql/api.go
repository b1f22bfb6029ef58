package promql

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// response is the envelope of every Prometheus HTTP API answer.
type response struct {
	Status    string          `json:"status"`
	Data      json.RawMessage `json:"data"`
	ErrorType string          `json:"errorType"`
	Error     string          `json:"error"`
	Warnings  []string        `json:"warnings"`
	Infos     []string        `json:"infos"`
}

// result is the data of a query or query_range answer.
type result struct {
	ResultType string   `json:"resultType"`
	Result     []series `json:"result"`
}

// series is one series of a vector (Value) or a matrix (Values).
type series struct {
	Metric map[string]string `json:"metric"`
	Value  *point            `json:"value"`
	Values []point           `json:"values"`
}

// point is a [unix seconds, "value"] pair.
type point struct {
	ms int64 // milliseconds since the epoch
	v  string
}

// UnmarshalJSON reads a [unix seconds, "value"] pair.
func (p *point) UnmarshalJSON(b []byte) error {
	var raw [2]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return fmt.Errorf("sample %s: want [time, \"value\"]: %w", b, err)
	}
	t, err := strconv.ParseFloat(string(raw[0]), 64)
	if err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
		return fmt.Errorf("sample time %s is not a number", raw[0])
	}
	p.ms = int64(math.Round(t * 1000))
	return json.Unmarshal(raw[1], &p.v)
}

// APIError is an error answer of the Prometheus API.
type APIError struct {
	Status int    // HTTP status
	Type   string // errorType: bad_data, execution, timeout, canceled, internal, unavailable, not_found
	Msg    string
}

// Error says what the server answered.
func (e *APIError) Error() string {
	return fmt.Sprintf("Prometheus answered %d %s: %s", e.Status, e.Type, e.Msg)
}

// tooManySamples reports whether a query failed because its range holds too many samples for the
// server (--query.max-samples) or too many points per series (11,000).
func tooManySamples(err error) bool {
	var e *APIError
	return errors.As(err, &e) && (strings.Contains(e.Msg, "too many samples") ||
		strings.Contains(e.Msg, "exceeded maximum resolution"))
}

// get calls the API endpoint (such as "query") with params and returns the data and warnings.
func (c *Collector) get(ctx context.Context, endpoint string, params url.Values) (result, []string, error) {
	u := strings.TrimSuffix(c.URL, "/") + "/api/v1/" + endpoint + "?" + params.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return result{}, nil, gpucost.Errorf(gpucost.EInvalid, "Prometheus URL %q: %v", c.URL, err)
	}
	req.Header.Set("Accept", "application/json")
	client := c.Client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return result{}, nil, gpucost.Errorf(gpucost.EUnavailable, "Prometheus %s: %v", endpoint, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return result{}, nil, gpucost.Errorf(gpucost.EUnavailable, "Prometheus %s: read the answer: %v", endpoint, err)
	}
	return decode(endpoint, resp, body)
}

// decode reads an API answer: the data of a success, or an APIError.
func decode(endpoint string, resp *http.Response, body []byte) (result, []string, error) {
	var r response
	ct, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err := json.Unmarshal(body, &r); err != nil || r.Status == "" {
		return result{}, nil, gpucost.Errorf(gpucost.EUnavailable,
			"%s answered %s (%s), not a Prometheus API answer: %q — is the URL the Prometheus server's?",
			resp.Request.URL.Redacted(), resp.Status, ct, snippet(body))
	}
	if r.Status != "success" {
		e := &APIError{Status: resp.StatusCode, Type: r.ErrorType, Msg: r.Error}
		code := gpucost.EUnavailable
		if r.ErrorType == "bad_data" {
			code = gpucost.EInvalid
		}
		return result{}, r.Warnings, gpucost.Errorf(code, "Prometheus %s: %w", endpoint, e)
	}
	var res result
	if err := json.Unmarshal(r.Data, &res); err != nil {
		return result{}, r.Warnings, gpucost.Errorf(gpucost.EUnavailable, "Prometheus %s: the data is not a query result: %v", endpoint, err)
	}
	return res, append(r.Warnings, r.Infos...), nil
}

func snippet(b []byte) string {
	b = bytes.TrimSpace(b)
	if len(b) > 200 {
		b = append(b[:200:200], "…"...)
	}
	return string(b)
}

// unixParam writes a time as the API takes it: seconds with milliseconds.
func unixParam(t time.Time) string {
	return strconv.FormatFloat(float64(t.UnixMilli())/1000, 'f', 3, 64)
}
