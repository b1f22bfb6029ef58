// Package awsrpc makes the few signed AWS API calls gpucost needs — EC2's query protocol
// (DescribeInstances, StopInstances, CreateTags, DescribeSpotPriceHistory), the JSON 1.1
// protocol of SageMaker and the Price List API, and S3's REST requests (Do) — as plain HTTP
// requests signed with the SDK's SigV4 signer and retried as the SDK's standard retryer does.
// The SDK's generated service clients linked tens of megabytes of operations gpucost never calls
// (docs/architecture.md "Binary size").
package awsrpc

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
)

// Client sends signed requests to one service in one region.
type Client struct {
	// Service is the SigV4 signing name (ec2, sagemaker, pricing); Host the endpoint's first
	// labels (ec2, api.sagemaker, api.pricing), to which ".REGION.amazonaws.com" is added.
	Service, Host, Region string
	// BaseURL, when set, replaces the endpoint (a test server or a proxy).
	BaseURL string
	// Credentials sign the requests; nil or aws.AnonymousCredentials sends them unsigned.
	Credentials aws.CredentialsProvider
	HTTP        *http.Client // http.DefaultClient when nil
	// MaxAttempts is how many times a request is tried (1 when zero); Backoff the wait before
	// each retry (the SDK's jittered exponential backoff, at most 20s, when nil).
	MaxAttempts int
	Backoff     retry.BackoffDelayer
	Now         func() time.Time // signing time; time.Now when nil
	// RawPath signs the URL path as it is sent, without escaping it again: S3's rule.
	RawPath bool
}

// Error is an AWS API's refusal: the HTTP status and the error code and message the service
// gave, or a request that got no answer (Status 0).
type Error struct {
	Operation string // "EC2 StopInstances"
	Status    int
	Code      string
	Message   string
	RequestID string
	Err       error // why no answer came (Status 0)
}

func (e *Error) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s: %v", e.Operation, e.Err)
	}
	s := fmt.Sprintf("%s: HTTP %d", e.Operation, e.Status)
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// Query calls an action of a query-protocol API (EC2, version 2016-11-15): params go in a form
// with Action and Version, and the XML answer is decoded into out.
func (c *Client) Query(ctx context.Context, op, action, version string, params url.Values, out any) error {
	form := url.Values{}
	for k, v := range params {
		form[k] = v
	}
	form.Set("Action", action)
	form.Set("Version", version)
	body, err := c.do(ctx, op, []byte(form.Encode()), map[string]string{"Content-Type": "application/x-www-form-urlencoded; charset=utf-8"}, queryError)
	if err != nil {
		return err
	}
	if err := xml.Unmarshal(body, out); err != nil {
		return &Error{Operation: op, Err: fmt.Errorf("decode the answer: %w", err)}
	}
	return nil
}

// JSON calls an operation of an AWS JSON 1.1 API: in is sent as the body with X-Amz-Target
// target ("SageMaker.ListEndpoints"), and the answer is decoded into out (unless nil).
func (c *Client) JSON(ctx context.Context, op, target string, in, out any) error {
	b, err := json.Marshal(in)
	if err != nil {
		return &Error{Operation: op, Err: err}
	}
	body, err := c.do(ctx, op, b, map[string]string{"Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": target}, jsonError)
	if err != nil || out == nil {
		return err
	}
	if err := json.Unmarshal(body, out); err != nil {
		return &Error{Operation: op, Err: fmt.Errorf("decode the answer: %w", err)}
	}
	return nil
}

func (c *Client) endpoint() string {
	if c.BaseURL != "" {
		return c.BaseURL
	}
	domain := "amazonaws.com"
	if strings.HasPrefix(c.Region, "cn-") {
		domain = "amazonaws.com.cn"
	}
	return "https://" + c.Host + "." + c.Region + "." + domain + "/"
}

// do posts body, retrying throttling, server errors and unanswered requests, and returns the
// body of the first 2xx answer.
func (c *Client) do(ctx context.Context, op string, body []byte, header map[string]string, decode Decoder) ([]byte, error) {
	newReq := func() (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.endpoint(), bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		for k, v := range header {
			req.Header.Set(k, v)
		}
		return req, err
	}
	sum := sha256.Sum256(body)
	res, err := c.Do(ctx, op, newReq, hex.EncodeToString(sum[:]), decode)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 64<<20))
	if err != nil {
		return nil, &Error{Operation: op, Err: fmt.Errorf("read the answer: %w", err)}
	}
	return b, nil
}

// Decoder reads the error code, message and request ID of a refusal from its body and header.
type Decoder func(status int, body []byte, h http.Header) (code, msg, requestID string)

// Do sends the request newReq makes, signed for a body whose hex SHA-256 is payloadHash (or
// "UNSIGNED-PAYLOAD"), and retries it as the SDK's standard retryer does; newReq is called for
// each try, so that the body is read afresh. It returns the first 2xx answer with its body open
// for the caller to close. Other answers become an *Error, their body read by decode.
func (c *Client) Do(ctx context.Context, op string, newReq func() (*http.Request, error), payloadHash string, decode Decoder) (*http.Response, error) {
	attempts := max(1, c.MaxAttempts)
	backoff := c.Backoff
	if backoff == nil {
		backoff = retry.NewExponentialJitterBackoff(retry.DefaultMaxBackoff)
	}
	for attempt := 1; ; attempt++ {
		out, err := c.once(ctx, op, newReq, payloadHash, decode)
		if err == nil || attempt >= attempts || !retryable(ctx, err) {
			return out, err
		}
		wait, berr := backoff.BackoffDelay(attempt, err)
		if berr != nil {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, &Error{Operation: op, Err: ctx.Err()}
		case <-time.After(wait):
		}
	}
}

func (c *Client) once(ctx context.Context, op string, newReq func() (*http.Request, error), payloadHash string, decode Decoder) (*http.Response, error) {
	req, err := newReq()
	if err != nil {
		return nil, &Error{Operation: op, Err: err}
	}
	if err := c.sign(ctx, req, payloadHash); err != nil {
		return nil, &Error{Operation: op, Err: err}
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	res, err := hc.Do(req)
	if err != nil {
		return nil, &Error{Operation: op, Err: err}
	}
	if res.StatusCode/100 == 2 {
		return res, nil
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return nil, &Error{Operation: op, Status: res.StatusCode, Err: fmt.Errorf("read the answer: %w", err)}
	}
	code, msg, id := decode(res.StatusCode, b, res.Header)
	return nil, &Error{Operation: op, Status: res.StatusCode, Code: code, Message: msg, RequestID: id}
}

func (c *Client) sign(ctx context.Context, req *http.Request, payloadHash string) error {
	if c.Credentials == nil {
		return nil
	}
	if _, anon := c.Credentials.(aws.AnonymousCredentials); anon {
		return nil
	}
	creds, err := c.Credentials.Retrieve(ctx)
	if err != nil {
		return fmt.Errorf("AWS credentials: %w", err)
	}
	now := time.Now
	if c.Now != nil {
		now = c.Now
	}
	return v4.NewSigner(func(o *v4.SignerOptions) { o.DisableURIPathEscaping = c.RawPath }).
		SignHTTP(ctx, creds, req, payloadHash, c.Service, c.Region, now().UTC())
}

// retryable is the SDK standard retryer's rule: throttling codes, HTTP 500, 502, 503 and 504
// (and 429), and requests that got no answer, unless the context ended.
func retryable(ctx context.Context, err error) bool {
	if ctx.Err() != nil {
		return false
	}
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	if e.Status == 0 {
		return e.Err != nil && !errors.Is(e.Err, context.Canceled) && !errors.Is(e.Err, context.DeadlineExceeded)
	}
	_, throttle := retry.DefaultThrottleErrorCodes[e.Code]
	_, transient := retry.DefaultRetryableHTTPStatusCodes[e.Status]
	_, timeout := retry.DefaultRetryableErrorCodes[e.Code]
	return throttle || transient || timeout || e.Status == http.StatusTooManyRequests
}

// XMLError reads an S3 error answer: <Error><Code/><Message/><RequestId/></Error>. A HEAD
// answer has no body: its code is NotFound for 404 and Forbidden for 403, as the SDK names them.
func XMLError(status int, b []byte, h http.Header) (code, msg, id string) {
	var r struct {
		Code      string `xml:"Code"`
		Message   string `xml:"Message"`
		RequestID string `xml:"RequestId"`
	}
	if xml.Unmarshal(b, &r) == nil && r.Code != "" {
		return r.Code, r.Message, r.RequestID
	}
	switch status {
	case http.StatusNotFound:
		code = "NotFound"
	case http.StatusForbidden:
		code = "Forbidden"
	}
	return code, strings.TrimSpace(string(b[:min(len(b), 200)])), h.Get("X-Amz-Request-Id")
}

// queryError reads an EC2 error answer: <Response><Errors><Error><Code/><Message/>…<RequestID/>.
func queryError(_ int, b []byte, _ http.Header) (code, msg, id string) {
	var r struct {
		Errors []struct {
			Code    string `xml:"Code"`
			Message string `xml:"Message"`
		} `xml:"Errors>Error"`
		RequestID string `xml:"RequestID"`
	}
	if xml.Unmarshal(b, &r) == nil && len(r.Errors) > 0 {
		return r.Errors[0].Code, r.Errors[0].Message, r.RequestID
	}
	return "", strings.TrimSpace(string(b[:min(len(b), 200)])), ""
}

// jsonError reads a JSON 1.1 error answer: {"__type": "…#Code", "message": "…"}, or the
// X-Amzn-ErrorType header.
func jsonError(_ int, b []byte, h http.Header) (code, msg, id string) {
	var r struct {
		Type     string `json:"__type"`
		Code     string `json:"code"`
		Message  string `json:"message"`
		MessageU string `json:"Message"`
	}
	json.Unmarshal(b, &r)
	code = r.Type
	if code == "" {
		code = r.Code
	}
	if code == "" {
		code, _, _ = strings.Cut(h.Get("X-Amzn-ErrorType"), ":")
	}
	if i := strings.LastIndex(code, "#"); i >= 0 {
		code = code[i+1:]
	}
	msg = r.Message
	if msg == "" {
		msg = r.MessageU
	}
	return code, msg, h.Get("X-Amzn-RequestId")
}
