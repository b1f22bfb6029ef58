package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
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
