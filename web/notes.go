package web

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/gpucost/gpucost"
)

// The views' notes are written for the command line as well (present.CostNotes), where a
// figure stays a plain number that scripts can read. A banner is for a person: noteSentence
// rewrites the notes that print bare amounts, counts or field names as sentences with the
// amounts in dollars and the counts grouped, and leaves the others as they are.

var (
	totalNote = regexp.MustCompile(`^Total ([A-Z]{3}): billed (-?[0-9]+(?:\.[0-9]+)?), effective (-?[0-9]+(?:\.[0-9]+)?)\.$`)
	linesNote = regexp.MustCompile(`^([0-9]+) stored lines from ([0-9]+) imports?; (.*)$`)
	telemNote = regexp.MustCompile(`^GPU usage lines: ([0-9]+), ([0-9]+) with telemetry\. (.*)$`)
	usageNote = regexp.MustCompile(`^GPU usage lines: ([0-9]+), ([0-9]+) split by telemetry \(policy ([a-z_-]+)\); idle GPU capacity is in Idle, apart from the users\.$`)
	wholeNote = regexp.MustCompile(`^GPU usage lines: ([0-9]+); the store has no GPU telemetry for the period, so each is (.*)$`)
	spendNote = regexp.MustCompile(`^Spend in ([A-Z]{3}) \((-?[0-9]+(?:\.[0-9]+)?) this month\) (.*)$`)
	priceNote = regexp.MustCompile(`^\s+(.+) without a bill line priced at (.+)$`)
	bareCount = regexp.MustCompile(`(^|[\s(])([0-9]{5,})`)
)

// noteSentence is note as a sentence a person reads.
func noteSentence(note string) string {
	if m := totalNote.FindStringSubmatch(note); m != nil {
		billed, err1 := gpucost.ParseMoney(m[2], m[1])
		effective, err2 := gpucost.ParseMoney(m[3], m[1])
		if err1 == nil && err2 == nil {
			return "The " + m[1] + " bill for the period comes to " + billed.Dollars() + " as billed and " +
				effective.Dollars() + " as effective cost, after discounts, credits and amortised commitments."
		}
	}
	if m := linesNote.FindStringSubmatch(note); m != nil {
		rest := strings.Replace(m[3], "Cost + Idle reconcile", "the cost and idle cost shown reconcile", 1)
		return "The period's " + countWord(m[1], "stored bill line") + " come from " + countWord(m[2], "import") + "; " + rest
	}
	if m := telemNote.FindStringSubmatch(note); m != nil {
		return "Telemetry covers " + groupDigits(m[2]) + " of the bill's " + countWord(m[1], "GPU usage line") + ". " + m[3]
	}
	if m := usageNote.FindStringSubmatch(note); m != nil {
		return "Telemetry split " + groupDigits(m[2]) + " of the bill's " + countWord(m[1], "GPU usage line") +
			" among the GPUs' users (the " + m[3] + " policy); the idle capacity of those GPUs is shown as idle cost, apart from the users."
	}
	if m := wholeNote.FindStringSubmatch(note); m != nil {
		return "The store has no GPU telemetry for the period, so each of the bill's " + countWord(m[1], "GPU usage line") + " is " + m[2]
	}
	if m := spendNote.FindStringSubmatch(note); m != nil {
		if spent, err := gpucost.ParseMoney(m[2], m[1]); err == nil {
			return "Spend in " + m[1] + " (" + spent.Dollars() + " this month) " + m[3]
		}
	}
	if m := priceNote.FindStringSubmatch(note); m != nil {
		return "GPU-hours of the " + m[1] + " that no bill line covers are priced at " + m[2] + "."
	}
	note = strings.ReplaceAll(note, "monthly_saving (gpucost report savings)", "the plan's monthly saving, the figure gpucost report savings gives")
	return bareCount.ReplaceAllStringFunc(note, func(m string) string {
		i := strings.IndexAny(m, "0123456789")
		return m[:i] + groupDigits(m[i:])
	})
}

// countWord is "1 import" or "12,345 imports".
func countWord(n, word string) string {
	if n == "1" {
		return "1 " + word
	}
	if _, err := strconv.Atoi(n); err != nil {
		return n + " " + word + "s"
	}
	return groupDigits(n) + " " + word + "s"
}
