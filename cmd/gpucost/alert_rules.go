package main

import (
	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/analyze"
	"github.com/gpucost/gpucost/analyze/rulesfile"
	"github.com/gpucost/gpucost/spotrisk"
	"github.com/spf13/cobra"
)

// alertRulesFlags are --rules and --alert-on-no-data: the alert rules a command evaluates or
// exports (docs/architecture.md "Alert rules file").
type alertRulesFlags struct {
	file   string // --rules: a rules file
	noData bool   // --alert-on-no-data: gpu_underutilized's alert_on_no_data, a shorthand
}

// add registers --rules; withNoData registers --alert-on-no-data too.
func (f *alertRulesFlags) add(cmd *cobra.Command, withNoData bool) {
	cmd.Flags().StringVar(&f.file, "rules", "", "alert rules YAML file: change the default rules' threshold, for, severity, min_util, alert_on_no_data, disable them (disabled: true), add rules, set spot_interruptions' threshold and window (examples/alerts/rules.yaml)")
	if withNoData {
		cmd.Flags().BoolVar(&f.noData, "alert-on-no-data", false, "a GPU silent for over 30 minutes raises a no data alert, firing or not (gpu_underutilized's alert_on_no_data: true)")
	}
}

// set returns the rules: analyze.DefaultRules changed by the --rules file, then by
// --alert-on-no-data.
func (f *alertRulesFlags) set() (rulesfile.Set, error) {
	set := rulesfile.Set{Rules: analyze.DefaultRules()}
	if f.file != "" {
		var err error
		if set, err = rulesfile.ReadFile(f.file); err != nil {
			return rulesfile.Set{}, err
		}
	}
	if f.noData {
		r := analyze.RuleByName(set.Rules, analyze.RuleUnderutilized)
		if r == nil {
			return rulesfile.Set{}, gpucost.Errorf(gpucost.EInvalid, "--alert-on-no-data sets %s's alert_on_no_data, which %s disables; set alert_on_no_data: true on another rule there instead", analyze.RuleUnderutilized, f.file)
		}
		r.AlertOnNoData = true
	}
	return set, nil
}

// rules returns the GPU alert rules of set(), nil when neither flag is given (the defaults).
func (f *alertRulesFlags) rules() ([]analyze.Rule, error) {
	if f.file == "" && !f.noData {
		return nil, nil
	}
	set, err := f.set()
	return set.Rules, err
}

// interruptionRule is spotrisk.DefaultInterruptionRule with a rules file's settings; ok is false
// when the file disables it.
func interruptionRule(s rulesfile.Interruptions) (rule spotrisk.InterruptionRule, ok bool) {
	rule = spotrisk.DefaultInterruptionRule
	if s.Window > 0 {
		rule.Window = s.Window
	}
	if s.Threshold > 0 {
		rule.Threshold = s.Threshold
	}
	if s.MinInterruptions > 0 {
		rule.MinInterruptions = s.MinInterruptions
	}
	return rule, !s.Disabled
}

// spotRuleFromFile sets *rule to the rules file's spot_interruptions (report spot --rules),
// but for what --alert-window and --alert-threshold give; on is false when the file disables
// the rule.
func spotRuleFromFile(cmd *cobra.Command, path string, rule *spotrisk.InterruptionRule) (on bool, err error) {
	if path == "" {
		return true, nil
	}
	set, err := rulesfile.ReadFile(path)
	if err != nil {
		return false, err
	}
	fromFile, on := interruptionRule(set.Interruptions)
	if !cmd.Flags().Changed("alert-window") {
		rule.Window = fromFile.Window
	}
	if !cmd.Flags().Changed("alert-threshold") {
		rule.Threshold = fromFile.Threshold
	}
	rule.MinInterruptions = fromFile.MinInterruptions
	return on, nil
}
