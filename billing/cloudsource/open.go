package cloudsource

import (
	"context"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/azblob"
	"github.com/gpucost/gpucost/internal/awscreds"
	"github.com/gpucost/gpucost/s3"
)

// IsURL reports whether arg names a bucket prefix Open reads rather than a local path.
func IsURL(arg string) bool {
	for _, s := range []string{"s3://", "gs://", "azure://", "https://", "http://"} {
		if strings.HasPrefix(arg, s) {
			return true
		}
	}
	return false
}

// gcsEndpoint is Google Cloud Storage's XML API, which S3 clients reach with an HMAC key.
const gcsEndpoint = "https://storage.googleapis.com"

// Open returns the source addr names, reading the credentials through getenv:
//
//   - s3://BUCKET/PREFIX: the AWS variables s3.ConfigFromEnv reads, else the static keys of the
//     profile AWS_PROFILE (or default) of the shared credentials file (AWS_SHARED_CREDENTIALS_FILE,
//     or ~/.aws/credentials), else gpucost's AWS chain (awscreds.Chain: profiles that assume a
//     role or use SSO, web identity, the ECS container endpoint, the EC2 instance's role), unless
//     AWS_EC2_METADATA_DISABLED=true, which leaves the bucket's anonymous access;
//   - gs://BUCKET/PREFIX: Google Cloud Storage through its S3-compatible XML API, with a
//     service account's HMAC key in GS_ACCESS_KEY_ID and GS_SECRET_ACCESS_KEY;
//   - azure://ACCOUNT/CONTAINER/PREFIX or https://ACCOUNT.blob.core.windows.net/CONTAINER/PREFIX:
//     what azblob.ConfigFromEnv reads.
//
// An S3 or GCS bucket is checked at once: EUnavailable when unreachable, ENotFound when
// missing, EInvalid when the credentials are refused.
func Open(ctx context.Context, addr string, getenv func(string) string) (*Source, error) {
	switch {
	case strings.HasPrefix(addr, "s3://"):
		cfg, err := s3.ConfigFromEnv(addr, getenv)
		if err != nil {
			return nil, err
		}
		if cfg.AccessKey == "" {
			if cfg.AccessKey, cfg.SecretKey, cfg.Token, err = s3.SharedCredentials(getenv); err != nil {
				return nil, err
			}
		}
		if cfg.AccessKey == "" && getenv("AWS_EC2_METADATA_DISABLED") != "true" {
			cfg.Credentials = &awscreds.Chain{Getenv: getenv}
		}
		return openS3(ctx, addr, "s3://", cfg)
	case strings.HasPrefix(addr, "gs://"):
		cfg, err := s3.ConfigFromEnv("s3://"+strings.TrimPrefix(addr, "gs://"), func(string) string { return "" })
		if err != nil {
			return nil, err
		}
		cfg.Endpoint, cfg.Region = gcsEndpoint, "auto"
		cfg.AccessKey, cfg.SecretKey = getenv("GS_ACCESS_KEY_ID"), getenv("GS_SECRET_ACCESS_KEY")
		if (cfg.AccessKey == "") != (cfg.SecretKey == "") {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s: set both GS_ACCESS_KEY_ID and GS_SECRET_ACCESS_KEY (a service account's HMAC key), or neither", addr)
		}
		return openS3(ctx, addr, "gs://", cfg)
	case strings.HasPrefix(addr, "azure://") || strings.HasPrefix(addr, "https://") || strings.HasPrefix(addr, "http://"):
		cfg, prefix, err := azblob.ConfigFromEnv(addr, getenv)
		if err != nil {
			return nil, err
		}
		c, err := azblob.New(cfg)
		if err != nil {
			return nil, err
		}
		return &Source{URL: addr, Bucket: c, Root: c.String() + "/", Prefix: prefix}, nil
	}
	return nil, gpucost.Errorf(gpucost.EInvalid, "bill source %q: use s3://BUCKET/PREFIX, gs://BUCKET/PREFIX or azure://ACCOUNT/CONTAINER/PREFIX", addr)
}

// openS3 opens the bucket of cfg at its root, keeping its prefix as the source's.
func openS3(ctx context.Context, addr, scheme string, cfg s3.Config) (*Source, error) {
	prefix := cfg.Prefix
	cfg.Prefix = ""
	st, err := s3.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return &Source{URL: addr, Bucket: st, Root: scheme + cfg.Bucket + "/", Prefix: prefix}, nil
}
