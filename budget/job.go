package budget

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/internal/yamlerr"
	"go.yaml.in/yaml/v3"
)

// Job kinds.
const (
	KindJob       = "job"                // instances or GPUs for a number of hours
	KindSageMaker = "sagemaker-endpoint" // a SageMaker real-time endpoint's instances, hours a day for days
)

// Pricing models of a job.
const (
	PricingOnDemand  = "on-demand"
	PricingSpot      = "spot"
	PricingCommitted = "committed"
)

// Job is what a pre-launch estimate prices: a training or batch job, or an inference endpoint.
type Job struct {
	Kind         string
	Name         string
	InstanceType string  // p4d.24xlarge, ml.g5.xlarge, …; or GPU with Count
	GPU          string  // a GPU model, with Count GPUs
	Count        int     // instances with InstanceType, GPUs with GPU
	Hours        float64 // how long it runs; for an endpoint, HoursPerDay × Days
	Pricing      string  // PricingOnDemand, PricingSpot or PricingCommitted
	Discount     float64 // with PricingCommitted: the commitment's discount off on-demand, 0.4 for 40%
	PricePerHour gpucost.Money
	HasPrice     bool // PricePerHour was given: the price of one instance-hour
	Provider     string
	Region       string
	Start        time.Time     // when it starts; zero for now
	Span         time.Duration // wall-clock time from start to end: Hours, or Days for an endpoint
	Scope        Scope         // the tags, team, project and namespace it will be billed under
}

// jobYAML is a job spec; see Job.
type jobYAML struct {
	Kind         string     `yaml:"kind" validate:"omitempty,oneof=job sagemaker-endpoint"`
	Name         string     `yaml:"name" validate:"max=200"`
	InstanceType string     `yaml:"instance_type" validate:"max=100"`
	GPU          string     `yaml:"gpu" validate:"max=100"`
	Count        int        `yaml:"count" validate:"gte=0,lte=100000"`
	Hours        float64    `yaml:"hours" validate:"gte=0,lte=100000"`
	Instances    int        `yaml:"instance_count" validate:"gte=0,lte=100000"`
	HoursPerDay  float64    `yaml:"hours_per_day" validate:"gte=0,lte=24"`
	Days         float64    `yaml:"days" validate:"gte=0,lte=3660"`
	Pricing      string     `yaml:"pricing" validate:"omitempty,oneof=on-demand spot committed"`
	Discount     float64    `yaml:"commitment_discount" validate:"gte=0,lt=1"`
	PricePerHour amountYAML `yaml:"price_per_hour"`
	Currency     string     `yaml:"currency" validate:"omitempty,len=3,uppercase"`
	Provider     string     `yaml:"provider" validate:"max=50"`
	Region       string     `yaml:"region" validate:"max=50"`
	Start        string     `yaml:"start"`
	Scope        Scope      `yaml:"scope"`
}

func init() {
	fieldsOf["jobYAML"] = "kind, name, instance_type, gpu, count, hours, instance_count, hours_per_day, days, pricing, " +
		"commitment_discount, price_per_hour, currency, provider, region, start, scope"
}

// LoadJob reads a job spec:
//
//	name: llama-finetune
//	instance_type: p4d.24xlarge   # or gpu: A100-80GB with count: GPUs
//	count: 2                      # instances
//	hours: 48
//	pricing: spot                 # on-demand (default), spot, or committed with commitment_discount: 0.4
//	provider: aws                 # optional, as region
//	scope: {team: research, tags: {env: prod}}
//
// or an endpoint: kind: sagemaker-endpoint, instance_type: ml.g5.xlarge, instance_count: 2,
// hours_per_day: 24, days: 30. Errors name the file, line and field.
func LoadJob(name string, data []byte) (Job, error) {
	var j jobYAML
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&j); err != nil {
		if errors.Is(err, io.EOF) {
			return Job{}, gpucost.Errorf(gpucost.EInvalid, "%s: empty job spec: give instance_type or gpu, count and hours", name)
		}
		return Job{}, yamlerr.Decode(name, err, fieldsOf)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return Job{}, yamlerr.Decode(name, err, fieldsOf)
	}
	if err := validate.Struct(j); err != nil {
		return Job{}, validationError(name, &root, err)
	}
	bad := func(field, format string, args ...any) error {
		return gpucost.Errorf(gpucost.EInvalid, "%s line %d: %s: %s", name, yamlerr.Line(&root, field), field, fmt.Sprintf(format, args...))
	}
	return j.job(bad)
}

// job checks the fields' combinations and returns the Job.
func (j jobYAML) job(bad func(field, format string, args ...any) error) (Job, error) {
	out := Job{Kind: j.Kind, Name: j.Name, InstanceType: strings.TrimSpace(j.InstanceType), GPU: strings.TrimSpace(j.GPU),
		Count: j.Count, Hours: j.Hours, Pricing: j.Pricing, Discount: j.Discount, Provider: j.Provider, Region: j.Region, Scope: j.Scope}
	if out.Kind == "" {
		out.Kind = KindJob
	}
	if out.Pricing == "" {
		out.Pricing = PricingOnDemand
	}
	if err := j.Scope.check(); err != nil {
		return Job{}, bad("scope", "%v", err)
	}
	if out.Kind == KindSageMaker {
		if err := j.endpoint(&out, bad); err != nil {
			return Job{}, err
		}
	} else if err := j.plain(&out, bad); err != nil {
		return Job{}, err
	}
	if out.Pricing == PricingCommitted && out.Discount == 0 && j.PricePerHour.text == "" {
		return Job{}, bad("commitment_discount", "pricing committed needs the commitment's discount off on-demand, such as commitment_discount: 0.4, or price_per_hour")
	}
	if out.Pricing != PricingCommitted && out.Discount != 0 {
		return Job{}, bad("commitment_discount", "only with pricing: committed")
	}
	if j.PricePerHour.text != "" {
		cur := j.Currency
		if cur == "" {
			cur = "USD"
		}
		p, err := gpucost.ParseMoney(j.PricePerHour.text, cur)
		if err != nil || p.Nanos <= 0 {
			return Job{}, bad("price_per_hour", "%q is not a positive price; write the price of one instance-hour, such as 32.77", j.PricePerHour.text)
		}
		out.PricePerHour, out.HasPrice = p, true
	}
	if j.Start != "" {
		t, err := parseStart(j.Start)
		if err != nil {
			return Job{}, bad("start", "%q: use a date such as 2026-12-01 or RFC 3339", j.Start)
		}
		out.Start = t
	}
	return out, nil
}

func (j jobYAML) plain(out *Job, bad func(field, format string, args ...any) error) error {
	switch {
	case j.Instances != 0 || j.HoursPerDay != 0 || j.Days != 0:
		return bad("kind", "instance_count, hours_per_day and days are for kind: sagemaker-endpoint; a job takes count and hours")
	case (out.InstanceType == "") == (out.GPU == ""):
		return bad("instance_type", "give exactly one of instance_type (with count instances) or gpu (with count GPUs)")
	case out.Hours <= 0:
		return bad("hours", "missing; give how many hours the job runs, such as hours: 48")
	}
	if out.Count == 0 {
		if out.GPU != "" {
			return bad("count", "missing; give how many %s GPUs the job needs, such as count: 8", out.GPU)
		}
		out.Count = 1
	}
	out.Span = time.Duration(out.Hours * float64(time.Hour))
	return nil
}

func (j jobYAML) endpoint(out *Job, bad func(field, format string, args ...any) error) error {
	switch {
	case out.GPU != "" || j.Count != 0 || j.Hours != 0:
		return bad("kind", "a sagemaker-endpoint takes instance_type, instance_count, hours_per_day and days, not gpu, count or hours")
	case out.InstanceType == "":
		return bad("instance_type", "missing; give the endpoint's instance type, such as ml.g5.xlarge")
	case j.Days <= 0:
		return bad("days", "missing; give how many days the endpoint runs, such as days: 30")
	case out.Pricing == PricingSpot:
		return bad("pricing", "SageMaker endpoints have no spot pricing; use on-demand or committed (a SageMaker savings plan)")
	}
	if !strings.HasPrefix(out.InstanceType, "ml.") {
		out.InstanceType = "ml." + out.InstanceType
	}
	out.Count = max(1, j.Instances)
	hpd := j.HoursPerDay
	if hpd == 0 {
		hpd = 24
	}
	out.Hours = hpd * j.Days
	out.Span = time.Duration(j.Days * 24 * float64(time.Hour))
	if out.Provider == "" {
		out.Provider = "aws"
	}
	if out.Scope.Service == "" {
		out.Scope.Service = "Amazon SageMaker"
	}
	return nil
}

func parseStart(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(time.RFC3339, s)
	return t.UTC(), err
}
