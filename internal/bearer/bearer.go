// Package bearer sends the JSON requests of the APIs gpucost's guardrails act on (Kubernetes,
// Compute Engine, Azure Resource Manager) with a bearer token, and reads their answers within a
// limit.
package bearer

import (
	"context"
	"io"
	"net/http"

	"github.com/gpucost/gpucost"
)

// MaxAnswer is the most of an answer read: 32 MiB.
const MaxAnswer = 32 << 20

// Auth is where a request's token comes from: Tokens, renewed as it expires, else Token; no
// Authorization header when both are empty.
type Auth struct {
	HTTP   *http.Client                          // http.DefaultClient when nil
	Token  string                                // a fixed token
	Tokens func(context.Context) (string, error) // a token source, which wins over Token
}

// Do asks for a JSON answer to req with the token and returns the answer's status and at most
// MaxAnswer bytes of its body. api names the API in errors ("Kubernetes API https://…").
func (a Auth) Do(ctx context.Context, req *http.Request, api string) (int, []byte, error) {
	req.Header.Set("Accept", "application/json")
	token := a.Token
	if a.Tokens != nil {
		var err error
		if token, err = a.Tokens(ctx); err != nil {
			return 0, nil, err
		}
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := a.HTTP
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, gpucost.Errorf(gpucost.EUnavailable, "%s cannot be reached: %w", api, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxAnswer))
	if err != nil {
		return 0, nil, gpucost.Errorf(gpucost.EUnavailable, "read the answer of %s: %w", api, err)
	}
	return resp.StatusCode, data, nil
}
