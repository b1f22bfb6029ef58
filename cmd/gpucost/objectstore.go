package main

import (
	"context"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/s3"
)

// openObjectStore opens the object store a --store or --results flag names: s3://BUCKET/PREFIX,
// file://PATH or a bare directory path. For S3 the endpoint comes from AWS_ENDPOINT_URL_S3 or
// AWS_ENDPOINT_URL (path-style addressing when one is set), the region from AWS_REGION
// (default us-east-1) and the credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
// An S3 store is checked at once, so an unreachable one fails here with EUnavailable.
func openObjectStore(ctx context.Context, e *env, url string) (gpucost.ObjectStore, error) {
	switch {
	case url == "":
		return nil, gpucost.Errorf(gpucost.EInvalid, "no object store given; use s3://BUCKET/PREFIX, file://PATH or a directory")
	case strings.HasPrefix(url, "s3://"):
		cfg, err := s3Config(e, url)
		if err != nil {
			return nil, err
		}
		return s3.Open(ctx, cfg)
	case strings.HasPrefix(url, "file://"):
		return file.New(strings.TrimPrefix(url, "file://"))
	case strings.Contains(url, "://"):
		return nil, gpucost.Errorf(gpucost.EInvalid, "object store %q: unknown scheme; use s3://BUCKET/PREFIX, file://PATH or a directory", url)
	}
	return file.New(url)
}

// s3Config reads an s3:// URL and the AWS environment variables.
func s3Config(e *env, url string) (s3.Config, error) {
	bucket, prefix, _ := strings.Cut(strings.TrimPrefix(url, "s3://"), "/")
	if bucket == "" {
		return s3.Config{}, gpucost.Errorf(gpucost.EInvalid, "object store %q names no bucket; use s3://BUCKET/PREFIX", url)
	}
	cfg := s3.Config{
		Bucket:    bucket,
		Prefix:    prefix,
		Region:    e.getenv("AWS_REGION"),
		Endpoint:  e.getenv("AWS_ENDPOINT_URL_S3"),
		AccessKey: e.getenv("AWS_ACCESS_KEY_ID"),
		SecretKey: e.getenv("AWS_SECRET_ACCESS_KEY"),
		Token:     e.getenv("AWS_SESSION_TOKEN"),
	}
	if cfg.Region == "" {
		cfg.Region = e.getenv("AWS_DEFAULT_REGION")
	}
	if cfg.Endpoint == "" {
		cfg.Endpoint = e.getenv("AWS_ENDPOINT_URL")
	}
	cfg.PathStyle = cfg.Endpoint != ""
	if (cfg.AccessKey == "") != (cfg.SecretKey == "") {
		return s3.Config{}, gpucost.Errorf(gpucost.EInvalid, "object store %s: set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither", url)
	}
	if cfg.Endpoint != "" && !strings.Contains(cfg.Endpoint, "://") {
		return s3.Config{}, gpucost.Errorf(gpucost.EInvalid, "S3 endpoint %q needs a scheme, such as http://%s", cfg.Endpoint, cfg.Endpoint)
	}
	return cfg, nil
}
