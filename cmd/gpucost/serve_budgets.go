package main

import (
	"context"
	"fmt"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/budget"
	"github.com/gpucost/gpucost/httpapi"
)

// budgetsSetting is the store setting that keeps the budgets PUT /api/v1/budgets stores, as the
// YAML (or JSON) document it was given, so every server replica reads the same.
const budgetsSetting = "budgets.yaml"

// loadServerBudgets returns the budgets a server evaluates and where they come from: the file of
// serve --budgets when given, which wins, else the document stored by PUT /api/v1/budgets, else
// none (and an empty source).
func (e *env) loadServerBudgets(ctx context.Context, db settingStore, file string) ([]budget.Budget, string, error) {
	if file != "" {
		bs, err := readBudgets(file)
		return bs, file, err
	}
	doc, err := db.Setting(ctx, budgetsSetting, "")
	if err != nil {
		return nil, "", fmt.Errorf("read the stored budgets: %w", err)
	}
	if doc == "" {
		return nil, "", nil
	}
	source := "the store's " + budgetsSetting
	bs, err := budget.Load(source, []byte(doc))
	return bs, source, err
}

// serverBudgets stores the budgets of PUT /api/v1/budgets in the store's settings.
type serverBudgets struct {
	db    settingStore
	file  string // serve --budgets: stored budgets would not be used, so none are taken
	views *storeViews
}

var _ httpapi.BudgetStore = (*serverBudgets)(nil)

// PutBudgets checks doc with budget.Load and stores it; the views then show the new budgets at
// once on this replica, and within --views-every on the others.
func (b *serverBudgets) PutBudgets(ctx context.Context, doc []byte) ([]budget.Budget, error) {
	if b.file != "" {
		return nil, gpucost.Errorf(gpucost.EConflict, "this server reads its budgets from serve --budgets %s, which wins over stored ones: edit that file, or restart serve without --budgets to keep budgets in the store", b.file)
	}
	bs, err := budget.Load("budgets", doc)
	if err != nil {
		return nil, err
	}
	if err := b.db.SetSetting(ctx, budgetsSetting, string(doc)); err != nil {
		return nil, fmt.Errorf("store the budgets: %w", err)
	}
	if b.views != nil {
		b.views.forget()
	}
	return bs, nil
}
