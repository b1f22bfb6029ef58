package awscreds

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

// IMDS retrieves the credentials of the EC2 instance's IAM role from the instance metadata
// service, with an IMDSv2 session token: the last link of the Chain. A client caches them
// until they expire (aws.NewCredentialsCache).
type IMDS struct {
	Endpoint string       // the metadata service; http://169.254.169.254 when empty
	HTTP     *http.Client // a client that gives up after 2 s when nil, so that off EC2 it fails fast
}

var _ aws.CredentialsProvider = (*IMDS)(nil)

// Retrieve asks the metadata service for a session token, the instance's role and the role's
// credentials. Off EC2, or on an instance without a role, it returns an EInvalid error saying
// which credentials gpucost reads.
func (r *IMDS) Retrieve(ctx context.Context) (aws.Credentials, error) {
	creds, err := r.retrieve(ctx)
	if err != nil {
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_PROFILE with ~/.aws/credentials, or run on an EC2 instance with an IAM role (the instance metadata service: %v)", err)
	}
	return creds, nil
}

func (r *IMDS) retrieve(ctx context.Context) (aws.Credentials, error) {
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
	var c roleCredentials
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		return aws.Credentials{}, fmt.Errorf("role %s: %w", role, err)
	}
	return c.credentials("EC2 instance role " + role)
}

// call makes one metadata request: PUT for a session token, GET with it for the rest.
func (r *IMDS) call(ctx context.Context, method, url, token string) (string, error) {
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
