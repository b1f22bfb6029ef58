package main

import (
	"context"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/awscreds"
	"github.com/gpucost/gpucost/internal/azurecreds"
	"github.com/gpucost/gpucost/internal/gcpcreds"
)

// credentialCheck bounds how long the first credential request of a chain may take (an
// instance role, STS, an exec plugin), so that a misconfigured source fails at start.
const credentialCheck = 30 * time.Second

// enforceAWS returns the AWS credential chain for --aws-profile, checked once now, and the
// secrets it gave, for the runner to keep out of its log.
func (f *inventoryFlags) enforceAWS(e *env) (aws.CredentialsProvider, []string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), credentialCheck)
	defer cancel()
	creds := aws.NewCredentialsCache(&awscreds.Chain{Getenv: e.getenv, Profile: f.awsProfile})
	c, err := creds.Retrieve(ctx)
	if err != nil {
		return nil, nil, gpucost.Errorf(gpucost.ErrorCode(err), "--aws-region: the EC2 and SageMaker APIs need credentials (an IAM role with ec2:DescribeInstances, "+
			"ec2:StopInstances, ec2:StartInstances, ec2:CreateTags, sagemaker:List*, sagemaker:Describe*, sagemaker:AddTags, sagemaker:UpdateInferenceComponentRuntimeConfig "+
			"and, to scale endpoints back, sagemaker:UpdateEndpointWeightsAndCapacities): %w", err)
	}
	return creds, []string{c.SecretAccessKey, c.SessionToken}, nil
}

// bearer returns how a cloud's bearer token is got: the variable's fixed token when set, else
// the chain's, renewed before it expires; and the first token, checked now, as a secret.
func bearer(e *env, variable string, chain func(context.Context) (string, error)) (func(context.Context) (string, error), string, error) {
	if tok := e.getenv(variable); tok != "" {
		return func(context.Context) (string, error) { return tok, nil }, tok, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), credentialCheck)
	defer cancel()
	tok, err := chain(ctx)
	return chain, tok, err
}

// gceTokens are Application Default Credentials, or $GPUCOST_GCE_TOKEN.
func gceTokens(e *env) (func(context.Context) (string, error), string, error) {
	tokens, first, err := bearer(e, "GPUCOST_GCE_TOKEN", (&gcpcreds.Chain{Getenv: e.getenv}).Token)
	if err != nil {
		return nil, "", gpucost.Errorf(gpucost.ErrorCode(err), "--gce-project: the Compute Engine API needs a token with compute.instances.list, .stop and .start: %w", err)
	}
	return tokens, first, nil
}

// azureTokens are the DefaultAzureCredential order, or $GPUCOST_AZURE_TOKEN.
func azureTokens(e *env) (func(context.Context) (string, error), string, error) {
	tokens, first, err := bearer(e, "GPUCOST_AZURE_TOKEN", (&azurecreds.Chain{Getenv: e.getenv}).Token)
	if err != nil {
		return nil, "", gpucost.Errorf(gpucost.ErrorCode(err), "--azure-subscription: Azure Resource Manager needs a token with the Virtual Machine Contributor role: %w", err)
	}
	return tokens, first, nil
}
