package s3

import (
	"bufio"
	"cmp"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/gpucost/gpucost"
)

// SharedCredentials reads the keys of the profile AWS_PROFILE (default: "default") from the
// shared credentials file, AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials, through getenv:
// the second link of the AWS default chain after the environment variables. A missing file
// or profile gives empty keys (anonymous requests); a profile with one key and not the other
// is an EInvalid error.
func SharedCredentials(getenv func(string) string) (access, secret, token string, err error) {
	path := getenv("AWS_SHARED_CREDENTIALS_FILE")
	if path == "" {
		home := getenv("HOME")
		if home == "" {
			return "", "", "", nil
		}
		path = filepath.Join(home, ".aws", "credentials")
	}
	profile := cmp.Or(getenv("AWS_PROFILE"), "default")
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", "", "", nil
	}
	if err != nil {
		return "", "", "", gpucost.Errorf(gpucost.EInvalid, "read AWS credentials: %v", err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") && strings.HasSuffix(line, "]") {
			in = strings.TrimSpace(line[1:len(line)-1]) == profile
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !in || !ok {
			continue
		}
		switch strings.ToLower(strings.TrimSpace(k)) {
		case "aws_access_key_id":
			access = strings.TrimSpace(v)
		case "aws_secret_access_key":
			secret = strings.TrimSpace(v)
		case "aws_session_token":
			token = strings.TrimSpace(v)
		}
	}
	if (access == "") != (secret == "") {
		return "", "", "", gpucost.Errorf(gpucost.EInvalid, "AWS profile %s in %s has one of aws_access_key_id and aws_secret_access_key without the other; set both", profile, path)
	}
	return access, secret, token, sc.Err()
}
