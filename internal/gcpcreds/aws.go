package gcpcreds

import (
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// defaultVerificationURL is where an AWS-sourced subject token asks AWS who it is.
const defaultVerificationURL = "https://sts.{region}.amazonaws.com?Action=GetCallerIdentity&Version=2011-06-15"

// awsKeys are AWS credentials for signing the GetCallerIdentity request.
type awsKeys struct {
	AccessKeyID     string `json:"AccessKeyId"`
	SecretAccessKey string `json:"SecretAccessKey"`
	Token           string `json:"Token"`
}

// awsSubject is the subject token of an AWS-sourced external account (environment_id aws1),
// as Google's client libraries make it: a GetCallerIdentity request to AWS STS in the
// region, signed with SigV4 by the AWS credentials of the environment (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN; AWS_REGION or AWS_DEFAULT_REGION) or else of the
// EC2 instance role through the configuration's metadata URLs (IMDSv2 when
// imdsv2_session_token_url is set), with the audience in x-goog-cloud-target-resource; the
// request's URL, method and headers, as JSON, URL-encoded. Google's STS sends it to AWS.
func (c *Chain) awsSubject(ctx context.Context, x externalAccount) (string, error) {
	src := x.CredentialSource
	if src.EnvironmentID != "aws1" {
		return "", gpucost.Errorf(gpucost.EInvalid, "external_account environment_id %q: gpucost reads aws1", src.EnvironmentID)
	}
	region := cmp.Or(c.getenv("AWS_REGION"), c.getenv("AWS_DEFAULT_REGION"))
	keys := awsKeys{AccessKeyID: c.getenv("AWS_ACCESS_KEY_ID"), SecretAccessKey: c.getenv("AWS_SECRET_ACCESS_KEY"), Token: c.getenv("AWS_SESSION_TOKEN")}
	fromEnv := region != "" && keys.AccessKeyID != "" && keys.SecretAccessKey != ""
	if !fromEnv {
		md := imds{c: c}
		if src.IMDSv2SessionTokenURL != "" {
			if err := md.session(ctx, src.IMDSv2SessionTokenURL); err != nil {
				return "", err
			}
		}
		if keys.AccessKeyID == "" || keys.SecretAccessKey == "" {
			var err error
			if keys, err = md.roleKeys(ctx, src.URL); err != nil {
				return "", err
			}
		}
		if region == "" {
			zone, err := md.get(ctx, src.RegionURL, "the AWS region (credential_source.region_url)")
			if err != nil {
				return "", err
			}
			if len(zone) < 2 {
				return "", gpucost.Errorf(gpucost.EUnavailable, "credential_source.region_url answered %q, not an availability zone", zone)
			}
			region = zone[:len(zone)-1]
		}
	}
	u := strings.Replace(cmp.Or(src.RegionalCredVerificationURL, defaultVerificationURL), "{region}", region, 1)
	req, err := http.NewRequest(http.MethodPost, u, nil)
	if err != nil {
		return "", gpucost.Errorf(gpucost.EInvalid, "credential_source.regional_cred_verification_url: %v", err)
	}
	req.Header.Set("x-goog-cloud-target-resource", x.Audience)
	signSigV4(req, keys, region, c.now())
	type header struct {
		Key   string `json:"key"`
		Value string `json:"value"`
	}
	out := struct {
		URL     string   `json:"url"`
		Method  string   `json:"method"`
		Headers []header `json:"headers"`
	}{URL: req.URL.String(), Method: http.MethodPost}
	for k, vs := range req.Header {
		for _, v := range vs {
			out.Headers = append(out.Headers, header{k, v})
		}
	}
	slices.SortFunc(out.Headers, func(a, b header) int { return cmp.Or(strings.Compare(a.Key, b.Key), strings.Compare(a.Value, b.Value)) })
	b, _ := json.Marshal(out)
	return url.QueryEscape(string(b)), nil
}

// signSigV4 signs req, whose body is empty, for the service its host names (sts): Host,
// X-Amz-Date and X-Amz-Security-Token are set and signed with every other header.
func signSigV4(req *http.Request, keys awsKeys, region string, now time.Time) {
	now = now.UTC()
	req.Header.Set("Host", req.URL.Host)
	req.Header.Set("X-Amz-Date", now.Format("20060102T150405Z"))
	if keys.Token != "" {
		req.Header.Set("X-Amz-Security-Token", keys.Token)
	}
	var names []string
	canon := map[string]string{}
	for k, vs := range req.Header {
		n := strings.ToLower(k)
		names = append(names, n)
		canon[n] = strings.Join(vs, ",")
	}
	slices.Sort(names)
	var headers strings.Builder
	for _, n := range names {
		headers.WriteString(n + ":" + strings.TrimSpace(canon[n]) + "\n")
	}
	signed := strings.Join(names, ";")
	path := req.URL.EscapedPath()
	if path == "" {
		path = "/"
	}
	empty := sha256.Sum256(nil)
	canonical := strings.Join([]string{req.Method, path, req.URL.Query().Encode(), headers.String(), signed, hex.EncodeToString(empty[:])}, "\n")
	service, _, _ := strings.Cut(req.URL.Host, ".")
	day := now.Format("20060102")
	scope := day + "/" + region + "/" + service + "/aws4_request"
	sum := sha256.Sum256([]byte(canonical))
	toSign := "AWS4-HMAC-SHA256\n" + now.Format("20060102T150405Z") + "\n" + scope + "\n" + hex.EncodeToString(sum[:])
	key := []byte("AWS4" + keys.SecretAccessKey)
	for _, part := range []string{day, region, service, "aws4_request", toSign} {
		m := hmac.New(sha256.New, key)
		m.Write([]byte(part))
		key = m.Sum(nil)
	}
	req.Header.Set("Authorization", fmt.Sprintf("AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=%s, Signature=%s", keys.AccessKeyID, scope, signed, hex.EncodeToString(key)))
}

// imds reads the EC2 instance metadata an AWS-sourced configuration names, with an IMDSv2
// session token once it has one.
type imds struct {
	c     *Chain
	token string
}

// session gets an IMDSv2 session token.
func (m *imds) session(ctx context.Context, u string) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, u, nil)
	if err != nil {
		return gpucost.Errorf(gpucost.EInvalid, "credential_source.imdsv2_session_token_url: %v", err)
	}
	req.Header.Set("X-aws-ec2-metadata-token-ttl-seconds", "300")
	tok, err := m.do(req, "an IMDSv2 session token")
	m.token = tok
	return err
}

// roleKeys gets the instance role's credentials: its name from u, then u/NAME.
func (m *imds) roleKeys(ctx context.Context, u string) (awsKeys, error) {
	if u == "" {
		return awsKeys{}, gpucost.Errorf(gpucost.EInvalid, "no AWS credentials for the AWS-sourced external_account: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "+
			"or run on EC2 with credential_source.url naming the metadata server's security-credentials")
	}
	role, err := m.get(ctx, u, "the EC2 instance role's name (credential_source.url)")
	if err != nil {
		return awsKeys{}, err
	}
	body, err := m.get(ctx, strings.TrimRight(u, "/")+"/"+strings.TrimSpace(role), "the EC2 instance role's credentials")
	if err != nil {
		return awsKeys{}, err
	}
	var k awsKeys
	if err := json.Unmarshal([]byte(body), &k); err != nil || k.AccessKeyID == "" || k.SecretAccessKey == "" {
		return awsKeys{}, gpucost.Errorf(gpucost.EUnavailable, "the EC2 instance role's credentials answer has no AccessKeyId and SecretAccessKey")
	}
	return k, nil
}

func (m *imds) get(ctx context.Context, u, what string) (string, error) {
	if u == "" {
		return "", gpucost.Errorf(gpucost.EInvalid, "the AWS-sourced external_account names no URL for %s; set AWS_REGION, or write the configuration again with gcloud iam workload-identity-pools create-cred-config --aws", what)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return "", gpucost.Errorf(gpucost.EInvalid, "%s: %v", what, err)
	}
	if m.token != "" {
		req.Header.Set("X-aws-ec2-metadata-token", m.token)
	}
	return m.do(req, what)
}

func (m *imds) do(req *http.Request, what string) (string, error) {
	res, err := m.c.http().Do(req)
	if err != nil {
		return "", gpucost.Errorf(gpucost.EUnavailable, "get %s from %s: %v", what, req.URL.Host, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if err != nil {
		return "", err
	}
	if res.StatusCode != http.StatusOK {
		return "", gpucost.Errorf(gpucost.EUnavailable, "get %s: %s answered HTTP %d", what, req.URL.Host, res.StatusCode)
	}
	return string(b), nil
}
