// Package awscreds is gpucost's one AWS credential chain, read as the AWS SDKs and CLI read it
// (docs/architecture.md "Credentials"): a profile named with --aws-profile or AWS_PROFILE, else
// the environment's keys, else web identity (AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN), else
// the default profile of ~/.aws/config and ~/.aws/credentials, else the ECS container
// endpoint, else the EC2 instance role through IMDSv2. A profile gives static keys, a role to
// assume (role_arn with source_profile, credential_source or web_identity_token_file), IAM
// Identity Center (SSO) from the token cache "aws sso login" leaves, or a credential_process.
// The requests to STS, the SSO portal and the metadata endpoints are plain HTTP, made here;
// the s3, awsrpc and enforce/aws clients take the Chain as their aws.CredentialsProvider.
package awscreds

import (
	"cmp"
	"context"
	"errors"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/gpucost/gpucost/internal/hooks"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
)

// Chain retrieves AWS credentials from the first source that has them, in the order the
// package comment gives. Its fields replace AWS's endpoints in tests.
type Chain struct {
	Getenv  func(string) string // the environment; nothing set when nil
	Profile string              // --aws-profile, which beats AWS_PROFILE
	HTTP    *http.Client        // for STS and SSO; a client with a one-minute timeout when nil
	Now     func() time.Time    // time.Now when nil

	STSEndpoint  string // replaces https://sts.REGION.amazonaws.com
	SSOEndpoint  string // replaces https://portal.sso.REGION.amazonaws.com
	IMDSEndpoint string // replaces http://169.254.169.254 (AWS_EC2_METADATA_SERVICE_ENDPOINT too)
	ECSEndpoint  string // replaces http://169.254.170.2 for AWS_CONTAINER_CREDENTIALS_RELATIVE_URI
}

var _ aws.CredentialsProvider = (*Chain)(nil)

// errNotSet says that a source is not configured, so the chain goes on to the next one; any
// other error from a configured source ends the chain, as a half-set source is a mistake to
// report rather than to skip.
var errNotSet = errors.New("not set")

// ErrNone is in the error of a chain none of whose sources is configured, so that a caller
// for which credentials are optional (a price mirror) can go on without them.
var ErrNone = errors.New("no AWS credentials")

// Retrieve returns the credentials of the first configured source. When none is configured
// the EInvalid error lists every source tried and what to set.
func (c *Chain) Retrieve(ctx context.Context) (aws.Credentials, error) {
	if p := cmp.Or(c.Profile, c.getenv("AWS_PROFILE")); p != "" {
		creds, err := c.profile(ctx, p, 0)
		if errors.Is(err, errNotSet) {
			return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "AWS profile %s: not in %s or %s, or it names no credentials; "+
				"add it (aws configure --profile %s, or aws configure sso) or pass another --aws-profile", p, c.configFile(), c.credentialsFile(), p)
		}
		return creds, wrap("AWS profile "+p, err)
	}
	var tried []string
	for _, src := range []struct {
		name string
		get  func(context.Context) (aws.Credentials, error)
	}{
		{"the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)", c.env},
		{"web identity (AWS_WEB_IDENTITY_TOKEN_FILE, AWS_ROLE_ARN)", c.webIdentityEnv},
		{"the default profile of " + cmp.Or(c.configFile(), "~/.aws/config (no home directory)") + " and " + cmp.Or(c.credentialsFile(), "~/.aws/credentials"), func(ctx context.Context) (aws.Credentials, error) { return c.profile(ctx, "default", 0) }},
		{"the ECS container endpoint (AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or _FULL_URI)", c.container},
		{"the EC2 instance role (IMDSv2)", c.instanceRole},
	} {
		creds, err := src.get(ctx)
		if err == nil {
			return creds, nil
		}
		if !errors.Is(err, errNotSet) {
			return aws.Credentials{}, wrap(src.name, err)
		}
		tried = append(tried, src.name)
	}
	return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "%w; tried %s. Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "+
		"pass --aws-profile (aws configure, or aws configure sso and aws sso login), or run with an IAM role (EC2, ECS, or EKS with IRSA)", ErrNone, strings.Join(tried, ", "))
}

// wrap names the source of an error; a gpucost error keeps its code, others (a request that
// failed) are EUnavailable.
func wrap(source string, err error) error {
	if err == nil {
		return nil
	}
	code := gpucost.EUnavailable
	var e *gpucost.Error
	if errors.As(err, &e) {
		code = e.Code
	}
	return gpucost.Errorf(code, "AWS credentials from %s: %w", source, err)
}

func (c *Chain) env(context.Context) (aws.Credentials, error) {
	id, secret := c.getenv("AWS_ACCESS_KEY_ID"), c.getenv("AWS_SECRET_ACCESS_KEY")
	if id == "" && secret == "" {
		return aws.Credentials{}, errNotSet
	}
	if id == "" || secret == "" {
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "set both AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or neither")
	}
	return aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: c.getenv("AWS_SESSION_TOKEN"), Source: "environment"}, nil
}

func (c *Chain) getenv(k string) string { return hooks.Getenv(c.Getenv, k) }
func (c *Chain) now() time.Time         { return hooks.Now(c.Now) }
func (c *Chain) http() *http.Client     { return hooks.HTTP(c.HTTP) }

func (c *Chain) home() string { return c.getenv("HOME") }

// awsFile is a file under ~/.aws, or the empty path (no file) without HOME.
func (c *Chain) awsFile(elem ...string) string {
	if c.home() == "" {
		return ""
	}
	return filepath.Join(append([]string{c.home(), ".aws"}, elem...)...)
}

func (c *Chain) configFile() string {
	return cmp.Or(c.getenv("AWS_CONFIG_FILE"), c.awsFile("config"))
}

func (c *Chain) credentialsFile() string {
	return cmp.Or(c.getenv("AWS_SHARED_CREDENTIALS_FILE"), c.awsFile("credentials"))
}

// region is the region STS and SSO are asked in when the profile names none.
func (c *Chain) region() string {
	return cmp.Or(c.getenv("AWS_REGION"), c.getenv("AWS_DEFAULT_REGION"), "us-east-1")
}

// Static returns a provider of fixed keys, as flags or a config file give them.
func Static(id, secret, token, source string) aws.CredentialsProvider {
	creds := aws.Credentials{AccessKeyID: id, SecretAccessKey: secret, SessionToken: token, Source: source}
	return aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) { return creds, nil })
}

// SharedKeys reads the static keys of the profile AWS_PROFILE (default: "default") from the
// shared config and credentials files through getenv. A missing file or profile gives empty
// keys; a profile with one key and not the other is an EInvalid error.
func SharedKeys(getenv func(string) string) (access, secret, token string, err error) {
	c := &Chain{Getenv: getenv}
	name := cmp.Or(getenv("AWS_PROFILE"), "default")
	p, _, err := c.profileKeys(name)
	if err != nil {
		return "", "", "", err
	}
	if (p["aws_access_key_id"] == "") != (p["aws_secret_access_key"] == "") {
		return "", "", "", gpucost.Errorf(gpucost.EInvalid, "AWS profile %s in %s has one of aws_access_key_id and aws_secret_access_key without the other; set both", name, c.credentialsFile())
	}
	return p["aws_access_key_id"], p["aws_secret_access_key"], p["aws_session_token"], nil
}
