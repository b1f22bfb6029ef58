package server

import (
	"context"
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/httpapi"
)

// BudgetsSetting is the store setting that keeps the budgets PUT /api/v1/budgets stores, as the
// YAML (or JSON) document it was given, so every server replica reads the same.
const BudgetsSetting = "budgets.yaml"

// LoadBudgets returns the budgets a server evaluates and where they come from: the budgets file
// when given, which wins, else the document stored by PUT /api/v1/budgets, else none (and an
// empty source).
func LoadBudgets(ctx context.Context, st gpucost.SettingStore, file string) ([]budget.Budget, string, error) {
	if file != "" {
		bs, err := budget.ReadFile(file)
		return bs, file, err
	}
	doc, err := st.Setting(ctx, BudgetsSetting, "")
	if err != nil {
		return nil, "", fmt.Errorf("read the stored budgets: %w", err)
	}
	if doc == "" {
		return nil, "", nil
	}
	source := "the store's " + BudgetsSetting
	bs, err := budget.Load(source, []byte(doc))
	return bs, source, err
}

// budgetStore stores the budgets of PUT /api/v1/budgets in the store's settings.
type budgetStore struct {
	store gpucost.SettingStore
	file  string // the budgets file: stored budgets would not be used, so none are taken
	views *Views
}

var _ httpapi.BudgetStore = (*budgetStore)(nil)

// PutBudgets checks doc with budget.Load and stores it; the views then show the new budgets at
// once on this replica, and within Options.ViewsEvery on the others.
func (b *budgetStore) PutBudgets(ctx context.Context, doc []byte) ([]budget.Budget, error) {
	if b.file != "" {
		return nil, gpucost.Errorf(gpucost.EConflict, "this server reads its budgets from serve --budgets %s, which wins over stored ones: edit that file, or restart serve without --budgets to keep budgets in the store", b.file)
	}
	bs, err := budget.Load("budgets", doc)
	if err != nil {
		return nil, err
	}
	if err := b.store.SetSetting(ctx, BudgetsSetting, string(doc)); err != nil {
		return nil, fmt.Errorf("store the budgets: %w", err)
	}
	if b.views != nil {
		b.views.Forget()
	}
	return bs, nil
}

// NewBudgetStore returns the store of the budgets PUT /api/v1/budgets sends over st; with a
// budgets file, which wins, it refuses them.
func NewBudgetStore(st gpucost.SettingStore, file string) httpapi.BudgetStore {
	return &budgetStore{store: st, file: file}
}
