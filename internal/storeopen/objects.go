package storeopen

import (
	"context"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/file"
	"github.com/gpucost/gpucost/s3"
)

// Objects opens the object store url names (a --store or --results value): s3://BUCKET/PREFIX,
// file://PATH or a bare directory path. For S3 the endpoint, region and credentials come from
// the AWS environment variables getenv reads (s3.ConfigFromEnv). An S3 store is checked at
// once, so an unreachable one fails here with gpucost.EUnavailable.
func Objects(ctx context.Context, url string, getenv func(string) string) (gpucost.ObjectStore, error) {
	switch {
	case url == "":
		return nil, gpucost.Errorf(gpucost.EInvalid, "no object store given; use s3://BUCKET/PREFIX, file://PATH or a directory")
	case strings.HasPrefix(url, "s3://"):
		cfg, err := s3.ConfigFromEnv(url, getenv)
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
