package s3

import "github.com/gpucost/gpucost/internal/awscreds"

// SharedCredentials reads the static keys of the profile AWS_PROFILE (default: "default") from
// the shared files through getenv, as awscreds.SharedKeys does. A missing file or profile
// gives empty keys (anonymous requests); a profile with one key and not the other is an
// EInvalid error.
func SharedCredentials(getenv func(string) string) (access, secret, token string, err error) {
	return awscreds.SharedKeys(getenv)
}
