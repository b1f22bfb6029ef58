package main

import (
	"context"

	"github.com/gpucost/gpucost/billing/billimport"
	"github.com/gpucost/gpucost/billing/cloudsource"
	"github.com/gpucost/gpucost/httpapi"
)

// pullBills imports the current deliveries of the bucket prefixes urls name (s3://, gs://,
// azure://, an Azure blob URL) into store, each a pull of its own (docs/bill-sources.md), and
// records each replacement in the audit log.
func (e *env) pullBills(ctx context.Context, store billimport.Store, urls []string, o billimport.Options) ([]billimport.Result, error) {
	var all []billimport.Result
	var errs []error
	for _, u := range urls {
		src, err := cloudsource.Open(ctx, u, e.getenv)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p := &cloudsource.Puller{Importer: e.billImporter(store), Options: o, MaxFile: httpapi.DefaultMaxBill}
		rep, err := p.Pull(ctx, src)
		all = append(all, rep.Results...)
		if err != nil {
			errs = append(errs, err)
		}
		for _, a := range billimport.Replacements(rep.Results) {
			if aerr := e.audit(ctx, store, a.Action, a.Target, a.Detail); aerr != nil {
				return all, aerr
			}
		}
	}
	if len(errs) > 0 {
		return all, errs[0] // every source's refusals are in the results; the first sets the exit status
	}
	return all, nil
}
