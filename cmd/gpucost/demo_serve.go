package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/demo"
	"github.com/gpucost/gpucost/httpapi"
)

// demoTokenName names the admin token gpucost demo makes for the browser; the previous ones
// are revoked, so a demo store holds one valid demo token.
const demoTokenName = "demo-dashboard"

// demoBudgetsYAML are the budgets the demo's dashboard shows.
const demoBudgetsYAML = demo.Budgets

// defaultServeFlush is how often gpucost serve writes pushed samples to the store.
const defaultServeFlush = 5 * time.Second

// serveDemo serves the dashboard and API over the demo store on listen until ctx is done
// (Ctrl-C), with a new admin token to sign in with.
func (e *env) serveDemo(ctx context.Context, listen string) error {
	db, err := e.openDB(ctx)
	if err != nil {
		return err
	}
	defer db.Close()
	secret, err := demoToken(ctx, db, e)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return gpucost.Errorf(gpucost.EUnavailable, "serve the dashboard on --listen %s: %w; choose another address with --listen 127.0.0.1:8081, or give --no-serve", listen, err)
	}
	budgets := e.demoFile("-budgets.yaml")
	if err := os.WriteFile(budgets, []byte(demoBudgetsYAML), 0o644); err != nil {
		return fmt.Errorf("write the demo budgets: %w", err)
	}
	fmt.Fprintf(e.stdout, "\nDashboard: http://%s/ — sign in with the token %s\n(Budgets from %s. Ctrl-C stops the server; gpucost demo --no-serve only prints the headline.)\n",
		ln.Addr(), secret, budgets)
	// The demo's minute rollups are all kept: they are its month of history.
	o := serveOptions{listen: listen, flush: defaultServeFlush, keepMinutes: 92 * 24 * time.Hour,
		viewsEvery: defaultViewsEvery, maxBill: httpapi.DefaultMaxBill, budgets: budgets}
	return e.serve(ctx, db, ln, o)
}

// demoToken revokes the earlier demo tokens and creates a new admin token, returning its secret.
func demoToken(ctx context.Context, db gpucost.TokenStore, e *env) (string, error) {
	toks, err := db.Tokens(ctx)
	if err != nil {
		return "", err
	}
	now := e.now()
	for _, t := range toks {
		if t.Name == demoTokenName && t.Revoked.IsZero() {
			if err := db.RevokeToken(ctx, t.ID, now); err != nil {
				return "", err
			}
		}
	}
	secret, err := gpucost.NewTokenSecret()
	if err != nil {
		return "", err
	}
	_, err = db.CreateToken(ctx, gpucost.Token{Name: demoTokenName, Role: gpucost.RoleAdmin, Created: now}, gpucost.HashTokenSecret(secret))
	return secret, err
}
