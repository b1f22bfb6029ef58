package clouds

import (
	"slices"
	"testing"

	"github.com/gpucost/gpucost/enforce"
	"github.com/gpucost/gpucost/enforce/kube"
)

// TestOpen: each cloud named opens its adapter as the inventory and the actuator of its kinds,
// with the secrets its credentials gave; none named opens none.
func TestOpen(t *testing.T) {
	env := map[string]string{"AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "aws-secret", "AWS_EC2_METADATA_DISABLED": "true",
		"GPUCOST_KUBE_TOKEN": "kube-token", "GPUCOST_GCE_TOKEN": "gce-token", "GPUCOST_AZURE_TOKEN": "azure-token"}
	getenv := func(k string) string { return env[k] }

	none, err := Config{Getenv: getenv}.Open()
	if err != nil || len(none.Inventories) != 0 || len(none.Actuators) != 0 || none.AWS != nil {
		t.Errorf("Open(no cloud) = %+v, %v; want none", none, err)
	}

	c, err := Config{AWSRegions: []string{"us-east-1"}, Kube: kube.Config{Server: "https://10.0.0.1:6443"}, KubeStatefulSets: true,
		GCEProjects: []string{"p"}, AzureSubscriptions: []string{"s"}, Getenv: getenv}.Open()
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Inventories) != 4 || c.AWS == nil || c.AWS.Regions[0] != "us-east-1" {
		t.Errorf("Open(every cloud) = %d inventories, AWS %+v; want 4, AWS in us-east-1", len(c.Inventories), c.AWS)
	}
	for _, kind := range []string{enforce.KindEC2, enforce.KindSageMaker, enforce.KindDeployment, enforce.KindStatefulSet, enforce.KindGCE, enforce.KindAzureVM} {
		if c.Actuators[kind] == nil {
			t.Errorf("Open(every cloud) has no actuator of %s", kind)
		}
	}
	for _, secret := range []string{"aws-secret", "kube-token", "gce-token", "azure-token"} {
		if !slices.Contains(c.Secrets, secret) {
			t.Errorf("Open(every cloud).Secrets = %q; want %q kept out of logs", c.Secrets, secret)
		}
	}

	env["AWS_ENDPOINT_URL"] = "http://127.0.0.1:4566"
	viaEnv, err := Config{AWSRegions: []string{"us-east-1"}, Getenv: getenv}.Open()
	if err != nil || viaEnv.AWS.BaseURL != "http://127.0.0.1:4566" {
		t.Errorf("Open with AWS_ENDPOINT_URL: %v, base URL %q; want the variable's", err, viaEnv.AWS.BaseURL)
	}
	flag, err := Config{AWSRegions: []string{"us-east-1"}, AWSEndpoint: "http://127.0.0.1:9", Getenv: getenv}.Open()
	if err != nil || flag.AWS.BaseURL != "http://127.0.0.1:9" {
		t.Errorf("Open with --aws-endpoint and AWS_ENDPOINT_URL: %v, base URL %q; want the flag's", err, flag.AWS.BaseURL)
	}
}
