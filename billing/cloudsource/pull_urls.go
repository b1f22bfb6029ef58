package cloudsource

import (
	"cmp"
	"context"

	"github.com/gpucost/gpucost/billing/billimport"
)

// PullURLs pulls the current deliveries of the bucket prefixes urls name (Open, with getenv's
// credentials) through p, one source after another, and hands each source's report to done
// (gpucost import billing audits its replacements there; an error from done stops the pulls).
// It returns every file's result and the first source's failure: every source's refusals are
// in the results.
func (p *Puller) PullURLs(ctx context.Context, urls []string, getenv func(string) string, done func(Report) error) ([]billimport.Result, error) {
	var all []billimport.Result
	var first error
	for _, u := range urls {
		src, err := Open(ctx, u, getenv)
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		rep, err := p.Pull(ctx, src)
		all = append(all, rep.Results...)
		first = cmp.Or(first, err)
		if err := done(rep); err != nil {
			return all, err
		}
	}
	return all, first
}
