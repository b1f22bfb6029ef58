// Package clouds opens the clouds enforcement lists and acts on, as gpucost enforce's and
// serve's inventory flags name them: EC2 and SageMaker in AWS regions, a Kubernetes cluster's
// GPU Deployments and StatefulSets, GCE projects and Azure subscriptions, each with the
// credentials its cloud's own tools would find (docs/architecture.md "Credentials").
package clouds

import (
	"context"
	"net/http"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/enforce"
	enforceaws "github.com/gpucost/gpucost/enforce/aws"
	"github.com/gpucost/gpucost/enforce/azure"
	"github.com/gpucost/gpucost/enforce/gce"
	"github.com/gpucost/gpucost/enforce/kube"
	"github.com/gpucost/gpucost/internal/awscreds"
	"github.com/gpucost/gpucost/internal/azurecreds"
	"github.com/gpucost/gpucost/internal/gcpcreds"
)

// CredentialCheck bounds how long the first credential request of a chain may take (an
// instance role, STS, an exec plugin), so that a misconfigured source fails at start.
const CredentialCheck = 30 * time.Second

// Config says where the resources policies act on are listed, and with which credentials.
type Config struct {
	AWSRegions  []string
	AWSProfile  string // a profile of ~/.aws/config; beats $AWS_PROFILE and the environment's keys
	AWSEndpoint string // one URL for the EC2 and SageMaker APIs (a proxy or a test server); "" is $AWS_ENDPOINT_URL, else AWS's
	NoSageMaker bool   // list EC2 instances only

	// Kube is the cluster, opened when Kube.Server, Kube.Kubeconfig or Kube.Context is set or
	// KubeAuto; its Token and Getenv are filled from Getenv.
	Kube             kube.Config
	KubeAuto         bool // the cluster kubectl would use, or the pod's own
	KubeStatefulSets bool // list the GPU StatefulSets too

	GCEProjects        []string
	GCEEndpoint        string
	AzureSubscriptions []string
	AzureEndpoint      string

	Getenv func(string) string // the credentials' environment
}

// Clouds are the inventories and actuators a Config opens, and the secrets their credentials
// gave, which a runner keeps out of its log.
type Clouds struct {
	Inventories []enforce.Inventory
	Actuators   map[string]enforce.Actuator // by resource kind
	AWS         *enforceaws.Client          // nil without AWSRegions
	Secrets     []string
}

// Open opens the clouds c names, checking each one's credentials once now.
func (c Config) Open() (*Clouds, error) {
	s := &Clouds{Actuators: map[string]enforce.Actuator{}}
	if len(c.AWSRegions) > 0 {
		creds, secrets, err := c.awsCredentials()
		if err != nil {
			return nil, err
		}
		s.Secrets = append(s.Secrets, secrets...)
		endpoint := c.AWSEndpoint
		if endpoint == "" {
			endpoint = c.Getenv("AWS_ENDPOINT_URL") // the AWS SDKs' variable for every service's endpoint
		}
		s.AWS = &enforceaws.Client{Regions: c.AWSRegions, Credentials: creds, BaseURL: endpoint, SkipSageMaker: c.NoSageMaker,
			HTTP: &http.Client{Timeout: time.Minute}}
		s.Inventories = append(s.Inventories, s.AWS)
		s.Actuators[enforce.KindEC2], s.Actuators[enforce.KindSageMaker] = s.AWS, s.AWS
	}
	if c.Kube.Server != "" || c.Kube.Kubeconfig != "" || c.Kube.Context != "" || c.KubeAuto {
		kc := c.Kube
		kc.Token, kc.Getenv = c.Getenv("GPUCOST_KUBE_TOKEN"), c.Getenv
		k, err := kc.Open()
		if err != nil {
			return nil, err
		}
		k.StatefulSets = c.KubeStatefulSets
		s.Secrets = append(s.Secrets, k.Token)
		s.Inventories = append(s.Inventories, k)
		s.Actuators[enforce.KindDeployment], s.Actuators[enforce.KindStatefulSet] = k, k
	}
	return s, c.openVMs(s)
}

// openVMs adds the GCE and Azure adapters c names; their bearer tokens come from
// $GPUCOST_GCE_TOKEN and $GPUCOST_AZURE_TOKEN when set, else from the credential chains.
func (c Config) openVMs(s *Clouds) error {
	if len(c.GCEProjects) > 0 {
		tokens, tok, err := c.bearer("GPUCOST_GCE_TOKEN", (&gcpcreds.Chain{Getenv: c.Getenv}).Token)
		if err != nil {
			return gpucost.Errorf(gpucost.ErrorCode(err), "--gce-project: the Compute Engine API needs a token with compute.instances.list, .stop and .start: %w", err)
		}
		g := &gce.Client{Projects: c.GCEProjects, Tokens: tokens, BaseURL: c.GCEEndpoint, HTTP: &http.Client{Timeout: time.Minute}}
		s.Secrets = append(s.Secrets, tok)
		s.Inventories = append(s.Inventories, g)
		s.Actuators[enforce.KindGCE] = g
	}
	if len(c.AzureSubscriptions) > 0 {
		tokens, tok, err := c.bearer("GPUCOST_AZURE_TOKEN", (&azurecreds.Chain{Getenv: c.Getenv}).Token)
		if err != nil {
			return gpucost.Errorf(gpucost.ErrorCode(err), "--azure-subscription: Azure Resource Manager needs a token with the Virtual Machine Contributor role: %w", err)
		}
		a := &azure.Client{Subscriptions: c.AzureSubscriptions, Tokens: tokens, BaseURL: c.AzureEndpoint, HTTP: &http.Client{Timeout: time.Minute}}
		s.Secrets = append(s.Secrets, tok)
		s.Inventories = append(s.Inventories, a)
		s.Actuators[enforce.KindAzureVM] = a
	}
	return nil
}

// awsCredentials returns the AWS credential chain for AWSProfile, checked once now, and the
// secrets it gave.
func (c Config) awsCredentials() (aws.CredentialsProvider, []string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), CredentialCheck)
	defer cancel()
	creds := aws.NewCredentialsCache(&awscreds.Chain{Getenv: c.Getenv, Profile: c.AWSProfile})
	v, err := creds.Retrieve(ctx)
	if err != nil {
		return nil, nil, gpucost.Errorf(gpucost.ErrorCode(err), "--aws-region: the EC2 and SageMaker APIs need credentials (an IAM role with ec2:DescribeInstances, "+
			"ec2:StopInstances, ec2:StartInstances, ec2:CreateTags, sagemaker:List*, sagemaker:Describe*, sagemaker:AddTags, sagemaker:UpdateInferenceComponentRuntimeConfig "+
			"and, to scale endpoints back, sagemaker:UpdateEndpointWeightsAndCapacities): %w", err)
	}
	return creds, []string{v.SecretAccessKey, v.SessionToken}, nil
}

// bearer returns how a cloud's bearer token is got: the variable's fixed token when set, else
// the chain's, renewed before it expires; and the first token, checked now, as a secret.
func (c Config) bearer(variable string, chain func(context.Context) (string, error)) (func(context.Context) (string, error), string, error) {
	if tok := c.Getenv(variable); tok != "" {
		return func(context.Context) (string, error) { return tok, nil }, tok, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), CredentialCheck)
	defer cancel()
	tok, err := chain(ctx)
	return chain, tok, err
}
