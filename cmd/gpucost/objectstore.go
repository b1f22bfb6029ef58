package main

import (
	"context"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/s3"
)

// openObjectStore opens the object store a --store or --results flag names: s3://BUCKET/PREFIX,
// file://PATH or a bare directory path. For S3 the endpoint, region and credentials come from
// the AWS environment variables (s3.ConfigFromEnv). An S3 store is checked at once, so an
// unreachable one fails here with EUnavailable.
func openObjectStore(ctx context.Context, e *env, url string) (gpucost.ObjectStore, error) {
	switch {
	case url == "":
		return nil, gpucost.Errorf(gpucost.EInvalid, "no object store given; use s3://BUCKET/PREFIX, file://PATH or a directory")
	case strings.HasPrefix(url, "s3://"):
		cfg, err := s3.ConfigFromEnv(url, e.getenv)
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
