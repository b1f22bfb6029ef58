// Package azblob reads and writes the blobs of one Azure Storage container through the Blob
// service's REST API (List Blobs, Get Blob, Put Blob), signed with the account's Shared Key or
// authorised by a SAS token, with plain net/http: gpucost reads Azure cost exports from where
// they land with it. The Azure SDK's blob module did the same with several megabytes more of
// binary (docs/architecture.md "Binary size").
package azblob

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// apiVersion is the Blob service version the requests ask for (x-ms-version).
const apiVersion = "2021-08-06"

// Container is one container of a storage account.
type Container struct {
	endpoint  *url.URL // the account's blob endpoint, without a trailing "/"
	account   string
	container string
	key       []byte // the decoded account key; nil without Shared Key
	sas       url.Values
	http      *http.Client
}

// Config says how to reach a container: the account, the container, and either the account
// key (Shared Key) or a SAS token; neither means anonymous reads of a public container.
type Config struct {
	Account   string
	Container string
	Endpoint  string // "" for https://ACCOUNT.blob.core.windows.net; Azurite's is http://127.0.0.1:10000/devstoreaccount1
	Key       string // the account key, base64, as the portal shows it
	SAS       string // a SAS token (sv=…&sig=…), with or without its leading "?"
}

// New returns the container cfg names; it checks nothing.
func New(cfg Config) (*Container, error) {
	if cfg.Account == "" || cfg.Container == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "Azure blob container: name both the storage account and the container (azure://ACCOUNT/CONTAINER/PREFIX)")
	}
	endpoint := cfg.Endpoint
	if endpoint == "" {
		endpoint = "https://" + cfg.Account + ".blob.core.windows.net"
	}
	u, err := url.Parse(strings.TrimRight(endpoint, "/"))
	if err != nil || u.Host == "" || u.Scheme == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "Azure blob endpoint %q is not a URL such as https://%s.blob.core.windows.net", endpoint, cfg.Account)
	}
	c := &Container{endpoint: u, account: cfg.Account, container: cfg.Container, http: &http.Client{Transport: transport()}}
	if cfg.Key != "" {
		if c.key, err = base64.StdEncoding.DecodeString(cfg.Key); err != nil {
			return nil, gpucost.Errorf(gpucost.EInvalid, "Azure storage account key of %s is not base64 (copy it from the portal's Access keys): %v", cfg.Account, err)
		}
	}
	if cfg.SAS != "" {
		if c.sas, err = url.ParseQuery(strings.TrimPrefix(cfg.SAS, "?")); err != nil || c.sas.Get("sig") == "" {
			return nil, gpucost.Errorf(gpucost.EInvalid, "Azure SAS token is not a query such as sv=…&sig=…; copy it whole from the portal's Shared access signature page")
		}
	}
	return c, nil
}

// transport dials with a time limit, so that an unreachable account fails rather than hangs.
func transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return t
}

// String returns the container's azure:// address.
func (c *Container) String() string { return "azure://" + c.account + "/" + c.container }

// listPage is the part of a List Blobs answer the client reads.
type listPage struct {
	Blobs []struct {
		Name       string `xml:"Name"`
		Properties struct {
			LastModified  string `xml:"Last-Modified"`
			ContentLength int64  `xml:"Content-Length"`
		} `xml:"Properties"`
	} `xml:"Blobs>Blob"`
	NextMarker string `xml:"NextMarker"`
}

// List returns the blobs whose names start with prefix, in name order, reading every page.
func (c *Container) List(ctx context.Context, prefix string) ([]gpucost.Object, error) {
	q := url.Values{"restype": {"container"}, "comp": {"list"}, "prefix": {prefix}}
	var out []gpucost.Object
	for {
		res, err := c.send(ctx, http.MethodGet, "", q, nil, nil)
		if err != nil {
			return nil, c.classify("list", prefix, err)
		}
		var page listPage
		err = xml.NewDecoder(io.LimitReader(res.Body, 64<<20)).Decode(&page)
		res.Body.Close()
		if err != nil {
			return nil, gpucost.Errorf(gpucost.EUnavailable, "list %s/%s: read the listing: %v", c, prefix, err)
		}
		for _, b := range page.Blobs {
			mod, _ := http.ParseTime(b.Properties.LastModified)
			out = append(out, gpucost.Object{Key: b.Name, Size: b.Properties.ContentLength, Modified: mod.UTC()})
		}
		if page.NextMarker == "" {
			return out, nil
		}
		q.Set("marker", page.NextMarker)
	}
}

// Get opens the blob called name, or returns an ENotFound Error.
func (c *Container) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	res, err := c.send(ctx, http.MethodGet, name, nil, nil, nil)
	if err != nil {
		return nil, c.classify("get", name, err)
	}
	return res.Body, nil
}

// Put stores data as the block blob called name, replacing any blob of that name.
func (c *Container) Put(ctx context.Context, name string, data []byte) error {
	h := http.Header{"X-Ms-Blob-Type": {"BlockBlob"}}
	res, err := c.send(ctx, http.MethodPut, name, nil, h, data)
	if err != nil {
		return c.classify("put", name, err)
	}
	res.Body.Close()
	return nil
}

// Create creates the container; one that exists already is not an error.
func (c *Container) Create(ctx context.Context) error {
	res, err := c.send(ctx, http.MethodPut, "", url.Values{"restype": {"container"}}, nil, []byte{})
	var se *statusError
	if errors.As(err, &se) && se.Code == "ContainerAlreadyExists" {
		return nil
	}
	if err != nil {
		return c.classify("create", "", err)
	}
	res.Body.Close()
	return nil
}

// statusError is an answer other than 2xx: its status and the service's error code.
type statusError struct {
	Status  int
	Code    string
	Message string
}

func (e *statusError) Error() string {
	return fmt.Sprintf("HTTP %d %s: %s", e.Status, e.Code, e.Message)
}

// send makes one request to the blob called name ("" for the container), signed with the
// account key or authorised by the SAS token; the caller closes the answer's body.
func (c *Container) send(ctx context.Context, method, name string, q url.Values, h http.Header, body []byte) (*http.Response, error) {
	u := *c.endpoint
	u.Path += "/" + c.container
	if name != "" {
		u.Path += "/" + name
	}
	all := url.Values{}
	for k, v := range q {
		all[k] = v
	}
	for k, v := range c.sas {
		all[k] = v
	}
	u.RawQuery = strings.ReplaceAll(all.Encode(), "+", "%20")
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), r)
	if err != nil {
		return nil, err
	}
	for k, v := range h {
		req.Header[k] = v
	}
	req.Header.Set("X-Ms-Date", time.Now().UTC().Format(http.TimeFormat))
	req.Header.Set("X-Ms-Version", apiVersion)
	if body != nil {
		req.ContentLength = int64(len(body))
	}
	if c.key != nil && c.sas == nil {
		req.Header.Set("Authorization", "SharedKey "+c.account+":"+c.sign(req, q))
	}
	res, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) && c.sas != nil {
			ue.URL = strings.SplitN(ue.URL, "?", 2)[0] + "?(SAS token)" // the token's signature is a secret
		}
		return nil, err
	}
	if res.StatusCode/100 == 2 {
		return res, nil
	}
	defer res.Body.Close()
	var e struct {
		Code    string `xml:"Code"`
		Message string `xml:"Message"`
	}
	data, _ := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	xml.Unmarshal(data, &e)
	if e.Code == "" {
		e.Code = res.Header.Get("X-Ms-Error-Code")
	}
	return nil, &statusError{Status: res.StatusCode, Code: e.Code, Message: strings.TrimSpace(firstLine(e.Message))}
}

// firstLine is s up to its first line break: the service's messages add a request id and time.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// sign returns the Shared Key signature of req, whose query parameters (the SAS's aside) are q:
// the HMAC-SHA256, under the account key, of the verb, the standard headers, the x-ms-
// headers and the canonical resource, as the Blob service's "Authorize with Shared Key" says.
func (c *Container) sign(req *http.Request, q url.Values) string {
	length := ""
	if req.ContentLength > 0 {
		length = strconv.FormatInt(req.ContentLength, 10)
	}
	hd := req.Header
	parts := []string{req.Method, hd.Get("Content-Encoding"), hd.Get("Content-Language"), length,
		hd.Get("Content-MD5"), hd.Get("Content-Type"), "", hd.Get("If-Modified-Since"), hd.Get("If-Match"),
		hd.Get("If-None-Match"), hd.Get("If-Unmodified-Since"), hd.Get("Range")}
	var ms []string
	for k := range hd {
		if lk := strings.ToLower(k); strings.HasPrefix(lk, "x-ms-") {
			ms = append(ms, lk+":"+strings.TrimSpace(hd.Get(k)))
		}
	}
	slices.Sort(ms)
	resource := "/" + c.account + req.URL.EscapedPath()
	var keys []string
	for k := range q {
		keys = append(keys, strings.ToLower(k))
	}
	slices.Sort(keys)
	for _, k := range keys {
		vals := slices.Clone(q[k])
		slices.Sort(vals)
		resource += "\n" + k + ":" + strings.Join(vals, ",")
	}
	toSign := strings.Join(parts, "\n") + "\n" + strings.Join(ms, "\n") + "\n" + resource
	m := hmac.New(sha256.New, c.key)
	m.Write([]byte(toSign))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// classify turns a failed request into a gpucost Error with a code: ENotFound for a missing
// blob or container, EInvalid for refused credentials, EUnavailable for an account that cannot
// be reached or fails.
func (c *Container) classify(op, name string, err error) error {
	what := op + " " + c.String()
	if name != "" {
		what += "/" + name
	}
	var se *statusError
	switch {
	case errors.Is(err, context.Canceled):
		return fmt.Errorf("%s: %w", what, err)
	case errors.As(err, &se) && (se.Code == "BlobNotFound" || se.Code == "ContainerNotFound" || se.Status == http.StatusNotFound):
		return gpucost.Errorf(gpucost.ENotFound, "%s: %v; check the account, container and prefix", what, err)
	case errors.As(err, &se) && (se.Status == http.StatusForbidden || se.Status == http.StatusUnauthorized):
		return gpucost.Errorf(gpucost.EInvalid, "%s: access refused (%v); check AZURE_STORAGE_KEY, AZURE_STORAGE_SAS_TOKEN or AZURE_STORAGE_CONNECTION_STRING", what, err)
	case errors.As(err, &se):
		return gpucost.Errorf(gpucost.EUnavailable, "%s: %v", what, err)
	}
	return gpucost.Errorf(gpucost.EUnavailable, "%s: account unreachable: %v", what, err)
}
