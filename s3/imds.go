package s3

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
)

// InstanceRole retrieves the credentials of the EC2 instance's IAM role from the instance
// metadata service, with an IMDSv2 session token: the last link of the AWS default chain, after
// the environment variables and the shared credentials file. Config.Credentials caches them
// until they expire.
type InstanceRole struct {
	Endpoint string       // the metadata service; http://169.254.169.254 when empty
	HTTP     *http.Client // a client that gives up after 2 s when nil, so that off EC2 it fails fast
}

var _ aws.CredentialsProvider = (*InstanceRole)(nil)

// imdsCredentials is the metadata service's answer for a role.
type imdsCredentials struct {
	Code            string    `json:"Code"`
	AccessKeyID     string    `json:"AccessKeyId"`
	SecretAccessKey string    `json:"SecretAccessKey"`
	Token           string    `json:"Token"`
	Expiration      time.Time `json:"Expiration"`
}

// Retrieve asks the metadata service for a session token, the instance's role and the role's
// credentials. Off EC2, or on an instance without a role, it returns an EInvalid error saying
// which credentials gpucost reads.
func (r *InstanceRole) Retrieve(ctx context.Context) (aws.Credentials, error) {
	creds, err := r.retrieve(ctx)
	if err != nil {
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with ~/.aws/credentials, or run on an EC2 instance with an IAM role (the instance metadata service: %v)", err)
	}
	return creds, nil
}

func (r *InstanceRole) retrieve(ctx context.Context) (aws.Credentials, error) {
	base := strings.TrimRight(cmp.Or(r.Endpoint, "http://169.254.169.254"), "/")
	token, err := r.call(ctx, http.MethodPut, base+"/latest/api/token", "")
	if err != nil {
		return aws.Credentials{}, err
	}
	role, err := r.call(ctx, http.MethodGet, base+"/latest/meta-data/iam/security-credentials/", token)
	if err != nil {
		return aws.Credentials{}, err
	}
	role, _, _ = strings.Cut(strings.TrimSpace(role), "\n")
	if role == "" {
		return aws.Credentials{}, fmt.Errorf("the instance has no IAM role")
	}
	body, err := r.call(ctx, http.MethodGet, base+"/latest/meta-data/iam/security-credentials/"+role, token)
	if err != nil {
		return aws.Credentials{}, err
	}
	var c imdsCredentials
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		return aws.Credentials{}, fmt.Errorf("role %s: %w", role, err)
	}
	if c.Code != "Success" || c.AccessKeyID == "" {
		return aws.Credentials{}, fmt.Errorf("role %s: %s", role, cmp.Or(c.Code, "no access key"))
	}
	return aws.Credentials{AccessKeyID: c.AccessKeyID, SecretAccessKey: c.SecretAccessKey, SessionToken: c.Token,
		Source: "EC2 instance role " + role, CanExpire: !c.Expiration.IsZero(), Expires: c.Expiration}, nil
}

// call makes one metadata request: PUT for a session token, GET with it for the rest.
func (r *InstanceRole) call(ctx context.Context, method, url, token string) (string, error) {
	req, err := http.NewRequestWithContext(ctx, method, url, nil)
	if err != nil {
		return "", err
	}
	if token == "" {
		req.Header.Set("X-Aws-Ec2-Metadata-Token-Ttl-Seconds", "21600")
	} else {
		req.Header.Set("X-Aws-Ec2-Metadata-Token", token)
	}
	client := r.HTTP
	if client == nil {
		client = &http.Client{Timeout: 2 * time.Second}
	}
	res, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s %s: HTTP %d", method, url, res.StatusCode)
	}
	return string(body), nil
}
