package main

import (
	"context"

	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/cloudsource"
	"github.com/gpucost/gpucost/httpapi"
)

// pullBills imports the current deliveries of the bucket prefixes urls name (s3://, gs://,
// azure://, an Azure blob URL) into store, each a pull of its own (docs/bill-sources.md), and
// records each replacement in the audit log (cloudsource.Puller.PullURLs).
func (e *env) pullBills(ctx context.Context, store billimport.Store, urls []string, o billimport.Options) ([]billimport.Result, error) {
	p := &cloudsource.Puller{Importer: e.billImporter(store), Options: o, MaxFile: httpapi.DefaultMaxBill}
	return p.PullURLs(ctx, urls, e.getenv, func(rep cloudsource.Report) error {
		for _, a := range billimport.Replacements(rep.Results) {
			if err := e.audit(ctx, store, a.Action, a.Target, a.Detail); err != nil {
				return err
			}
		}
		return nil
	})
}
