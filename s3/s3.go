// Package s3 keeps a gpucost.ObjectStore in a bucket prefix of any S3-compatible server (AWS S3,
// MinIO, versitygw, Ceph RGW, …) through S3's REST API, signed with SigV4 (internal/awsrpc).
// Large objects go up in parallel multipart uploads, each part signed with its SHA-256, which
// the server checks; S3 makes each Put atomic, since an object appears only when its upload
// completes. The SDK's S3 client and transfer manager did the same with a megabyte and a half
// more of binary (docs/architecture.md "Binary size").
package s3

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/awsrpc"
)

var _ gpucost.ObjectStore = (*Store)(nil)

// Store is an ObjectStore over the keys of one bucket under one prefix.
type Store struct {
	rpc    *awsrpc.Client
	base   *url.URL // the bucket's URL, ending in "/"
	bucket string
	prefix string // "" or ending in "/"
	where  string // s3://bucket/prefix, for messages
}

// Config says how to reach a bucket. Empty AccessKey means anonymous requests.
type Config struct {
	Endpoint  string // "" for AWS; "http://127.0.0.1:7070" for a local server
	Region    string // default us-east-1
	Bucket    string
	Prefix    string
	AccessKey string
	SecretKey string
	Token     string // a session token with temporary credentials
	PathStyle bool   // bucket in the path rather than the host name; needed by most local servers

	// Credentials, when set, sign the requests with what they retrieve (an InstanceRole),
	// cached until they expire; they win over AccessKey.
	Credentials aws.CredentialsProvider
}

// PartSize is the size of one part of a multipart upload; objects larger than twice that go up
// in parts, Concurrency of them at a time.
const (
	PartSize    = 8 << 20
	Concurrency = 8
)

// maxAttempts is how often a request is tried, as the SDK's standard retryer does.
const maxAttempts = 3

// New returns a store over bucket/prefix at the endpoint cfg names; it checks nothing.
func New(cfg Config) (*Store, error) {
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	base, err := bucketURL(cfg, region)
	if err != nil {
		return nil, err
	}
	prefix := strings.Trim(cfg.Prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	rpc := &awsrpc.Client{Service: "s3", Region: region, HTTP: &http.Client{Transport: transport()},
		MaxAttempts: maxAttempts, RawPath: true, Credentials: aws.AnonymousCredentials{}}
	if cfg.AccessKey != "" {
		creds := aws.Credentials{AccessKeyID: cfg.AccessKey, SecretAccessKey: cfg.SecretKey, SessionToken: cfg.Token, Source: "gpucost config"}
		rpc.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })
	}
	if cfg.Credentials != nil {
		rpc.Credentials = aws.NewCredentialsCache(cfg.Credentials)
	}
	return &Store{rpc: rpc, base: base, bucket: cfg.Bucket, prefix: prefix, where: "s3://" + cfg.Bucket + "/" + prefix}, nil
}

// bucketURL returns the URL of the bucket: the bucket as the first label of the host name
// (virtual-hosted style, AWS's default) or as the first path element (path style).
func bucketURL(cfg Config, region string) (*url.URL, error) {
	endpoint := cfg.Endpoint
	if endpoint == "" {
		domain := "amazonaws.com"
		if strings.HasPrefix(region, "cn-") {
			domain = "amazonaws.com.cn"
		}
		endpoint = "https://s3." + region + "." + domain
	}
	u, err := url.Parse(strings.TrimRight(endpoint, "/"))
	if err != nil || u.Host == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "S3 endpoint %q is not a URL such as http://127.0.0.1:7070", cfg.Endpoint)
	}
	if cfg.PathStyle || strings.Contains(cfg.Bucket, ".") {
		u.Path += "/" + cfg.Bucket + "/"
	} else {
		u.Host = cfg.Bucket + "." + u.Host
		u.Path += "/"
	}
	return u, nil
}

// transport keeps enough idle connections for parallel part uploads.
func transport() *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = 64
	t.MaxIdleConnsPerHost = 64
	t.DialContext = (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	return t
}

// Open connects to the bucket cfg names and checks that it exists, so that an unreachable store
// fails at start: EUnavailable when the server cannot be reached, ENotFound when the bucket is
// missing, EInvalid when the credentials are refused.
func Open(ctx context.Context, cfg Config) (*Store, error) {
	if cfg.Bucket == "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "s3 store: no bucket named")
	}
	s, err := New(cfg)
	if err != nil {
		return nil, err
	}
	endpoint := cfg.Endpoint
	if endpoint == "" {
		endpoint = "AWS S3"
	}
	s.where += " at " + endpoint
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	res, err := s.send(ctx, "HeadBucket", http.MethodHead, "", nil, nil)
	if err != nil {
		return nil, s.classify("check bucket", "", err)
	}
	res.Body.Close()
	return s, nil
}

// String returns the store's s3:// address.
func (s *Store) String() string { return s.where }

// key returns the bucket key of a store key.
func (s *Store) key(key string) (string, error) {
	bad := key == "" || strings.HasPrefix(key, "/") || path.Clean(key) != key
	for el := range strings.SplitSeq(key, "/") {
		bad = bad || el == ".." || el == "."
	}
	if bad {
		return "", gpucost.Errorf(gpucost.EInvalid, "object key %q is not a relative '/'-separated path without '..'", key)
	}
	return s.prefix + key, nil
}

// classify turns a refused or failed request into a gpucost Error with a code: ENotFound for a
// missing key or bucket, EInvalid for refused credentials, EUnavailable for a server that cannot
// be reached or keeps failing.
func (s *Store) classify(op, key string, err error) error {
	what := op + " " + s.where
	if key != "" {
		what = op + " " + key + " in " + s.where
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) && !isNetError(err) {
		return fmt.Errorf("%s: %w", what, err)
	}
	var api *awsrpc.Error
	if errors.As(err, &api) && api.Status != 0 {
		switch api.Code {
		case "NoSuchKey", "NotFound":
			if key == "" {
				return gpucost.Errorf(gpucost.ENotFound, "%s: bucket %s does not exist; create it first: %w", what, s.bucket, err)
			}
			return gpucost.Errorf(gpucost.ENotFound, "%s: no such object: %w", what, err)
		case "NoSuchBucket":
			return gpucost.Errorf(gpucost.ENotFound, "%s: bucket %s does not exist; create it first: %w", what, s.bucket, err)
		case "AccessDenied", "Forbidden", "InvalidAccessKeyId", "SignatureDoesNotMatch":
			return gpucost.Errorf(gpucost.EInvalid, "%s: access refused; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: %w", what, err)
		}
		return gpucost.Errorf(gpucost.EUnavailable, "%s: %w", what, err)
	}
	if isNetError(err) {
		return gpucost.Errorf(gpucost.EUnavailable, "%s: server unreachable: %w", what, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}

// isNetError reports whether err comes from the network rather than from the server's answer.
func isNetError(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &oe) || errors.As(err, &ne)
}
