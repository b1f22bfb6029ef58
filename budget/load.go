package budget

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/tagcheck"
	"github.com/gpucost/gpucost/internal/yamlerr"
	"go.yaml.in/yaml/v3"
)

// fileYAML is a budgets file:
//
//	budgets:
//	  - name: research-gpus
//	    scope: {team: research, gpu_only: true}
//	    period: monthly
//	    amount: 50000
//	    currency: USD
//	    notify: [finops-slack]          # thresholds without their own notify
//	    thresholds:
//	      - {actual: 80, notify: [research-leads]}
//	      - {forecast: 100}
type fileYAML struct {
	Budgets []budgetYAML `yaml:"budgets" validate:"required,min=1,dive"`
}

type budgetYAML struct {
	Name       string          `yaml:"name" validate:"required,max=100,budgetname"`
	Scope      Scope           `yaml:"scope"`
	Period     string          `yaml:"period" validate:"required,oneof=monthly quarterly"`
	Amount     amountYAML      `yaml:"amount"`
	Currency   string          `yaml:"currency" validate:"omitempty,len=3,uppercase"`
	Cost       string          `yaml:"cost" validate:"omitempty,oneof=effective billed"`
	Notify     []string        `yaml:"notify" validate:"dive,required"`
	Thresholds []thresholdYAML `yaml:"thresholds" validate:"dive"`
}

type thresholdYAML struct {
	Actual   *float64 `yaml:"actual" validate:"omitempty,gt=0,lte=1000"`
	Forecast *float64 `yaml:"forecast" validate:"omitempty,gt=0,lte=1000"`
	Notify   []string `yaml:"notify" validate:"dive,required"`
}

// amountYAML is an amount of money written as a number or a string, "50000" or "1234.56", kept
// as the text so that it is parsed exactly.
type amountYAML struct {
	text string
	line int
}

func (a *amountYAML) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("line %d: amount: want a number such as 50000 or 1234.56", n.Line)
	}
	a.text, a.line = n.Value, n.Line
	return nil
}

// fieldsOf lists the fields each YAML type accepts, for the message about a misspelt one.
var fieldsOf = map[string]string{
	"fileYAML":      "budgets",
	"budgetYAML":    "name, scope, period, amount, currency, cost, notify, thresholds",
	"thresholdYAML": "actual, forecast, notify",
	"Scope":         "tags, namespace, team, project, provider, service, gpu_only",
}

var (
	nameRE   = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
	validate = newValidator()
)

func newValidator() *tagcheck.Checker {
	v := tagcheck.New()
	v.NameFields(func(f reflect.StructField) string {
		name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		return name
	})
	v.Register("budgetname", func(v reflect.Value) bool { return nameRE.MatchString(v.String()) })
	return v
}

// Load reads the budgets of a YAML file; name is the file's name, for messages. Unknown fields,
// missing or wrong values and duplicate names are EInvalid errors that name the file, the line
// and the field and say what would work. A budget without thresholds gets DefaultThresholds.
func Load(name string, data []byte) ([]Budget, error) {
	var f fileYAML
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s: no budgets: want a list under budgets:", name)
		}
		return nil, yamlerr.Decode(name, err, fieldsOf)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, yamlerr.Decode(name, err, fieldsOf)
	}
	if err := validate.Struct(f); err != nil {
		return nil, validationError(name, &root, err)
	}
	out := make([]Budget, 0, len(f.Budgets))
	for i, b := range f.Budgets {
		line := yamlerr.Line(&root, "budgets", strconv.Itoa(i))
		if j := slices.IndexFunc(out, func(o Budget) bool { return o.Name == b.Name }); j >= 0 {
			return nil, gpucost.Errorf(gpucost.EInvalid, "%s line %d: budgets[%d].name: %q is also the name of the budget on line %d; names must be unique",
				name, line, i, b.Name, out[j].Line)
		}
		bud, err := b.budget(name, line, i)
		if err != nil {
			return nil, err
		}
		out = append(out, bud)
	}
	return out, nil
}

// budget checks what the validator cannot and returns the Budget.
func (b budgetYAML) budget(file string, line, i int) (Budget, error) {
	cur := b.Currency
	if cur == "" {
		cur = "USD"
	}
	if b.Amount.text == "" {
		return Budget{}, gpucost.Errorf(gpucost.EInvalid, "%s line %d: budgets[%d].amount: missing; give the budget per period, such as amount: 50000", file, line, i)
	}
	amount, err := gpucost.ParseMoney(b.Amount.text, cur)
	if err != nil || amount.Nanos <= 0 {
		return Budget{}, gpucost.Errorf(gpucost.EInvalid, "%s line %d: budgets[%d].amount: %q is not a positive amount; write it as a number such as 50000 or 1234.56",
			file, b.Amount.line, i, b.Amount.text)
	}
	if err := b.Scope.check(); err != nil {
		return Budget{}, gpucost.Errorf(gpucost.EInvalid, "%s line %d: budgets[%d].scope: %w", file, line, i, err)
	}
	out := Budget{Name: b.Name, Scope: b.Scope, Period: b.Period, Amount: amount, Cost: b.Cost, File: file, Line: line}
	if out.Cost == "" {
		out.Cost = Effective
	}
	if len(b.Thresholds) == 0 {
		out.Thresholds = DefaultThresholds(b.Notify)
		return out, nil
	}
	for j, t := range b.Thresholds {
		th := Threshold{Notify: t.Notify}
		switch {
		case (t.Actual == nil) == (t.Forecast == nil):
			return Budget{}, gpucost.Errorf(gpucost.EInvalid,
				"%s line %d: budgets[%d].thresholds[%d]: give exactly one of actual: PERCENT or forecast: PERCENT, such as {actual: 80}",
				file, line, i, j)
		case t.Actual != nil:
			th.Kind, th.Percent = KindActual, *t.Actual
		default:
			th.Kind, th.Percent = KindForecast, *t.Forecast
		}
		if th.Notify == nil {
			th.Notify = b.Notify
		}
		if slices.ContainsFunc(out.Thresholds, func(o Threshold) bool { return o.Kind == th.Kind && o.Percent == th.Percent }) {
			return Budget{}, gpucost.Errorf(gpucost.EInvalid, "%s line %d: budgets[%d].thresholds[%d]: %s is given twice", file, line, i, j, th)
		}
		out.Thresholds = append(out.Thresholds, th)
	}
	slices.SortStableFunc(out.Thresholds, func(a, b Threshold) int {
		if a.Kind != b.Kind {
			return strings.Compare(a.Kind, b.Kind)
		}
		return int(a.Percent*1000) - int(b.Percent*1000)
	})
	return out, nil
}

// validationError names the file, line and field of the first rule a budget breaks.
func validationError(name string, root *yaml.Node, err error) error {
	var fe *tagcheck.FieldError
	if !errors.As(err, &fe) {
		return gpucost.Errorf(gpucost.EInvalid, "%s: %w", name, err)
	}
	_, path, _ := strings.Cut(fe.Namespace(), ".") // drop the Go type's name
	line := yamlerr.Line(root, splitPath(path)...)
	return gpucost.Errorf(gpucost.EInvalid, "%s line %d: %s: %s", name, line, path, ruleHint(fe))
}

// ruleHint says what a value breaking a validation rule should be.
func ruleHint(fe *tagcheck.FieldError) string {
	switch fe.Tag() {
	case "required":
		return "missing; it is required"
	case "oneof":
		return fmt.Sprintf("%q is not allowed; use one of %s", fmt.Sprint(fe.Value()), strings.ReplaceAll(fe.Param(), " ", ", "))
	case "budgetname":
		return fmt.Sprintf("%q: use letters, digits, '.', '_' and '-', starting with a letter or digit", fmt.Sprint(fe.Value()))
	case "len", "uppercase":
		return fmt.Sprintf("%q: use an ISO 4217 code such as USD or EUR", fmt.Sprint(fe.Value()))
	case "gt", "gte", "lt", "lte":
		word := map[string]string{"gt": "above", "gte": "at least", "lt": "below", "lte": "at most"}[fe.Tag()]
		unit := ""
		if f := fe.Field(); f == "actual" || f == "forecast" {
			unit = "%"
		}
		return fmt.Sprintf("%v%s is out of range: use a value %s %s%s", derefValue(fe.Value()), unit, word, fe.Param(), unit)
	case "min":
		return "empty; list at least one budget"
	case "max":
		return fmt.Sprintf("too long; use at most %s characters", fe.Param())
	}
	return fmt.Sprintf("breaks the rule %s", fe.Tag())
}

func derefValue(v any) any {
	if p, ok := v.(*float64); ok && p != nil {
		return *p
	}
	return v
}

// splitPath turns "budgets[0].thresholds[1].actual" into budgets, 0, thresholds, 1, actual.
func splitPath(p string) []string {
	p = strings.NewReplacer("[", ".", "]", "").Replace(p)
	return strings.Split(p, ".")
}
