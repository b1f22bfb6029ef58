// Package s3 keeps a gpucost.ObjectStore in a bucket prefix of any S3-compatible server (AWS S3,
// MinIO, versitygw, Ceph RGW, …) through the AWS SDK for Go v2. Large objects go up in parallel
// multipart uploads with per-part checksums (the SDK's transfer manager); S3 makes each Put
// atomic, since an object appears only when its upload completes.
package s3

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/feature/s3/transfermanager"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go"
	"github.com/gpucost/gpucost"
)

var _ gpucost.ObjectStore = (*Store)(nil)

// Store is an ObjectStore over the keys of one bucket under one prefix.
type Store struct {
	client *s3.Client
	tm     *transfermanager.Client
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
}

// PartSize is the size of one part of a multipart upload; objects larger than twice that go up
// in parts, Concurrency of them at a time.
const (
	PartSize    = 8 << 20
	Concurrency = 8
)

// New returns a store over bucket/prefix through client.
func New(client *s3.Client, bucket, prefix string) *Store {
	prefix = strings.Trim(prefix, "/")
	if prefix != "" {
		prefix += "/"
	}
	tm := transfermanager.New(client, func(o *transfermanager.Options) {
		o.PartSizeBytes = PartSize
		o.MultipartUploadThreshold = 2 * PartSize
		o.Concurrency = Concurrency
	})
	return &Store{client: client, tm: tm, bucket: bucket, prefix: prefix, where: "s3://" + bucket + "/" + prefix}
}

// NewClient returns an S3 client for cfg, with the SDK's standard retryer.
func NewClient(cfg Config) *s3.Client {
	region := cfg.Region
	if region == "" {
		region = "us-east-1"
	}
	opts := s3.Options{
		Region:       region,
		UsePathStyle: cfg.PathStyle,
		HTTPClient:   &http.Client{Transport: transport()},
	}
	if cfg.Endpoint != "" {
		opts.BaseEndpoint = aws.String(cfg.Endpoint)
	}
	if cfg.AccessKey != "" {
		creds := aws.Credentials{AccessKeyID: cfg.AccessKey, SecretAccessKey: cfg.SecretKey, SessionToken: cfg.Token, Source: "gpucost config"}
		opts.Credentials = aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })
	} else {
		opts.Credentials = aws.AnonymousCredentials{}
	}
	return s3.New(opts)
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
	s := New(NewClient(cfg), cfg.Bucket, cfg.Prefix)
	endpoint := cfg.Endpoint
	if endpoint == "" {
		endpoint = "AWS S3"
	}
	s.where += " at " + endpoint
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	_, err := s.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: aws.String(cfg.Bucket)})
	if err != nil {
		return nil, s.classify("check bucket", "", err)
	}
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

// Put uploads size bytes from r under key: in one request up to twice PartSize, in parallel
// checksummed parts above. A reader that ends early fails the upload and leaves the old object.
func (s *Store) Put(ctx context.Context, key string, r io.Reader, size int64) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	in := &transfermanager.UploadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(k)}
	ra, random := r.(io.ReaderAt)
	switch {
	case size >= 0 && random:
		// A file goes up as a section: the transfer manager reads its parts at their offsets,
		// in parallel and without copying them into buffers first.
		in.Body = io.NewSectionReader(ra, 0, size)
		in.ContentLength = aws.Int64(size)
	case size >= 0:
		in.Body = &exactReader{r: r, left: size}
		in.ContentLength = aws.Int64(size)
	default:
		in.Body = r
	}
	if _, err := s.tm.UploadObject(ctx, in); err != nil {
		return s.classify("put", key, err)
	}
	return nil
}

// exactReader reads exactly left bytes from r and fails if r ends sooner, so that a short body
// aborts the upload rather than storing a truncated object.
type exactReader struct {
	r    io.Reader
	left int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF && e.left > 0 {
		return n, fmt.Errorf("body ended %d bytes short: %w", e.left, io.ErrUnexpectedEOF)
	}
	if err == io.EOF {
		err = nil
	}
	return n, err
}

// Get opens the object under key, or returns an ENotFound Error.
func (s *Store) Get(ctx context.Context, key string) (io.ReadCloser, error) {
	k, err := s.key(key)
	if err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(k)})
	if err != nil {
		return nil, s.classify("get", key, err)
	}
	return out.Body, nil
}

// List returns the objects whose keys start with prefix, in key order (S3 lists in UTF-8 byte
// order), reading every page.
func (s *Store) List(ctx context.Context, prefix string) ([]gpucost.Object, error) {
	in := &s3.ListObjectsV2Input{Bucket: aws.String(s.bucket), Prefix: aws.String(s.prefix + prefix)}
	var out []gpucost.Object
	for p := s3.NewListObjectsV2Paginator(s.client, in); p.HasMorePages(); {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, s.classify("list", prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, gpucost.Object{
				Key:      strings.TrimPrefix(aws.ToString(o.Key), s.prefix),
				Size:     aws.ToInt64(o.Size),
				Modified: aws.ToTime(o.LastModified),
			})
		}
	}
	return out, nil
}

// Delete removes the object under key; a missing object is not an error.
func (s *Store) Delete(ctx context.Context, key string) error {
	k, err := s.key(key)
	if err != nil {
		return err
	}
	_, err = s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(k)})
	if err != nil && gpucost.ErrorCode(s.classify("delete", key, err)) != gpucost.ENotFound {
		return s.classify("delete", key, err)
	}
	return nil
}

// classify turns an SDK error into a gpucost Error with a code: ENotFound for a missing key or
// bucket, EInvalid for refused credentials, EUnavailable for a server that cannot be reached or
// keeps failing.
func (s *Store) classify(op, key string, err error) error {
	what := op + " " + s.where
	if key != "" {
		what = op + " " + key + " in " + s.where
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) && !isNetError(err) {
		return fmt.Errorf("%s: %w", what, err)
	}
	var api smithy.APIError
	if errors.As(err, &api) {
		switch api.ErrorCode() {
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
