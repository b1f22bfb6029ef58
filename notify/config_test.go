package notify

import (
	"os"
	"strings"
	"testing"
	"time"
)

var testEnv = map[string]string{
	"OPS_HOOK_SECRET":  "hmac-secret",
	"TEAM_A_SLACK_URL": "https://hooks.slack.com/services/T0/B0/XXXX",
	"SMTP_PASSWORD":    "smtp-pass",
}

func getenv(k string) string { return testEnv[k] }

func TestParseTargetsFile(t *testing.T) {
	data, err := os.ReadFile("testdata/targets.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, warnings, err := ParseTargets("targets.yaml", data, getenv)
	if err != nil || len(warnings) != 0 {
		t.Fatalf("ParseTargets() = %v, warnings %v", err, warnings)
	}
	w, ok := got["ops"].(*Webhook)
	if !ok || w.URL != "https://ops.example.com/hooks/gpucost" || w.Secret != "hmac-secret" || w.Timeout != 5*time.Second {
		t.Errorf("ops = %#v", got["ops"])
	}
	if s, ok := got["team-a"].(*Slack); !ok || s.URL != testEnv["TEAM_A_SLACK_URL"] {
		t.Errorf("team-a = %#v", got["team-a"])
	}
	e, ok := got["finance"].(*Email)
	if !ok || e.Addr != "smtp.example.com:587" || len(e.To) != 2 || e.Password != "smtp-pass" || e.Username != "gpucost" {
		t.Errorf("finance = %#v", got["finance"])
	}
}

func TestParseTargetsInlineSecretWarns(t *testing.T) {
	data := "targets:\n  ops:\n    webhook:\n      url: https://ops.example.com/h\n      secret: inline-secret\n"
	got, warnings, err := ParseTargets("t.yaml", []byte(data), getenv)
	if err != nil || got["ops"] == nil {
		t.Fatalf("ParseTargets() = %v", err)
	}
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], "t.yaml:5: targets.ops.webhook.secret:") ||
		strings.Contains(warnings[0], "inline-secret") {
		t.Errorf("warnings = %q, want one naming t.yaml:5 and not the secret", warnings)
	}
}

func TestParseTargetsErrors(t *testing.T) {
	cases := []struct{ name, yaml, want string }{
		{"empty", "", "t.yaml: no targets"},
		{"no targets", "targets: {}\n", "t.yaml:1: targets: no targets"},
		{"unknown top field", "target:\n  ops: {}\n", "t.yaml: line 1: unknown field target in the file"},
		{"misspelt field", "targets:\n  ops:\n    webhook:\n      url: https://x.example/h\n      secret_evn: X\n",
			"line 5: unknown field secret_evn in webhook (known: url, url_env, secret, secret_env, timeout)"},
		{"unknown kind", "targets:\n  ops:\n    pager: {}\n", "line 3: unknown field pager in a target"},
		{"two kinds", "targets:\n  ops:\n    slack: {url_env: TEAM_A_SLACK_URL}\n    webhook: {url: https://x.example, secret_env: OPS_HOOK_SECRET}\n",
			"t.yaml:3: targets.ops: set exactly one of webhook, slack or email"},
		{"unset env", "targets:\n  ops:\n    webhook:\n      url: https://x.example/h\n      secret_env: NOPE\n",
			"t.yaml:5: targets.ops.webhook.secret_env: environment variable NOPE is not set"},
		{"no secret", "targets:\n  ops:\n    webhook:\n      url: https://x.example/h\n",
			"t.yaml:4: targets.ops.webhook.secret: set secret or secret_env"},
		{"bad url", "targets:\n  ops:\n    slack:\n      url_env: OPS_HOOK_SECRET\n",
			"t.yaml:4: targets.ops.slack.url_env: [redacted URL] is not an http(s) URL"},
		{"bad timeout", "targets:\n  ops:\n    slack:\n      url_env: TEAM_A_SLACK_URL\n      timeout: soon\n",
			"line 5: cannot unmarshal !!str `soon` into time.Duration"},
		{"bad recipient", "targets:\n  f:\n    email:\n      to: [ok@example.com, nope]\n      smtp: h:25\n      from: a@example.com\n",
			"t.yaml:4: targets.f.email.to.1: \"nope\" is not an email address"},
		{"bad smtp", "targets:\n  f:\n    email:\n      to: [ok@example.com]\n      smtp: smtp.example.com\n      from: a@example.com\n",
			"t.yaml:5: targets.f.email.smtp: \"smtp.example.com\": want host:port"},
		{"password without user", "targets:\n  f:\n    email:\n      to: [ok@example.com]\n      smtp: h:25\n      from: a@example.com\n      password_env: SMTP_PASSWORD\n",
			"targets.f.email.username: a password needs a username"},
		{"bad name", "targets:\n  \"a b\":\n    slack: {url_env: TEAM_A_SLACK_URL}\n", "t.yaml:3: targets.a b: target name \"a b\""},
		{"not yaml", "targets: [\n", "t.yaml: line 1: did not find expected node content"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := ParseTargets("t.yaml", []byte(c.yaml), getenv)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ParseTargets(%q) = %v, want an error containing %q", c.yaml, err, c.want)
			}
		})
	}
}

func TestParseTargetsErrorHidesEnvSecret(t *testing.T) {
	env := func(string) string { return "not-a-url-but-a-secret-FFFF" }
	_, _, err := ParseTargets("t.yaml", []byte("targets:\n  s:\n    slack: {url_env: X}\n"), env)
	if err == nil || strings.Contains(err.Error(), "FFFF") {
		t.Errorf("ParseTargets() = %v, want an error without the variable's value", err)
	}
}

func FuzzParseTargets(f *testing.F) {
	if data, err := os.ReadFile("testdata/targets.yaml"); err == nil {
		f.Add(data)
	}
	f.Add([]byte("targets:\n  ops:\n    webhook: {url: https://x.example/h, secret: s}\n"))
	f.Add([]byte("targets:\n  f:\n    email: {to: [a@b.c], smtp: 'h:25', from: x@y.z}\n"))
	f.Add([]byte("targets: [\n"))
	f.Add([]byte("targets:\n  a: &x {slack: {url: 'http://h/p'}}\n  b: *x\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _, err := ParseTargets("fuzz.yaml", data, getenv)
		if err != nil {
			if got != nil {
				t.Errorf("ParseTargets() returned targets with error %v", err)
			}
			if !strings.HasPrefix(err.Error(), "fuzz.yaml") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if len(got) == 0 {
			t.Error("ParseTargets() = no targets and no error")
		}
		for name, tg := range got {
			if tg == nil || !targetName.MatchString(name) {
				t.Errorf("target %q = %v", name, tg)
			}
		}
	})
}
