package main

import (
	"fmt"
	"os"

	"github.com/gpucost/gpucost"

	"github.com/gpucost/gpucost/notify"
	"github.com/gpucost/gpucost/server"
	"github.com/spf13/cobra"
)

// serveEnforceOptions are gpucost serve's enforcement flags: the policies file, --apply and the
// inventory flags gpucost enforce takes.
type serveEnforceOptions struct {
	policies string
	apply    bool
	inv      inventoryFlags
}

func (o *serveEnforceOptions) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&o.policies, "policies", "", "policies YAML file (as gpucost enforce takes): after each budget check, evaluate them and run their actions, each logged")
	cmd.Flags().BoolVar(&o.apply, "apply", false, "with --policies: carry out the actions of policies with dry_run: false (default: log them as planned only)")
	o.inv.add(cmd)
}

// enforcement reads --policies and builds the inventories and the runner over db that the
// server runs the policies with after each budget check; nil without --policies.
func (o *serveEnforceOptions) enforcement(e *env, db storeDB, targets map[string]notify.Target) (*server.Enforce, error) {
	if o.policies == "" {
		if o.apply || o.inv.given() {
			return nil, usageError{fmt.Errorf("--apply and the inventory flags (--aws-region, --kube-server, …) need --policies: the policies YAML file")}
		}
		return nil, nil
	}
	data, err := os.ReadFile(o.policies)
	if err != nil {
		return nil, gpucost.Errorf(gpucost.EInvalid, "read policies: %w", err)
	}
	src, err := o.inv.sources(e)
	if err != nil {
		return nil, err
	}
	return &server.Enforce{File: o.policies, Data: data, Apply: o.apply, Inventories: src.inventories,
		Runner: src.runner(e, db, targets)}, nil
}
