package s3

import (
	"strings"

	"github.com/gpucost/gpucost"
)

// ConfigFromEnv reads an s3://BUCKET/PREFIX URL and the AWS environment variables through
// getenv: the endpoint from AWS_ENDPOINT_URL_S3, else AWS_ENDPOINT_URL (with path-style
// addressing when one is set), the region from AWS_REGION, else AWS_DEFAULT_REGION, and the
// credentials from AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN. A URL
// without a bucket, one of the two keys without the other, or an endpoint without a scheme is
// an EInvalid error.
func ConfigFromEnv(url string, getenv func(string) string) (Config, error) {
	bucket, prefix, _ := strings.Cut(strings.TrimPrefix(url, "s3://"), "/")
	if bucket == "" {
		return Config{}, gpucost.Errorf(gpucost.EInvalid, "object store %q names no bucket; use s3://BUCKET/PREFIX", url)
	}
	cfg := Config{
		Bucket:    bucket,
		Prefix:    prefix,
		Region:    getenv("AWS_REGION"),
		Endpoint:  getenv("AWS_ENDPOINT_URL_S3"),
		AccessKey: getenv("AWS_ACCESS_KEY_ID"),
		SecretKey: getenv("AWS_SECRET_ACCESS_KEY"),
		Token:     getenv("AWS_SESSION_TOKEN"),
	}
	if cfg.Region == "" {
		cfg.Region = getenv("AWS_DEFAULT_REGION")
	}
	if cfg.Endpoint == "" {
		cfg.Endpoint = getenv("AWS_ENDPOINT_URL")
	}
	cfg.PathStyle = cfg.Endpoint != ""
	if (cfg.AccessKey == "") != (cfg.SecretKey == "") {
		return Config{}, gpucost.Errorf(gpucost.EInvalid, "object store %s: set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither", url)
	}
	if cfg.Endpoint != "" && !strings.Contains(cfg.Endpoint, "://") {
		return Config{}, gpucost.Errorf(gpucost.EInvalid, "S3 endpoint %q needs a scheme, such as http://%s", cfg.Endpoint, cfg.Endpoint)
	}
	return cfg, nil
}
