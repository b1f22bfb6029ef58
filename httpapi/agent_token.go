package httpapi

import (
	"os"
	"strings"

	"github.com/gpucost/gpucost"
)

// AgentToken returns the ingest token gpucost agent --server pushes with: the secret in
// tokenFile (--token-file) where one is named, else env, the value of $GPUCOST_TOKEN. A missing
// or empty file, or no token at all, is an EInvalid error that says where to put one.
func AgentToken(tokenFile, env string) (string, error) {
	if tokenFile != "" {
		b, err := os.ReadFile(tokenFile)
		if err != nil {
			return "", gpucost.Errorf(gpucost.EInvalid, "--token-file: %w", err)
		}
		if t := strings.TrimSpace(string(b)); t != "" {
			return t, nil
		}
		return "", gpucost.Errorf(gpucost.EInvalid, "--token-file %s is empty: put the secret gpucost token create printed in it", tokenFile)
	}
	if t := strings.TrimSpace(env); t != "" {
		return t, nil
	}
	return "", gpucost.Errorf(gpucost.EInvalid, "--server needs a token: set $GPUCOST_TOKEN or --token-file (gpucost token create --role ingest)")
}
