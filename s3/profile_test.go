package s3_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/s3"
)

func TestSharedCredentials(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "credentials")
	os.WriteFile(file, []byte("[default]\naws_access_key_id = AKDEFAULT\naws_secret_access_key = sdefault\n\n[billing]\naws_access_key_id=AKBILL\naws_secret_access_key=sbill\naws_session_token=tok\n[half]\naws_access_key_id=AKHALF\n"), 0o600)
	os.MkdirAll(filepath.Join(dir, ".aws"), 0o700)
	os.WriteFile(filepath.Join(dir, ".aws", "credentials"), []byte("[default]\naws_access_key_id=AKHOME\naws_secret_access_key=shome\n"), 0o600)
	for _, c := range []struct {
		name                  string
		vars                  map[string]string
		access, secret, token string
	}{
		{"default profile", map[string]string{"AWS_SHARED_CREDENTIALS_FILE": file}, "AKDEFAULT", "sdefault", ""},
		{"AWS_PROFILE", map[string]string{"AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "billing"}, "AKBILL", "sbill", "tok"},
		{"home", map[string]string{"HOME": dir}, "AKHOME", "shome", ""},
		{"missing profile", map[string]string{"AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "none"}, "", "", ""},
		{"missing file", map[string]string{"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "none")}, "", "", ""},
	} {
		a, s, tok, err := s3.SharedCredentials(func(k string) string { return c.vars[k] })
		if err != nil || a != c.access || s != c.secret || tok != c.token {
			t.Errorf("%s: SharedCredentials() = %q, %q, %q, %v; want %q, %q, %q", c.name, a, s, tok, err, c.access, c.secret, c.token)
		}
	}
	vars := map[string]string{"AWS_SHARED_CREDENTIALS_FILE": file, "AWS_PROFILE": "half"}
	if _, _, _, err := s3.SharedCredentials(func(k string) string { return vars[k] }); gpucost.ErrorCode(err) != gpucost.EInvalid {
		t.Errorf("SharedCredentials(a profile with one key) = %v, want an %s error", err, gpucost.EInvalid)
	}
}
