package main

import (
	"context"
	"slices"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/catalog"
	"github.com/gpucost/gpucost/fleet"
	"github.com/gpucost/gpucost/present"
	"github.com/gpucost/gpucost/query"
	"github.com/spf13/cobra"
)

// Shell completion: cobra's "gpucost completion bash|zsh|fish|powershell" writes the scripts;
// they call "gpucost __complete", which asks the functions here for flag values. Values come
// from the enums, the catalog (bundled, and what the store imported) and the store's label keys
// and months, so a script never needs updating when the fleet changes.

// utilizationBy are report utilization's --by values besides label:KEY (analyze.ParseGroupBy).
var utilizationBy = []string{"gpu", "host", "model", "namespace", "pod"}

// costBy are the --by values of report cost, kpi and anomalies besides label:KEY and tag:KEY.
var costBy = fleet.Dimensions()

// formatValues are each command's --format values, by command path.
var formatValues = map[string]func() []string{
	"gpucost import telemetry": func() []string { return []string{"dcgm", "nvidia-smi", "nvidia-smi-xml", "nvidia-smi-pmon", "csv"} },
	"gpucost import billing":   func() []string { return append([]string{"auto"}, billimport.Formats()...) },
	"gpucost catalog import":   func() []string { return []string{"skypilot", "gcp-pricing-yml"} },
}

// completionLookupTimeout bounds what a completion spends reading the store: a shell waits on it.
const completionLookupTimeout = 2 * time.Second

// registerCompletions gives every command's --output, --by, --format, --provider, --gpu,
// --policy and --month flags their values.
func registerCompletions(c *cobra.Command, e *env) {
	if c.Parent() == nil {
		c.RegisterFlagCompletionFunc("output", fixed(present.Formats))
	}
	path := c.CommandPath()
	complete := map[string]cobra.CompletionFunc{
		"by":       e.completeBy(path),
		"provider": e.completeFromCatalog(func(cat *catalog.Catalog) []string { return cat.Providers() }),
		"gpu":      e.completeFromCatalog(func(cat *catalog.Catalog) []string { return cat.Models() }),
		"month":    e.completeMonths,
	}
	if f, ok := formatValues[path]; ok {
		complete["format"] = func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return f(), cobra.ShellCompDirectiveNoFileComp
		}
	}
	if fl := c.Flags().Lookup("policy"); fl != nil && fl.DefValue == gpucost.PolicyUsed {
		complete["policy"] = fixed([]string{gpucost.PolicyUsed, gpucost.PolicyRequested, gpucost.PolicyWeighted})
	}
	if path == "gpucost import telemetry" {
		delete(complete, "gpu") // a UUID or index in the recording, not a catalog model
	}
	for name, fn := range complete {
		if c.LocalNonPersistentFlags().Lookup(name) != nil {
			c.RegisterFlagCompletionFunc(name, fn)
		}
	}
	for _, sub := range c.Commands() {
		registerCompletions(sub, e)
	}
}

// fixed completes from a list of values.
func fixed(values []string) cobra.CompletionFunc {
	return func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeBy completes --by: the command's enums, then label:KEY for the label keys of the
// store's telemetry.
func (e *env) completeBy(path string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		values := slices.Clone(costBy)
		if path == "gpucost report utilization" {
			values = slices.Clone(utilizationBy)
		}
		for _, k := range e.storeLabelKeys(cmd.Context()) {
			values = append(values, "label:"+k)
		}
		return values, cobra.ShellCompDirectiveNoFileComp
	}
}

// completeFromCatalog completes from the catalog: the bundled one with what the store imported,
// or the bundled one alone when there is no store yet.
func (e *env) completeFromCatalog(values func(*catalog.Catalog) []string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
		cat, err := e.completionCatalog(cmd.Context())
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		return values(cat), cobra.ShellCompDirectiveNoFileComp
	}
}

func (e *env) completionCatalog(ctx context.Context) (*catalog.Catalog, error) {
	if e.noStoreYet() {
		return catalog.Bundled()
	}
	ctx, cancel := context.WithTimeout(orBackground(ctx), completionLookupTimeout)
	defer cancel()
	db, cat, err := e.openCatalog(ctx)
	if err != nil {
		return catalog.Bundled()
	}
	db.Close()
	return cat, nil
}

// completeMonths completes --month with the months the store holds, newest first
// (query.Months).
func (e *env) completeMonths(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if e.noStoreYet() {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	ctx, cancel := context.WithTimeout(orBackground(cmd.Context()), completionLookupTimeout)
	defer cancel()
	months, _ := fromStore(ctx, e, func(db storeDB) ([]string, error) { return query.Months(ctx, db) })
	return months, cobra.ShellCompDirectiveNoFileComp
}

// storeLabelKeys returns the label keys of the store's last day of hourly rollups
// (query.LabelKeys); none when there is no store or it cannot be read in time.
func (e *env) storeLabelKeys(ctx context.Context) []string {
	if e.noStoreYet() {
		return nil
	}
	ctx, cancel := context.WithTimeout(orBackground(ctx), completionLookupTimeout)
	defer cancel()
	keys, _ := fromStore(ctx, e, func(db storeDB) ([]string, error) { return query.LabelKeys(ctx, db) })
	return keys
}

func orBackground(ctx context.Context) context.Context {
	if ctx == nil {
		return context.Background()
	}
	return ctx
}
