// Package hooks gives the defaults of the hooks that gpucost's credential chains
// (internal/awscreds, internal/gcpcreds, internal/azurecreds) let tests replace: the
// environment, the clock and the HTTP client.
package hooks

import (
	"net/http"
	"time"
)

// Getenv reads k through getenv; a nil getenv reads an empty environment, so a chain built
// without one never picks up the process's credentials by accident.
func Getenv(getenv func(string) string, k string) string {
	if getenv == nil {
		return ""
	}
	return getenv(k)
}

// Now is now(), or the wall clock when now is nil.
func Now(now func() time.Time) time.Time {
	if now != nil {
		return now()
	}
	return time.Now()
}

// HTTP is c, or a client with a one-minute timeout when c is nil.
func HTTP(c *http.Client) *http.Client {
	if c != nil {
		return c
	}
	return &http.Client{Timeout: time.Minute}
}
