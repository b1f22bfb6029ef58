package billimport

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/billing"
)

// Import imports the sources as one batch and returns what became of each file, in order: every
// file is read and checked first, and then every import is stored in ONE store transaction, so
// the batch lands whole or not at all. A file passed over (Source.Skip) or imported before (its
// SHA-256 stored) is skipped. The parts of one export are one import: the files a manifest
// names, and files of one folder and format whose names differ only in a trailing part number
// (cur2-00001.csv.gz, cur2-00002.csv.gz) when they share a (billing account, billing period).
// Any other two files of the batch sharing one are refused as ambiguous, as is a bill covering a
// stored import's (account, period) unless o.Replace, which replaces every such import.
//
// When any file is refused nothing is stored: the results say why each was refused (Result.Err;
// bad input is an EInvalid naming the file, line and column, an overlap an EConflict naming the
// earlier import) and the error is the refusal's, or, for several, one naming how many.
func (im *Importer) Import(ctx context.Context, sources []Source, o Options) ([]Result, error) {
	if !IsFormat(o.Format) && o.Format != "" {
		return nil, gpucost.Errorf(gpucost.EInvalid, "format %q: use auto, %s", o.Format, strings.Join(Formats(), ", "))
	}
	stored, err := im.Store.CostImports(ctx)
	if err != nil {
		return nil, err
	}
	b := batch{im: im, o: o, stored: stored}
	defer b.release()
	for _, src := range sources {
		if src.Name == "" {
			src.Name = src.Path
		}
		b.add(ctx, src)
	}
	b.group()
	b.checkStored()
	if err := b.refusal(); err != nil {
		return b.results, err
	}
	return b.results, b.store(ctx)
}

// batch is one Import: its files as read, and their results.
type batch struct {
	im      *Importer
	o       Options
	stored  []gpucost.CostImport
	results []Result
	files   []*fileRead
	groups  [][]*fileRead
	imps    []gpucost.CostImport // the import of each group (groupImport)

	tightened func() // restores the collector's goal a large file lowered (memory.go)
}

// fileRead is one file of a batch, read and checked, waiting to be stored.
type fileRead struct {
	res    int // its index in results
	src    Source
	format string
	st     Stats
	agg    *billing.Aggregator
	imp    gpucost.CostImport // what it covers, from its lines
	group  int
}

// add reads src, or the parts of the export its manifest names, into the batch.
func (b *batch) add(ctx context.Context, src Source) {
	if src.Skip == "" && b.o.Manifests && sourceIsManifest(src.Path) {
		parts, err := manifestFiles(src.Path, src.Name)
		if err != nil {
			b.results = append(b.results, Result{File: src.Name, Status: "refused: " + err.Error(), Err: err})
			return
		}
		for _, p := range parts {
			p.Export = src.Name
			b.addFile(ctx, p)
		}
		return
	}
	b.addFile(ctx, src)
}

// addFile reads one file into the batch, or says why it is skipped or refused.
func (b *batch) addFile(ctx context.Context, src Source) {
	b.results = append(b.results, Result{File: src.Name})
	res := &b.results[len(b.results)-1]
	if src.Skip != "" {
		res.Status, res.Skipped = "skipped: "+src.Skip, true
		return
	}
	if err := ctx.Err(); err != nil {
		b.refuse(res, err)
		return
	}
	// The checksum is computed while the file is read, on a core the read leaves free at times;
	// a file found imported before stops the read once the checksum says so.
	sums := make(chan fileSum, 1)
	var dup atomic.Bool
	go func() {
		sum, err := Checksum(src.Path)
		if err == nil {
			p, same := b.duplicate(sum)
			dup.Store(p != nil || same != nil)
		}
		sums <- fileSum{sum, err}
	}()
	f, err := b.im.readFile(src, b.o, b.tighten, dup.Load)
	sum := <-sums
	if sum.err != nil {
		b.refuse(res, gpucost.Errorf(gpucost.EInvalid, "import %s: %w; check the path and that the file is readable", src.Name, sum.err))
		return
	}
	res.Checksum = sum.sum
	if p, same := b.duplicate(sum.sum); p != nil {
		skipped(res, *p)
		return
	} else if same != nil {
		res.Status, res.Skipped = fmt.Sprintf("skipped: the same bytes as %s in this batch", same.src.Name), true
		return
	}
	if err != nil {
		b.refuse(res, err)
		return
	}
	f.res = len(b.results) - 1
	res.Format, res.Version, res.Rows, res.Lines, res.Totals, res.Identity = f.format, f.st.Version, f.agg.Rows(), f.agg.Len(), f.agg.Totals(), f.imp.Identity
	res.Unknown, res.Coerced = f.st.Unknown, f.st.Coerced
	if len(res.Unknown) == 0 && len(f.st.Kept) > 0 {
		res.Unknown, res.Kept = f.st.Kept, true
	}
	b.files = append(b.files, f)
}

// fileSum is a file's checksum, or why it could not be read.
type fileSum struct {
	sum string
	err error
}

// duplicate returns the stored import that holds a file of checksum sum, unless replacing, or
// else the file of the batch with those bytes; nil for both when there is none.
func (b *batch) duplicate(sum string) (*gpucost.CostImport, *fileRead) {
	if !b.o.Replace {
		for i := range slices.Backward(b.stored) {
			if b.stored[i].HasFile(sum) {
				return &b.stored[i], nil
			}
		}
	}
	for _, f := range b.files {
		if b.results[f.res].Checksum == sum {
			return nil, f
		}
	}
	return nil, nil
}

// refuse marks res refused by err.
func (b *batch) refuse(res *Result, err error) {
	if res.Err == nil {
		res.Status, res.Err = "refused: "+err.Error(), err
	}
}

// tighten lowers the collector's goal until the batch is stored, once (memory.go); release
// restores it.
func (b *batch) tighten() {
	if b.tightened == nil {
		b.tightened = tighten()
	}
}

func (b *batch) release() {
	if b.tightened != nil {
		b.tightened()
	}
}

// readFile detects src's format, reads its rows into an Aggregator and reconciles the totals.
// large is called when the file holds tightAt lines or more; the read stops, with errStopped,
// once stop reports true (never when nil).
func (im *Importer) readFile(src Source, o Options, large func(), stop func() bool) (*fileRead, error) {
	if stop == nil {
		stop = func() bool { return false }
	}
	format := o.Format
	if format == "" || format == "auto" {
		var err error
		if format, err = Detect(src.Path, src.Name); err != nil {
			return nil, err
		}
	}
	f := &fileRead{src: src, format: format, agg: &billing.Aggregator{Grain: cmp.Or(o.Grain, billing.Day)}}
	st, err := im.read(src, format, o, f.agg, stop)
	if err != nil {
		return nil, err
	}
	if err := Reconcile(src.Name, st.CostTotals(), f.agg.Totals()); err != nil {
		return nil, err
	}
	f.st = st
	if f.agg.Len() >= tightAt && large != nil {
		large()
	}
	var id gpucost.BillIdentity
	for l := range f.agg.Coverage() {
		id.Add(l)
	}
	id.Describe(&f.imp, format)
	return f, nil
}

// partNumber is a trailing part number of a file's stem: export-00001, part_3.
var partNumber = regexp.MustCompile(`^(.*?)[-_.]?(?:part[-_]?)?\d+$`)

// exportOf names the export f is a part of, if its manifest or its name says: the manifest, or
// the folder, format and name without the part number; "" when neither does.
func exportOf(f *fileRead) string {
	if f.src.Export != "" {
		return "manifest\x00" + f.src.Export
	}
	stem := partStem(f.src.Name)
	if stem == "" {
		return ""
	}
	return "parts\x00" + filepath.Dir(f.src.Path) + "\x00" + f.format + "\x00" + stem
}

// partStem is the base name of a file without its extensions and its trailing part number, in
// lower case (cur2 of exports/cur2-00001.csv.gz); "" for a name without a part number.
func partStem(name string) string {
	base := strings.ToLower(filepath.Base(strings.ReplaceAll(name, `\`, "/")))
	stem, _, _ := strings.Cut(base, ".")
	m := partNumber.FindStringSubmatch(stem)
	if m == nil || m[1] == "" {
		return ""
	}
	return m[1]
}

// partOf reports whether group g looks like other parts of the export the stored import p was
// read from: one format, and names that differ from p's only in the part number. A file called
// as one of p's is a restatement of that part, not another one.
func partOf(g []*fileRead, p gpucost.CostImport) bool {
	names := []string{p.Name}
	for _, f := range p.Files {
		names = append(names, f.Name)
	}
	other := false
	for _, f := range g {
		stem := partStem(f.src.Name)
		if stem == "" || f.format != p.Format {
			continue
		}
		for _, n := range names {
			if gpucost.BillLabel(n) == gpucost.BillLabel(f.src.Name) {
				return false
			}
			other = other || partStem(n) == stem
		}
	}
	return other
}

// group makes the files read into imports: one each, but the parts of one export together. Two
// files that share a (billing account, billing period) and are not parts of one export are both
// refused.
func (b *batch) group() {
	sets := newSets(len(b.files))
	byExport := map[string]int{}
	for i, f := range b.files {
		if f.src.Export == "" {
			continue
		}
		if j, ok := byExport[f.src.Export]; ok {
			sets.join(i, j)
		} else {
			byExport[f.src.Export] = i
		}
	}
	first := map[gpucost.BillCoverage]int{}
	for i, f := range b.files {
		for _, c := range f.imp.Coverage {
			j, ok := first[c]
			if !ok {
				first[c] = i
				continue
			}
			other := b.files[j]
			if e := exportOf(f); e != "" && e == exportOf(other) {
				sets.join(i, j)
				continue
			}
			b.refuse(&b.results[f.res], ambiguous(f.src.Name, other.src.Name, c))
			b.refuse(&b.results[other.res], ambiguous(other.src.Name, f.src.Name, c))
		}
	}
	index := map[int]int{}
	for i, f := range b.files {
		r := sets.find(i)
		g, ok := index[r]
		if !ok {
			g = len(b.groups)
			index[r] = g
			b.groups = append(b.groups, nil)
		}
		f.group = g
		b.groups[g] = append(b.groups[g], f)
	}
	for _, g := range b.groups {
		b.imps = append(b.imps, b.groupImport(g))
	}
}

// sets are disjoint sets of the files of a batch, by index: the imports they make.
type sets []int

func newSets(n int) sets {
	s := make(sets, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// find returns the set i is in.
func (s sets) find(i int) int {
	for s[i] != i {
		s[i] = s[s[i]]
		i = s[i]
	}
	return i
}

// join puts the sets of i and j together.
func (s sets) join(i, j int) { s[s.find(i)] = s.find(j) }

// ambiguous is the EConflict of a file called name that covers c, as the file called other of
// the same batch does, when the two are not parts of one export.
func ambiguous(name, other string, c gpucost.BillCoverage) error {
	return gpucost.Errorf(gpucost.EConflict, "import %s: it covers billing account %s's period %s, as %s in this batch does, and the two are not parts of one export; storing both would count the period twice: import them one at a time (the later with --replace if it restates the other), or import the export's manifest if they are its parts",
		name, c.Account, gpucost.PeriodLabel(c.Period), other)
}

// groupImport is the import the files of one group make.
func (b *batch) groupImport(g []*fileRead) gpucost.CostImport {
	f0 := g[0]
	imp := f0.imp
	imp.Name, imp.Checksum, imp.Format, imp.Version, imp.Grain = f0.src.Name, b.results[f0.res].Checksum, f0.format, f0.st.Version, f0.agg.Grain
	imp.Rows, imp.Totals = f0.agg.Rows(), f0.agg.Totals()
	imp.Lenient = b.o.Lenient && formats[f0.format].lenient
	if len(g) == 1 {
		return imp
	}
	var id gpucost.BillIdentity
	var totals gpucost.CostTotals
	imp.Rows = 0
	sums := sha256.New()
	for _, f := range g {
		for l := range f.agg.Coverage() {
			id.Add(l)
		}
		for _, t := range f.agg.Totals() {
			totals.Add(t.BilledCost, t.EffectiveCost)
		}
		imp.Rows += f.agg.Rows()
		sum := b.results[f.res].Checksum
		imp.Files = append(imp.Files, gpucost.ImportFile{Name: f.src.Name, Checksum: sum})
		io.WriteString(sums, sum+"\n")
	}
	id.Describe(&imp, f0.format)
	imp.Checksum, imp.Totals = "parts-"+hex.EncodeToString(sums.Sum(nil)), totals.Sorted()
	imp.Name = fmt.Sprintf("%s (+%d parts)", f0.src.Name, len(g)-1)
	if f0.src.Export != "" {
		imp.Name = f0.src.Export
	}
	return imp
}

// lines are the lines of a group's files, one after the other.
func lines(g []*fileRead) iter.Seq[*gpucost.CostLine] {
	return func(yield func(*gpucost.CostLine) bool) {
		for _, f := range g {
			for l := range f.agg.Lines() {
				if !yield(l) {
					return
				}
			}
		}
	}
}

// checkStored refuses each group that covers a stored import's (account, period), unless
// replacing; a group's files refused already refuse the whole group.
func (b *batch) checkStored() {
	for i, g := range b.groups {
		imp := b.imps[i]
		var hit error
		for _, f := range g {
			if err := b.results[f.res].Err; err != nil {
				hit = gpucost.Errorf(gpucost.ErrorCode(err), "%s, a part of the same export, was refused: %w", f.src.Name, err)
				break
			}
		}
		if hit == nil && b.o.Replace && !b.o.Partial {
			hit = b.partialReplace(i)
		}
		if hit == nil && !b.o.Replace {
			for _, p := range b.stored {
				if over := imp.Overlap(p); len(over) > 0 {
					hit = overlapConflict(imp.Name, p, over)
					if partOf(g, p) {
						hit = partsConflict(imp.Name, p, over[0])
					}
					break
				}
			}
		}
		if hit != nil {
			for _, f := range g {
				b.refuse(&b.results[f.res], hit)
			}
		}
	}
}

// overlapConflict is the EConflict of importing name while the stored import p covers the
// (account, period) pairs over too.
func overlapConflict(name string, p gpucost.CostImport, over []gpucost.BillCoverage) error {
	more := ""
	if len(over) > 1 {
		more = fmt.Sprintf(" and %d more", len(over)-1)
	}
	return gpucost.Errorf(gpucost.EConflict, "import %s: billing account %s's period %s%s was imported on %s as import %d (%s); storing both would count it twice. If the provider restated the bill, or this is the full export of a partial one, an admin may replace it with --replace (gpucost import billing --replace, or replace=true with an admin token); otherwise remove import %d first (gpucost import remove %d)",
		name, over[0].Account, gpucost.PeriodLabel(over[0].Period), more, p.ImportedAt.UTC().Format("2006-01-02 15:04 MST"), p.ID, p.Name, p.ID, p.ID)
}

// partsConflict is the EConflict of importing name, which looks like another part of the
// export import p holds, while p covers c too: replacing p with it alone would lose p's part.
func partsConflict(name string, p gpucost.CostImport, c gpucost.BillCoverage) error {
	return gpucost.Errorf(gpucost.EConflict, "import %s: billing account %s's period %s was imported on %s as import %d (%s), and this file looks like another part of the same export; import all of the export's parts together (its folder, or its manifest) with --replace, which replaces import %d with the whole export, rather than one part at a time",
		name, c.Account, gpucost.PeriodLabel(c.Period), p.ImportedAt.UTC().Format("2006-01-02 15:04 MST"), p.ID, p.Name, p.ID)
}

// refusal returns the error of a refused batch, after marking the files that would have been
// stored "not stored"; nil when nothing was refused.
func (b *batch) refusal() error {
	var refused []error
	for _, r := range b.results {
		if r.Err != nil {
			refused = append(refused, r.Err)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	for i := range b.results {
		if r := &b.results[i]; !r.Skipped {
			r.Lines = 0
			if r.Err == nil {
				r.Status = "not stored: another file of the batch was refused"
			}
		}
	}
	if len(refused) == 1 {
		return refused[0]
	}
	return gpucost.Errorf(gpucost.ErrorCode(refused[0]), "%d files refused, so nothing was stored; the first: %w", len(refused), refused[0])
}

// store writes the groups' imports in one transaction, each replacing what it overlaps if
// replacing, and sets the results.
func (b *batch) store(ctx context.Context) error {
	if len(b.groups) == 0 {
		return nil
	}
	now := time.Now
	if b.im.Now != nil {
		now = b.im.Now
	}
	at := now().UTC()
	puts := make([]gpucost.CostPut, len(b.groups))
	prevs := make([][]gpucost.CostImport, len(b.groups))
	for i, g := range b.groups {
		imp := b.imps[i]
		imp.ImportedAt = at
		prevs[i] = b.replacing(i)
		ids := make([]int64, len(prevs[i]))
		for j, p := range prevs[i] {
			ids[j] = p.ID
		}
		puts[i] = gpucost.CostPut{Import: imp, Lines: lines(g), Replace: ids}
	}
	out, err := b.im.Store.PutCostBatch(ctx, puts)
	if gpucost.ErrorCode(err) == gpucost.EConflict {
		if done, rerr := b.lostRace(ctx); done {
			return rerr
		}
	}
	if err != nil {
		if ge := (*gpucost.Error)(nil); !errors.As(err, &ge) {
			err = fmt.Errorf("import %s: %w", puts[0].Import.Name, err)
		}
		for i := range b.results {
			if r := &b.results[i]; !r.Skipped {
				r.Status, r.Err = "not stored: "+err.Error(), err
			}
		}
		return err
	}
	b.landed(out, prevs)
	return b.keepSources(ctx, out)
}

// landed sets the results of the imports out stored, each replacing prevs[i].
func (b *batch) landed(out []gpucost.CostImport, prevs [][]gpucost.CostImport) {
	for i, g := range b.groups {
		uncovered := b.uncovered(prevs[i])
		for _, f := range g {
			r := &b.results[f.res]
			r.ImportID, r.Stored, r.Replaced, r.Status, r.Uncovered = out[i].ID, out[i], prevs[i], "imported", uncovered
			if len(prevs[i]) > 0 {
				ids := make([]string, len(prevs[i]))
				for j, p := range prevs[i] {
					ids[j] = fmt.Sprint(p.ID)
				}
				r.Status = "replaced import " + strings.Join(ids, ", ")
			}
			if len(g) > 1 {
				for _, p := range g {
					r.Parts = append(r.Parts, p.src.Name)
				}
			}
		}
	}
}

// uncovered returns the (account, period) pairs the replaced imports covered that no import of
// the batch covers: what replacing took out of the store.
func (b *batch) uncovered(replaced []gpucost.CostImport) []gpucost.BillCoverage {
	var out []gpucost.BillCoverage
	for _, p := range replaced {
		for _, c := range p.Coverage {
			kept := slices.ContainsFunc(b.imps, func(imp gpucost.CostImport) bool {
				return len(imp.Overlap(gpucost.CostImport{Coverage: []gpucost.BillCoverage{c}})) > 0
			})
			if !kept && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// lostRace answers a conflict the store found within its transaction: another import landed
// between the look-up and the store. It looks again: a group whose files are all stored now is
// skipped, as if they had been there before, and one that overlaps a stored import is refused
// with the usual advice. done is false when neither explains the conflict.
func (b *batch) lostRace(ctx context.Context) (done bool, err error) {
	stored, lerr := b.im.Store.CostImports(ctx)
	if lerr != nil {
		return false, nil
	}
	b.stored = stored
	refused := false
	for i, g := range b.groups {
		var found []gpucost.CostImport
		for _, f := range g {
			for _, p := range slices.Backward(stored) {
				if p.HasFile(b.results[f.res].Checksum) {
					found = append(found, p)
					break
				}
			}
		}
		if len(found) == len(g) && !b.o.Replace {
			for i, f := range g {
				skipped(&b.results[f.res], found[i])
			}
			continue
		}
		imp := b.imps[i]
		for _, p := range stored {
			if over := imp.Overlap(p); len(over) > 0 && !slices.ContainsFunc(b.replacing(i), func(r gpucost.CostImport) bool { return r.ID == p.ID }) {
				for _, f := range g {
					b.refuse(&b.results[f.res], overlapConflict(imp.Name, p, over))
				}
				refused = true
				break
			}
		}
	}
	if refused {
		return true, b.refusal()
	}
	for _, r := range b.results {
		if !r.Skipped {
			return false, nil
		}
	}
	return true, nil
}

// replacing returns the stored imports group i replaces: none unless replacing.
func (b *batch) replacing(i int) []gpucost.CostImport {
	if !b.o.Replace {
		return nil
	}
	return replaced(b.stored, b.imps[i], b.groups[i], b.results)
}

// replaced returns the stored imports the import imp of group g replaces, newest first: those
// that cover one of its (account, period) pairs or hold one of its files.
func replaced(stored []gpucost.CostImport, imp gpucost.CostImport, g []*fileRead, results []Result) []gpucost.CostImport {
	var out []gpucost.CostImport
	for _, p := range slices.Backward(stored) {
		same := len(imp.Overlap(p)) > 0 || p.Identity != "" && p.Identity == imp.Identity
		for _, f := range g {
			same = same || p.HasFile(results[f.res].Checksum)
		}
		if same {
			out = append(out, p)
		}
	}
	return out
}

// skipped makes res the result of a file imported before as p: nothing changes.
func skipped(res *Result, p gpucost.CostImport) {
	res.Status, res.ImportID, res.Format, res.Version, res.Rows, res.Lines, res.Totals, res.Identity, res.Skipped =
		fmt.Sprintf("skipped: imported before (import %d)", p.ID), p.ID, p.Format, p.Version, p.Rows, p.Lines, p.Totals, p.Identity, true
}

// sourceIsManifest reports whether the file at path starts as a manifest.
func sourceIsManifest(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	first := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, first)
	return isManifest(first[:n])
}
