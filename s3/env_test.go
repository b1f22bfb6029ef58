package s3

import (
	"testing"

	"github.com/gpucost/gpucost"
)

func TestConfigFromEnv(t *testing.T) {
	for _, c := range []struct {
		name string
		url  string
		env  map[string]string
		want Config
		err  bool
	}{
		{"AWS", "s3://bucket/jobs/a", map[string]string{"AWS_REGION": "eu-west-1", "AWS_ACCESS_KEY_ID": "id", "AWS_SECRET_ACCESS_KEY": "sk"},
			Config{Bucket: "bucket", Prefix: "jobs/a", Region: "eu-west-1", AccessKey: "id", SecretKey: "sk"}, false},
		{"a local server", "s3://b", map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:7070", "AWS_DEFAULT_REGION": "us-west-2"},
			Config{Bucket: "b", Region: "us-west-2", Endpoint: "http://127.0.0.1:7070", PathStyle: true}, false},
		{"the S3 endpoint wins", "s3://b/p", map[string]string{"AWS_ENDPOINT_URL_S3": "http://s3:9000", "AWS_ENDPOINT_URL": "http://other"},
			Config{Bucket: "b", Prefix: "p", Endpoint: "http://s3:9000", PathStyle: true}, false},
		{"no bucket", "s3:///p", nil, Config{}, true},
		{"one key", "s3://b", map[string]string{"AWS_ACCESS_KEY_ID": "id"}, Config{}, true},
		{"no scheme", "s3://b", map[string]string{"AWS_ENDPOINT_URL": "127.0.0.1:7070"}, Config{}, true},
	} {
		got, err := ConfigFromEnv(c.url, func(k string) string { return c.env[k] })
		if got != c.want || (err != nil) != c.err {
			t.Errorf("%s: ConfigFromEnv(%q) = %+v, %v; want %+v, error %v", c.name, c.url, got, err, c.want, c.err)
		}
		if err != nil && gpucost.ErrorCode(err) != gpucost.EInvalid {
			t.Errorf("%s: error code %s; want %s", c.name, gpucost.ErrorCode(err), gpucost.EInvalid)
		}
	}
}
