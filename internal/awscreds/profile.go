package awscreds

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
)

// maxRoleChain bounds source_profile chains, which could otherwise loop.
const maxRoleChain = 5

// profileKeys returns the keys of profile name: those of the config file's [profile name] (or
// [default]) overlaid with the credentials file's [name], as the SDK merges them.
func (c *Chain) profileKeys(name string) (section, map[string]section, error) {
	cfg, err := readINI(c.configFile())
	if err != nil {
		return nil, nil, gpucost.Errorf(gpucost.EInvalid, "read %s: %w", c.configFile(), err)
	}
	creds, err := readINI(c.credentialsFile())
	if err != nil {
		return nil, nil, gpucost.Errorf(gpucost.EInvalid, "read %s: %w", c.credentialsFile(), err)
	}
	keys := section{}
	head := "profile " + name
	if name == "default" && cfg[head] == nil {
		head = "default"
	}
	for k, v := range cfg[head] {
		keys[k] = v
	}
	for k, v := range creds[name] {
		keys[k] = v
	}
	return keys, cfg, nil
}

// profile resolves profile name: a role to assume first, then static keys, then SSO, then a
// credential_process. A profile that does not exist or names none of these is errNotSet.
func (c *Chain) profile(ctx context.Context, name string, depth int) (aws.Credentials, error) {
	if depth > maxRoleChain {
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "source_profile chains more than %d profiles; is there a loop?", maxRoleChain)
	}
	p, cfg, err := c.profileKeys(name)
	if err != nil {
		return aws.Credentials{}, err
	}
	region := cmp.Or(p["region"], c.region())
	switch {
	case p["role_arn"] != "" && depth == 0 || p["role_arn"] != "" && p["aws_access_key_id"] == "":
		return c.assumeRoleProfile(ctx, name, p, region, depth)
	case p["aws_access_key_id"] != "" || p["aws_secret_access_key"] != "":
		if p["aws_access_key_id"] == "" || p["aws_secret_access_key"] == "" {
			return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "profile %s has one of aws_access_key_id and aws_secret_access_key without the other; set both", name)
		}
		return aws.Credentials{AccessKeyID: p["aws_access_key_id"], SecretAccessKey: p["aws_secret_access_key"],
			SessionToken: p["aws_session_token"], Source: "profile " + name}, nil
	case p["sso_session"] != "" || p["sso_start_url"] != "":
		return c.sso(ctx, name, p, cfg)
	case p["credential_process"] != "":
		return c.process(ctx, name, p["credential_process"])
	}
	return aws.Credentials{}, errNotSet
}

// assumeRoleProfile assumes the role of a profile with the credentials of its source_profile,
// its credential_source, or its web_identity_token_file.
func (c *Chain) assumeRoleProfile(ctx context.Context, name string, p section, region string, depth int) (aws.Credentials, error) {
	role := p["role_arn"]
	if file := p["web_identity_token_file"]; file != "" {
		return c.webIdentity(ctx, file, role, p["role_session_name"], region)
	}
	var src aws.Credentials
	var err error
	switch cs := p["credential_source"]; {
	case p["source_profile"] != "":
		src, err = c.profile(ctx, p["source_profile"], depth+1)
		if err == errNotSet {
			err = gpucost.Errorf(gpucost.EInvalid, "profile %s: its source_profile %s has no credentials", name, p["source_profile"])
		}
	case cs == "Environment":
		src, err = c.env(ctx)
	case cs == "Ec2InstanceMetadata":
		src, err = c.instanceRole(ctx)
	case cs == "EcsContainer":
		src, err = c.container(ctx)
	case cs != "":
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "profile %s: credential_source %q is not Environment, Ec2InstanceMetadata or EcsContainer", name, cs)
	default:
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "profile %s: role_arn needs source_profile, credential_source or web_identity_token_file", name)
	}
	if err == errNotSet {
		err = gpucost.Errorf(gpucost.EInvalid, "profile %s: credential_source %s has no credentials", name, p["credential_source"])
	}
	if err != nil {
		return aws.Credentials{}, err
	}
	params := url.Values{"RoleArn": {role}, "RoleSessionName": {cmp.Or(p["role_session_name"], c.sessionName())}}
	if v := p["external_id"]; v != "" {
		params.Set("ExternalId", v)
	}
	if v := p["duration_seconds"]; v != "" {
		params.Set("DurationSeconds", v)
	}
	return c.sts(ctx, "AssumeRole", region, params, &src, "role "+role+" (profile "+name+")")
}

func (c *Chain) sessionName() string {
	return "gpucost-" + strconv.FormatInt(c.now().UnixNano(), 10)
}

// ssoToken is the part of a file in ~/.aws/sso/cache that is read.
type ssoToken struct {
	AccessToken string    `json:"accessToken"`
	ExpiresAt   time.Time `json:"expiresAt"`
}

// sso exchanges the IAM Identity Center token "aws sso login" cached for the role credentials
// of the profile's sso_account_id and sso_role_name. The cache file is named by the SHA-1 of
// the sso_session's name, or of sso_start_url for a profile in the legacy form.
func (c *Chain) sso(ctx context.Context, name string, p section, cfg map[string]section) (aws.Credentials, error) {
	key, region := p["sso_start_url"], p["sso_region"]
	if s := p["sso_session"]; s != "" {
		sess := cfg["sso-session "+s]
		if sess == nil {
			return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "profile %s: sso_session %s has no [sso-session %s] section in %s", name, s, s, c.configFile())
		}
		key, region = s, cmp.Or(sess["sso_region"], region)
	}
	if p["sso_account_id"] == "" || p["sso_role_name"] == "" || region == "" {
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "profile %s: SSO needs sso_account_id, sso_role_name and sso_region; run aws configure sso --profile %s", name, name)
	}
	sum := sha1.Sum([]byte(key))
	path := c.awsFile("sso", "cache", hex.EncodeToString(sum[:])+".json")
	login := gpucost.Errorf(gpucost.EInvalid, "profile %s: no current SSO login in %s; run aws sso login --profile %s", name, path, name)
	b, err := os.ReadFile(path)
	if err != nil {
		return aws.Credentials{}, login
	}
	var tok ssoToken
	if json.Unmarshal(b, &tok) != nil || tok.AccessToken == "" || !c.now().Before(tok.ExpiresAt) {
		return aws.Credentials{}, login
	}
	base := cmp.Or(c.SSOEndpoint, "https://portal.sso."+region+".amazonaws.com")
	q := url.Values{"account_id": {p["sso_account_id"]}, "role_name": {p["sso_role_name"]}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/federation/credentials?"+q.Encode(), nil)
	if err != nil {
		return aws.Credentials{}, err
	}
	req.Header.Set("x-amz-sso_bearer_token", tok.AccessToken)
	var out struct {
		RoleCredentials struct {
			AccessKeyID     string `json:"accessKeyId"`
			SecretAccessKey string `json:"secretAccessKey"`
			SessionToken    string `json:"sessionToken"`
			Expiration      int64  `json:"expiration"` // milliseconds since the epoch
		} `json:"roleCredentials"`
	}
	if err := getJSON(c.http(), req, &out); err != nil {
		return aws.Credentials{}, fmt.Errorf("SSO GetRoleCredentials for account %s role %s: %w (run aws sso login --profile %s if the login lapsed)",
			p["sso_account_id"], p["sso_role_name"], err, name)
	}
	rc := out.RoleCredentials
	return aws.Credentials{AccessKeyID: rc.AccessKeyID, SecretAccessKey: rc.SecretAccessKey, SessionToken: rc.SessionToken,
		Source: "SSO profile " + name, CanExpire: rc.Expiration > 0, Expires: time.UnixMilli(rc.Expiration)}, nil
}

// process runs a profile's credential_process and reads its JSON (Version 1).
func (c *Chain) process(ctx context.Context, name, command string) (aws.Credentials, error) {
	var cmd *exec.Cmd
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd.exe", "/C", command)
	} else {
		cmd = exec.CommandContext(ctx, "sh", "-c", command)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "profile %s: credential_process failed: %v: %s", name, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var out struct {
		Version         int
		AccessKeyID     string `json:"AccessKeyId"`
		SecretAccessKey string
		SessionToken    string
		Expiration      *time.Time
	}
	if err := json.Unmarshal(b, &out); err != nil || out.Version != 1 || out.AccessKeyID == "" || out.SecretAccessKey == "" {
		return aws.Credentials{}, gpucost.Errorf(gpucost.EInvalid, "profile %s: credential_process did not print Version 1 JSON with AccessKeyId and SecretAccessKey", name)
	}
	creds := aws.Credentials{AccessKeyID: out.AccessKeyID, SecretAccessKey: out.SecretAccessKey, SessionToken: out.SessionToken,
		Source: "credential_process of profile " + name}
	if out.Expiration != nil {
		creds.CanExpire, creds.Expires = true, *out.Expiration
	}
	return creds, nil
}
