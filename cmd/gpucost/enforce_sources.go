package main

import (
	"github.com/gpucost/gpucost/enforce"
	enforceaws "github.com/gpucost/gpucost/enforce/aws"
	"github.com/gpucost/gpucost/enforce/clouds"
	"github.com/gpucost/gpucost/enforce/kube"
	"github.com/gpucost/gpucost/notify"
	"github.com/spf13/cobra"
)

// inventoryFlags say where the resources policies act on are listed: AWS regions, a Kubernetes
// cluster, GCE projects and Azure subscriptions, and the credentials to use for them.
type inventoryFlags struct {
	regions        []string
	awsProfile     string
	awsEndpoint    string
	noSageMaker    bool
	kubeServer     string
	kubeTokenFile  string
	kubeCAFile     string
	kubeNamespaces []string
	kubeSelector   string
	kubeSTS        bool
	kubeconfig     string
	kubeContext    string
	kubeAuto       bool
	gceProjects    []string
	gceEndpoint    string
	azureSubs      []string
	azureEndpoint  string
}

func (f *inventoryFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&f.regions, "aws-region", nil, "AWS regions whose EC2 instances and SageMaker endpoints are listed (repeat or comma-separate)")
	cmd.Flags().StringVar(&f.awsProfile, "aws-profile", "", "AWS profile of ~/.aws/config to take credentials from (static keys, a role, SSO); beats $AWS_PROFILE and the environment's keys")
	cmd.Flags().StringVar(&f.awsEndpoint, "aws-endpoint", "", "one URL for the EC2 and SageMaker APIs instead of AWS's (a proxy or a test server); default $AWS_ENDPOINT_URL")
	cmd.Flags().BoolVar(&f.noSageMaker, "no-sagemaker", false, "list EC2 instances only, not SageMaker endpoints")
	cmd.Flags().StringVar(&f.kubeServer, "kube-server", "", "Kubernetes API server URL whose GPU Deployments are listed, such as https://10.0.0.1:6443")
	cmd.Flags().StringVar(&f.kubeTokenFile, "kube-token-file", "", "file holding the Kubernetes bearer token (else $GPUCOST_KUBE_TOKEN)")
	cmd.Flags().StringVar(&f.kubeCAFile, "kube-ca-file", "", "PEM file of the CA that signed the API server's certificate")
	cmd.Flags().StringSliceVar(&f.kubeNamespaces, "kube-namespace", nil, "namespaces to list (default: all)")
	cmd.Flags().StringVar(&f.kubeSelector, "kube-selector", "", "label selector the Deployments must match, such as team=research")
	cmd.Flags().BoolVar(&f.kubeSTS, "kube-statefulsets", false, "list the GPU StatefulSets too (Kubeflow Notebook servers), for idle and off-hours policies")
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig file of the cluster whose GPU Deployments are listed (default: $KUBECONFIG, ~/.kube/config)")
	cmd.Flags().StringVar(&f.kubeContext, "context", "", "kubeconfig context of that cluster (default: its current-context)")
	cmd.Flags().BoolVar(&f.kubeAuto, "kube", false, "list the GPU Deployments of the cluster kubectl would use, or of the pod's own cluster (its service account) when run in one")
	cmd.Flags().StringSliceVar(&f.gceProjects, "gce-project", nil, "GCE projects whose GPU VMs are listed, stopped and started (Application Default Credentials, or $GPUCOST_GCE_TOKEN)")
	cmd.Flags().StringVar(&f.gceEndpoint, "gce-endpoint", "", "one URL for the Compute Engine API instead of Google's (a proxy or a test server)")
	cmd.Flags().StringVar(&f.azureEndpoint, "azure-endpoint", "", "one URL for Azure Resource Manager instead of Azure's (a proxy or a test server)")
	cmd.Flags().StringSliceVar(&f.azureSubs, "azure-subscription", nil, "Azure subscriptions whose VMs are listed, deallocated and started (Azure CLI, managed identity or service principal, or $GPUCOST_AZURE_TOKEN)")
}

// enforceSources are the inventories and actuators the flags configure, and the secrets the
// runner keeps out of its log.
type enforceSources struct {
	inventories []enforce.Inventory
	actuators   map[string]enforce.Actuator
	aws         *enforceaws.Client
	secrets     []string
}

// sources opens the clouds the flags name (clouds.Config.Open).
func (f *inventoryFlags) sources(e *env) (*enforceSources, error) {
	c, err := clouds.Config{AWSRegions: f.regions, AWSProfile: f.awsProfile, AWSEndpoint: f.awsEndpoint, NoSageMaker: f.noSageMaker,
		Kube: kube.Config{Server: f.kubeServer, TokenFile: f.kubeTokenFile, CAFile: f.kubeCAFile, Namespaces: f.kubeNamespaces,
			Selector: f.kubeSelector, Kubeconfig: f.kubeconfig, Context: f.kubeContext},
		KubeAuto: f.kubeAuto, KubeStatefulSets: f.kubeSTS, GCEProjects: f.gceProjects, GCEEndpoint: f.gceEndpoint,
		AzureSubscriptions: f.azureSubs, AzureEndpoint: f.azureEndpoint, Getenv: e.getenv}.Open()
	if err != nil {
		return nil, err
	}
	return &enforceSources{inventories: c.Inventories, actuators: c.Actuators, aws: c.AWS, secrets: c.Secrets}, nil
}

// runner returns the runner that carries plans out with these adapters, logging every action
// in db's action log and those carried out in its audit trail, as cliActor; with targets,
// notify actions go through db's delivery log, once per key.
func (s *enforceSources) runner(e *env, db storeDB, targets map[string]notify.Target) *enforce.Runner {
	r := &enforce.Runner{Actuators: s.actuators, Log: enforce.Log{Store: db}, Now: e.now, Secrets: s.secrets,
		Audit: db, Actor: cliActor(), Source: "cli"}
	if targets != nil {
		r.Notifier = &notify.Dispatcher{Targets: targets, Log: db, MaxAttempts: 3}
	}
	return r
}

// given reports whether any inventory flag is set.
func (f *inventoryFlags) given() bool {
	return len(f.regions) > 0 || f.awsProfile != "" || f.kubeconfig != "" || f.kubeContext != "" || f.kubeAuto || f.awsEndpoint != "" || f.noSageMaker || f.kubeServer != "" || f.kubeTokenFile != "" ||
		f.kubeCAFile != "" || len(f.kubeNamespaces) > 0 || f.kubeSelector != "" || f.kubeSTS ||
		len(f.gceProjects) > 0 || f.gceEndpoint != "" || len(f.azureSubs) > 0 || f.azureEndpoint != ""
}
