package httpapi

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
)

// fakeBills keeps the content of each bill it is given and answers as the real importer does
// for a file it has seen.
type fakeBills struct {
	mu      sync.Mutex
	seen    map[string]string // content → name
	paths   []string
	opts    []BillOptions
	err     error
	removed []int64
}

// RemoveBill removes import 7, which holds 12 rows of USD, and knows no other.
func (b *fakeBills) RemoveBill(ctx context.Context, id int64) (gpucost.CostImport, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if id != 7 || slices.Contains(b.removed, id) {
		return gpucost.CostImport{}, gpucost.Errorf(gpucost.ENotFound, "no cost import %d", id)
	}
	b.removed = append(b.removed, id)
	return gpucost.CostImport{ID: 7, Name: "focus.csv", Format: "focus", Rows: 12,
		Totals: []gpucost.CostTotal{{Currency: "USD", BilledCost: gpucost.USD(181436_470000000), EffectiveCost: gpucost.USD(181436_470000000)}}}, nil
}

func (b *fakeBills) ImportBill(ctx context.Context, path string, o BillOptions) (BillImport, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	data, err := os.ReadFile(path)
	if err != nil {
		return BillImport{}, err
	}
	b.paths = append(b.paths, path)
	b.opts = append(b.opts, o)
	if b.err != nil {
		return BillImport{}, b.err
	}
	if b.seen == nil {
		b.seen = map[string]string{}
	}
	if _, ok := b.seen[string(data)]; ok {
		return BillImport{Name: o.Name, Format: "focus", Status: "skipped: imported before", Unchanged: true}, nil
	}
	b.seen[string(data)] = o.Name
	imp := BillImport{Name: o.Name, Format: o.Format, Rows: strings.Count(string(data), "\n"), Status: "imported", ImportID: int64(len(b.seen))}
	if o.Replace {
		imp.Status, imp.Replaced = "replaced import 7", []gpucost.CostImport{{ID: 7, Name: o.Name, Rows: 1248}}
	}
	if o.Lenient {
		imp.Coerced = []BillCoercion{{Kind: "amounts", How: "currency symbol and thousands separators removed", Columns: []string{"BilledCost"}, Count: 2,
			Summary: "coerced 2 amounts in BilledCost: currency symbol and thousands separators removed"}}
	}
	return imp, nil
}

func TestPostBill(t *testing.T) {
	f := newFixture(t)
	bills := &fakeBills{}
	f.srv.Bills = bills
	ingest := f.secrets[gpucost.RoleIngest]
	csv := []byte("BilledCost,EffectiveCost\n1,1\n2,2\n")

	if status, _ := f.do(t, "POST", "/api/v1/bills?name=b.csv", "", csv); status != http.StatusUnauthorized {
		t.Errorf("POST bills without a token = %d; want 401", status)
	}
	if status, _ := f.do(t, "POST", "/api/v1/bills?name=b.csv", f.secrets[gpucost.RoleViewer], csv); status != http.StatusForbidden {
		t.Errorf("POST bills with a viewer token = %d; want 403", status)
	}
	status, out := f.do(t, "POST", "/api/v1/bills?name=b.csv&format=focus", ingest, csv, "Content-Type", "text/csv")
	var imp BillImport
	if err := json.Unmarshal(out, &imp); status != http.StatusCreated || err != nil || imp.Name != "b.csv" || imp.Rows != 3 || imp.Unchanged {
		t.Errorf("POST bills = %d %s; want 201, b.csv imported with 3 rows", status, out)
	}
	status, out = f.do(t, "POST", "/api/v1/bills?name=b.csv", f.secrets[gpucost.RoleAdmin], csv)
	if err := json.Unmarshal(out, &imp); status != http.StatusOK || err != nil || !imp.Unchanged {
		t.Errorf("POST the same bill again = %d %s; want 200 and unchanged", status, out)
	}

	// A gzip body is spooled as sent: the importer reads gzip by its magic.
	var zb bytes.Buffer
	zw := gzip.NewWriter(&zb)
	zw.Write([]byte("BilledCost,EffectiveCost\n3,3\n"))
	zw.Close()
	if status, out := f.do(t, "POST", "/api/v1/bills?name=c.csv.gz", ingest, zb.Bytes(), "Content-Encoding", "gzip"); status != http.StatusCreated {
		t.Errorf("POST a gzip bill = %d %s; want 201", status, out)
	}

	for _, tc := range []struct {
		path   string
		body   []byte
		header []string
		status int
		want   string
	}{
		{"/api/v1/bills", csv, nil, 400, "parameter name is missing"},
		{"/api/v1/bills?name=a.csv&replace=maybe", csv, nil, 400, "replace=\"maybe\": use true or false"},
		{"/api/v1/bills?name=a.csv&lenient=sure", csv, nil, 400, "lenient=\"sure\": use true or false"},
		{"/api/v1/bills?name=a.csv&grain=hour", csv, nil, 400, "unknown parameter grain"},
		{"/api/v1/bills?name=a%0a.csv", csv, nil, 400, "without control characters"},
		{"/api/v1/bills?name=a.csv", nil, nil, 400, "the body is empty"},
		{"/api/v1/bills?name=a.csv", csv, []string{"Content-Encoding", "br"}, 415, "send gzip or no encoding"},
	} {
		before := len(bills.paths)
		status, out := f.do(t, "POST", tc.path, ingest, tc.body, tc.header...)
		if status != tc.status || !strings.Contains(errorMessage(out), tc.want) {
			t.Errorf("POST %s = %d %s; want %d saying %q", tc.path, status, out, tc.status, tc.want)
		}
		if len(bills.paths) != before {
			t.Errorf("POST %s reached the importer", tc.path)
		}
	}

	f.srv.MaxBill = 10
	if status, out := f.do(t, "POST", "/api/v1/bills?name=big.csv", ingest, csv); status != http.StatusRequestEntityTooLarge || !strings.Contains(string(out), "max-bill-size") {
		t.Errorf("POST a bill over the limit = %d %s; want 413", status, out)
	}
	f.srv.MaxBill = DefaultMaxBill

	bills.err = gpucost.Errorf(gpucost.EInvalid, "bad.csv:3: column 1 (BilledCost): \"x\" is not a decimal number")
	if status, out := f.do(t, "POST", "/api/v1/bills?name=bad.csv", ingest, csv); status != http.StatusBadRequest || !strings.Contains(string(out), "bad.csv:3: column 1 (BilledCost)") {
		t.Errorf("POST a malformed bill = %d %s; want 400 with its line and column", status, out)
	}
	for _, p := range bills.paths {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("spooled bill %s is still there", p)
		}
	}
	f.srv.Bills = nil
	if status, _ := f.do(t, "POST", "/api/v1/bills?name=b.csv", ingest, csv); status != http.StatusServiceUnavailable {
		t.Errorf("POST bills without an importer = %d; want 503", status)
	}
}

// fakeBudgets checks documents with budget.Load and keeps the last.
type fakeBudgets struct {
	doc  []byte
	file string
}

func (b *fakeBudgets) PutBudgets(ctx context.Context, doc []byte) ([]budget.Budget, error) {
	if b.file != "" {
		return nil, gpucost.Errorf(gpucost.EConflict, "budgets come from serve --budgets %s", b.file)
	}
	bs, err := budget.Load("budgets", doc)
	if err == nil {
		b.doc = doc
	}
	return bs, err
}

func TestPutBudgets(t *testing.T) {
	f, _ := viewFixture(t, 1)
	store := &fakeBudgets{}
	f.srv.Budgets = store
	doc := []byte("budgets:\n  - name: research\n    period: monthly\n    amount: 1000\n")
	for _, role := range []gpucost.Role{gpucost.RoleViewer, gpucost.RoleIngest} {
		if status, _ := f.do(t, "PUT", "/api/v1/budgets", f.secrets[role], doc); status != http.StatusForbidden {
			t.Errorf("PUT budgets with a %s token = %d; want 403", role, status)
		}
	}
	if store.doc != nil {
		t.Error("a refused PUT stored budgets")
	}
	admin := f.secrets[gpucost.RoleAdmin]
	status, out := f.do(t, "PUT", "/api/v1/budgets", admin, doc, "Content-Type", "application/yaml")
	if status != http.StatusOK || !bytes.Equal(store.doc, doc) || !strings.Contains(string(out), `"budget":"research"`) {
		t.Errorf("PUT budgets as admin = %d %s; want 200 with the statuses, and the document stored", status, out)
	}
	bad := []byte("budgets:\n  - name: research\n    period: weekly\n    amount: 1000\n")
	if status, out := f.do(t, "PUT", "/api/v1/budgets", admin, bad); status != http.StatusBadRequest || !strings.Contains(string(out), "period") {
		t.Errorf("PUT invalid budgets = %d %s; want 400 naming period", status, out)
	}
	if !bytes.Equal(store.doc, doc) {
		t.Error("invalid budgets replaced the stored ones")
	}
	if status, _ := f.do(t, "PUT", "/api/v1/budgets", admin, doc, "Content-Type", "image/png"); status != http.StatusUnsupportedMediaType {
		t.Errorf("PUT budgets as image/png = %d; want 415", status)
	}
	if status, _ := f.do(t, "PUT", "/api/v1/budgets", admin, bytes.Repeat([]byte("#"), MaxBudgetsBody+1)); status != http.StatusRequestEntityTooLarge {
		t.Errorf("PUT budgets over 1 MiB = %d; want 413", status)
	}
	store.file = "/etc/gpucost/budgets.yaml"
	if status, out := f.do(t, "PUT", "/api/v1/budgets", admin, doc); status != http.StatusConflict || !strings.Contains(string(out), "--budgets") {
		t.Errorf("PUT budgets with serve --budgets = %d %s; want 409", status, out)
	}
}

// errorMessage returns an error body's message, or the body as it is.
func errorMessage(out []byte) string {
	var b ErrorBody
	if json.Unmarshal(out, &b) != nil || b.Error.Message == "" {
		return string(out)
	}
	return b.Error.Message
}
