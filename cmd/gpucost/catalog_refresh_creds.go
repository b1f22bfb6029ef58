package main

import (
	"context"
	"errors"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/awscreds"
	"github.com/gpucost/gpucost/internal/gcpcreds"
)

// cloudBillingScope is the scope of the tokens catalog refresh asks the Cloud Billing Catalog
// API with.
const cloudBillingScope = "https://www.googleapis.com/auth/cloud-platform"

// priceAWSCredentials is the AWS credential chain for the Price List and EC2 APIs (profile,
// else the environment, web identity, the default profile, the container or instance role),
// checked once now. With none configured, only a mirror (--base-url) is asked, unsigned.
func (e *env) priceAWSCredentials(profile string, mirror bool) (aws.CredentialsProvider, error) {
	ctx, cancel := context.WithTimeout(context.Background(), credentialCheck)
	defer cancel()
	creds := aws.NewCredentialsCache(&awscreds.Chain{Getenv: e.getenv, Profile: profile})
	if _, err := creds.Retrieve(ctx); err != nil {
		if mirror && errors.Is(err, awscreds.ErrNone) {
			return aws.AnonymousCredentials{}, nil
		}
		return nil, gpucost.Errorf(gpucost.ErrorCode(err), "the AWS Price List API needs credentials with pricing:GetProducts and ec2:DescribeSpotPriceHistory: "+
			"set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, pass --aws-profile, or run with an IAM role: %w", err)
	}
	return creds, nil
}

// priceGCPTokens is Application Default Credentials for the Cloud Billing Catalog API when no
// API key is set, checked once now. With none configured, only a mirror (--base-url) is
// asked, unsigned.
func (e *env) priceGCPTokens(mirror bool) (func(context.Context) (string, error), error) {
	chain := &gcpcreds.Chain{Getenv: e.getenv, Scope: cloudBillingScope}
	ctx, cancel := context.WithTimeout(context.Background(), credentialCheck)
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
