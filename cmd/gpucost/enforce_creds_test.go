package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpucost/gpucost/internal/fakecloud"
)

// TestEnforceCredentialsAsUsersHaveThem runs enforce with an AWS profile and a kubeconfig
// context, and checks that each request carried those credentials rather than the
// environment's, and that no secret reached the output.
func TestEnforceCredentialsAsUsersHaveThem(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	budgets := writeFile(t, dir, "budgets.yaml", demoBudgets)
	policies := writeFile(t, dir, "policies.yaml", enforcePolicies)
	aws, kube := enforceFleet(t)
	home := filepath.Join(dir, "home")
	const profileSecret = "profile-secret-7f3a"
	os.MkdirAll(filepath.Join(home, ".aws"), 0o700)
	os.WriteFile(filepath.Join(home, ".aws", "config"), []byte("[profile gpu-admin]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = "+profileSecret+"\n"), 0o600)
	kubeconfig := writeFile(t, dir, "kubeconfig", fmt.Sprintf(`apiVersion: v1
kind: Config
current-context: staging
clusters:
- {name: prod, cluster: {server: %s}}
contexts:
- {name: prod, context: {cluster: prod, user: admin}}
users:
- {name: admin, user: {token: %s}}
`, kube.URL, enforceKubeToken))
	environ := map[string]string{"HOME": home, "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": enforceAWSSecret}
	run1 := func(args ...string) (int, string) {
		var out, errb bytes.Buffer
		e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return environ[k] },
			now: func() time.Time { return budgetNow }}
		code := run(context.Background(), append([]string{"--db", db, "enforce", "--policies", policies, "--budgets", budgets}, args...), e)
		s := out.String() + errb.String()
		for _, secret := range []string{profileSecret, enforceAWSSecret, enforceKubeToken} {
			if strings.Contains(s, secret) {
				t.Errorf("enforce %v: a secret is in the output:\n%s", args, s)
			}
		}
		return code, s
	}

	code, out := run1("--aws-region", "us-east-1", "--aws-endpoint", aws.URL, "--aws-profile", "gpu-admin", "--kubeconfig", kubeconfig, "--context", "prod")
	if code != exitPolicy {
		t.Fatalf("enforce --aws-profile --kubeconfig --context: exit %d, want %d\n%s", code, exitPolicy, out)
	}
	calls := aws.Calls()
	if len(calls) == 0 || !strings.Contains(calls[0].Authorization, "Credential=AKIDPROFILE/") {
		t.Errorf("the first AWS request's Authorization = %q; want it signed with the profile's key, not the environment's", calls[0].Authorization)
	}
	if kc := kube.Calls(); len(kc) != 1 || kc[0].Authorization != "Bearer "+enforceKubeToken {
		t.Errorf("Kubernetes requests %+v; want one with the prod context's token", kc)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--aws-region", "us-east-1", "--aws-endpoint", aws.URL, "--aws-profile", "nosuch"}, "AWS profile nosuch"},
		{[]string{"--kubeconfig", kubeconfig}, `has no context "staging"`},
		{[]string{"--kubeconfig", kubeconfig, "--context", "dev"}, `has no context "dev"`},
	} {
		if code, out := run1(c.args...); code != exitInvalid || !strings.Contains(out, c.want) {
			t.Errorf("enforce %v: exit %d, want %d with %q\n%s", c.args, code, exitInvalid, c.want, out)
		}
	}
}

// TestEnforceCloudCredentialChains lists GCE VMs with a service account key file
// (GOOGLE_APPLICATION_CREDENTIALS: a signed JWT exchanged for a token) and Azure VMs with a
// service principal's secret (AZURE_CLIENT_SECRET), each token asked for once.
func TestEnforceCloudCredentialChains(t *testing.T) {
	dir := t.TempDir()
	db := demoBillStore(t, dir)
	budgets := writeFile(t, dir, "budgets.yaml", demoBudgets)
	policies := writeFile(t, dir, "policies.yaml", enforcePolicies)
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	const gceToken, armToken, spSecret = "ya29.cli-gce-token", "arm-cli-token", "sp-secret-91bc"
	gce := fakecloud.NewGCE(t, gceToken, &key.PublicKey, []fakecloud.VM{
		{Project: "ml-dev", Zone: "europe-west4-a", Name: "dev-a100", MachineType: "a2-highgpu-1g", GPUs: 1, Running: true, Labels: map[string]string{"team": "research"}}})
	arm := fakecloud.NewARM(t, armToken, "tenant-1", "app-1", spSecret, []fakecloud.VM{
		{Project: "sub-1", Zone: "westeurope", ResourceGroup: "ml", Name: "dev-nc", MachineType: "Standard_NC24ads_A100_v4", Running: true}})
	der, _ := x509.MarshalPKCS8PrivateKey(key)
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	sa, _ := json.Marshal(map[string]string{"type": "service_account", "client_email": "gpucost@ml-dev.iam.gserviceaccount.com",
		"private_key": keyPEM, "private_key_id": "k1", "token_uri": gce.URL + "/token"})
	saFile := writeFile(t, dir, "sa.json", string(sa))
	environ := map[string]string{"HOME": filepath.Join(dir, "home"), "GOOGLE_APPLICATION_CREDENTIALS": saFile,
		"AZURE_TENANT_ID": "tenant-1", "AZURE_CLIENT_ID": "app-1", "AZURE_CLIENT_SECRET": spSecret, "AZURE_AUTHORITY_HOST": arm.URL}
	var out, errb bytes.Buffer
	e := &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return environ[k] },
		now: func() time.Time { return budgetNow }}
	code := run(context.Background(), []string{"--db", db, "enforce", "--policies", policies, "--budgets", budgets,
		"--gce-project", "ml-dev", "--gce-endpoint", gce.URL, "--azure-subscription", "sub-1", "--azure-endpoint", arm.URL}, e)
	s := out.String() + errb.String()
	if code != exitPolicy && code != exitOK {
		t.Fatalf("enforce --gce-project --azure-subscription: exit %d\n%s", code, s)
	}
	for _, secret := range []string{gceToken, armToken, spSecret, "PRIVATE KEY"} {
		if strings.Contains(s, secret) {
			t.Errorf("a secret (%.12s…) is in the output:\n%s", secret, s)
		}
	}
	if got, want := gce.Calls(), []string{"POST /token", "GET /compute/v1/projects/ml-dev/aggregated/instances"}; !slices.Equal(got, want) {
		t.Errorf("GCE requests %q, want %q", got, want)
	}
	if got, want := arm.Calls(), []string{"POST /tenant-1/oauth2/v2.0/token", "GET /subscriptions/sub-1/providers/Microsoft.Compute/virtualMachines"}; !slices.Equal(got, want) {
		t.Errorf("Azure requests %q, want %q", got, want)
	}

	environ["AZURE_CLIENT_SECRET"] = "wrong-secret"
	out.Reset()
	errb.Reset()
	code = run(context.Background(), []string{"--db", db, "enforce", "--policies", policies, "--budgets", budgets,
		"--azure-subscription", "sub-1", "--azure-endpoint", arm.URL}, e)
	if s := errb.String(); code != exitInvalid || !strings.Contains(s, "--azure-subscription") || !strings.Contains(s, "AADSTS7000215") || strings.Contains(s, "wrong-secret") {
		t.Errorf("enforce with a refused secret: exit %d, want %d naming the flag and Entra's reason:\n%s", code, exitInvalid, s)
	}
}
