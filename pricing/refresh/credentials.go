package refresh

import (
	"context"
	"errors"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/awscreds"
	"github.com/gpucost/gpucost/internal/gcpcreds"
)

// CredentialCheck bounds how long the first credential request of a chain may take (an
// instance role, STS, a token endpoint), so that a misconfigured source fails at start.
const CredentialCheck = 30 * time.Second

// CloudBillingScope is the scope of the tokens the Cloud Billing Catalog API is asked with.
const CloudBillingScope = "https://www.googleapis.com/auth/cloud-platform"

// AWSCredentials is the AWS credential chain for the Price List and EC2 APIs (profile, else
// the environment getenv reads, web identity, the default profile, the container or instance
// role), checked once now (CredentialCheck). With none configured, only a mirror is asked,
// unsigned.
func AWSCredentials(getenv func(string) string, profile string, mirror bool) (aws.CredentialsProvider, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CredentialCheck)
	defer cancel()
	creds := aws.NewCredentialsCache(&awscreds.Chain{Getenv: getenv, Profile: profile})
	if _, err := creds.Retrieve(ctx); err != nil {
		if mirror && errors.Is(err, awscreds.ErrNone) {
			return aws.AnonymousCredentials{}, nil
		}
		return nil, gpucost.Errorf(gpucost.ErrorCode(err), "the AWS Price List API needs credentials with pricing:GetProducts and ec2:DescribeSpotPriceHistory: "+
			"set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, pass --aws-profile, or run with an IAM role: %w", err)
	}
	return creds, nil
}

// GCPTokens is Application Default Credentials for the Cloud Billing Catalog API when no API
// key is set, checked once now (CredentialCheck). With none configured, only a mirror is asked,
// unsigned (nil).
func GCPTokens(getenv func(string) string, mirror bool) (func(context.Context) (string, error), error) {
	chain := &gcpcreds.Chain{Getenv: getenv, Scope: CloudBillingScope}
	ctx, cancel := context.WithTimeout(context.Background(), CredentialCheck)
	defer cancel()
	if _, err := chain.Token(ctx); err != nil {
		if mirror && errors.Is(err, gcpcreds.ErrNone) {
			return nil, nil
		}
		return nil, gpucost.Errorf(gpucost.ErrorCode(err), "the Cloud Billing Catalog API needs an API key or Google Cloud credentials: "+
			"set GPUCOST_GCP_API_KEY, or run gcloud auth application-default login: %w", err)
	}
	return chain.Token, nil
}
