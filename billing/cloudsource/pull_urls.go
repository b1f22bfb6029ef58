package cloudsource

import (
	"cmp"
	"context"

	"github.com/gpucost/gpucost/billing/billimport"
)

// PullURLs pulls the current deliveries of the bucket prefixes urls name (Open, with getenv's
// credentials) one source after another, each with a Puller of p's settings that has pulled
// nothing yet (so a prefix given twice is read twice, its files skipped by checksum), and
// hands each source's report to done (gpucost import billing audits its replacements there;
// an error from done stops the pulls). It returns every file's result and the first source's
// failure: every source's refusals are in the results.
func (p *Puller) PullURLs(ctx context.Context, urls []string, getenv func(string) string, done func(Report) error) ([]billimport.Result, error) {
	var all []billimport.Result
	var first error
	for _, u := range urls {
		src, err := Open(ctx, u, getenv)
		if err != nil {
			first = cmp.Or(first, err)
			continue
		}
		fresh := &Puller{Importer: p.Importer, Options: p.Options, Dir: p.Dir, MaxFile: p.MaxFile}
		rep, err := fresh.Pull(ctx, src)
		all = append(all, rep.Results...)
		first = cmp.Or(first, err)
		if err := done(rep); err != nil {
			return all, err
		}
	}
	return all, first
}
