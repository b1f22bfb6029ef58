package awscreds

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/awsrpc"
)

// stsVersion is the STS query API version.
const stsVersion = "2011-06-15"

// webIdentityEnv is the EKS IRSA and GitHub OIDC source: AWS_WEB_IDENTITY_TOKEN_FILE and
// AWS_ROLE_ARN, with AWS_ROLE_SESSION_NAME.
func (c *Chain) webIdentityEnv(ctx context.Context) (aws.Credentials, error) {
	file, role := c.getenv("AWS_WEB_IDENTITY_TOKEN_FILE"), c.getenv("AWS_ROLE_ARN")
	if file == "" && role == "" {
		return aws.Credentials{}, errNotSet
	}
	if file == "" || role == "" {
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "set both AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN, or neither")
	}
	return c.webIdentity(ctx, file, role, c.getenv("AWS_ROLE_SESSION_NAME"), c.region())
}

// webIdentity exchanges the token in file for the role's credentials with STS
// AssumeRoleWithWebIdentity, an unsigned request. The file is read on every call, as the
// token in it is rotated.
func (c *Chain) webIdentity(ctx context.Context, file, role, session, region string) (aws.Credentials, error) {
	tok, err := os.ReadFile(file)
	if err != nil {
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "read the web identity token: %w", err)
	}
	params := url.Values{"RoleArn": {role}, "RoleSessionName": {cmp.Or(session, c.sessionName())},
		"WebIdentityToken": {strings.TrimSpace(string(tok))}}
	return c.sts(ctx, "AssumeRoleWithWebIdentity", region, params, nil, "web identity role "+role)
}

// stsCredentials are the Credentials element of an STS answer.
type stsCredentials struct {
	AccessKeyID     string    `xml:"AccessKeyId"`
	SecretAccessKey string    `xml:"SecretAccessKey"`
	SessionToken    string    `xml:"SessionToken"`
	Expiration      time.Time `xml:"Expiration"`
}

// sts calls an STS action in region, signed with src unless it is nil.
func (c *Chain) sts(ctx context.Context, action, region string, params url.Values, src *aws.Credentials, source string) (aws.Credentials, error) {
	client := &awsrpc.Client{Service: "sts", Host: "sts", Region: region, BaseURL: c.STSEndpoint, HTTP: c.http(), MaxAttempts: 3, Now: c.Now}
	if src != nil {
		client.Credentials = Static(src.AccessKeyID, src.SecretAccessKey, src.SessionToken, src.Source)
	}
	var out struct {
		Role     stsCredentials `xml:"AssumeRoleResult>Credentials"`
		Identity stsCredentials `xml:"AssumeRoleWithWebIdentityResult>Credentials"`
	}
	if err := client.Query(ctx, "STS "+action, action, stsVersion, params, &out); err != nil {
		return aws.Credentials{}, err
	}
	got := out.Role
	if action == "AssumeRoleWithWebIdentity" {
		got = out.Identity
	}
	if got.AccessKeyID == "" {
		return aws.Credentials{}, fmt.Errorf("STS %s answered without credentials", action)
	}
	return aws.Credentials{AccessKeyID: got.AccessKeyID, SecretAccessKey: got.SecretAccessKey, SessionToken: got.SessionToken,
		Source: source, CanExpire: true, Expires: got.Expiration}, nil
}

// container is the ECS and EKS Pod Identity source: AWS_CONTAINER_CREDENTIALS_RELATIVE_URI
// under http://169.254.170.2, or AWS_CONTAINER_CREDENTIALS_FULL_URI with the Authorization
// header from AWS_CONTAINER_AUTHORIZATION_TOKEN or the file AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE.
func (c *Chain) container(ctx context.Context) (aws.Credentials, error) {
	u := c.getenv("AWS_CONTAINER_CREDENTIALS_FULL_URI")
	if rel := c.getenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"); rel != "" {
		u = cmp.Or(c.ECSEndpoint, "http://169.254.170.2") + rel
	}
	if u == "" {
		return aws.Credentials{}, errNotSet
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "container credentials URI: %w", err)
	}
	if c.getenv("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") == "" && !containerHost(req.URL) {
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "AWS_CONTAINER_CREDENTIALS_FULL_URI %s: over http only a loopback address, "+
			"169.254.170.2 or 169.254.170.23 (EKS Pod Identity) may be asked; use https", req.URL.Host)
	}
	auth := c.getenv("AWS_CONTAINER_AUTHORIZATION_TOKEN")
	if f := c.getenv("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE"); f != "" {
		b, err := os.ReadFile(f)
		if err != nil {
			return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: %w", err)
		}
		auth = strings.TrimSpace(string(b))
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	var out roleCredentials
	if err := getJSON(&http.Client{Timeout: 5 * time.Second}, req, &out); err != nil {
		return aws.Credentials{}, fmt.Errorf("container credentials endpoint: %w", err)
	}
	return out.credentials("container role")
}

// containerHost reports whether credentials may be asked of u, as the SDKs allow: any https
// URL, and over http a loopback address or the ECS and EKS agents' link-local addresses.
func containerHost(u *url.URL) bool {
	if u.Scheme == "https" {
		return true
	}
	host := u.Hostname()
	if host == "localhost" || host == "169.254.170.2" || host == "169.254.170.23" || host == "fd00:ec2::23" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// roleCredentials are the JSON the ECS and EC2 metadata endpoints answer with.
type roleCredentials struct {
	Code            string    `json:"Code"`
	AccessKeyID     string    `json:"AccessKeyId"`
	SecretAccessKey string    `json:"SecretAccessKey"`
	Token           string    `json:"Token"`
	Expiration      time.Time `json:"Expiration"`
}

func (r roleCredentials) credentials(source string) (aws.Credentials, error) {
	if r.Code != "" && r.Code != "Success" || r.AccessKeyID == "" {
		return aws.Credentials{}, fmt.Errorf("%s: %s", source, cmp.Or(r.Code, "no access key"))
	}
	return aws.Credentials{AccessKeyID: r.AccessKeyID, SecretAccessKey: r.SecretAccessKey, SessionToken: r.Token,
		Source: source, CanExpire: !r.Expiration.IsZero(), Expires: r.Expiration}, nil
}

// instanceRole asks the EC2 metadata service (IMDSv2) for the instance role's credentials.
// An unreachable service or an instance without a role is errNotSet: the chain's last link.
func (c *Chain) instanceRole(ctx context.Context) (aws.Credentials, error) {
	if strings.EqualFold(c.getenv("AWS_EC2_METADATA_DISABLED"), "true") {
		return aws.Credentials{}, errNotSet
	}
	r := &IMDS{Endpoint: cmp.Or(c.IMDSEndpoint, c.getenv("AWS_EC2_METADATA_SERVICE_ENDPOINT"))}
	creds, err := r.Retrieve(ctx)
	if err != nil {
		return aws.Credentials{}, fmt.Errorf("%w (%v)", errNotSet, err)
	}
	return creds, nil
}

// getJSON sends req and decodes a 200 answer into out.
func getJSON(hc *http.Client, req *http.Request, out any) error {
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return err
	}
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("HTTP %d: %s", res.StatusCode, strings.TrimSpace(string(b[:min(len(b), 200)])))
	}
	return json.Unmarshal(b, out)
}
