package present

import (
	"slices"

	"github.com/gpucost/gpucost"
)

// ServingPriceNote says under a serving plan's table where its price per GPU-hour came from
// (from: --price or the catalog's offers); how says which price it is, such as " on demand".
// None without a price.
func ServingPriceNote(perGPUHour gpucost.Money, from, how string) []string {
	if from == "" {
		return nil
	}
	return []string{"Price: " + perGPUHour.Dollars() + " per GPU-hour" + how + " (" + from + ")."}
}

// NoServingPrice says under a serving plan's table why its money column is blank when neither
// --gpu nor --price priced a GPU-hour (from is empty), and what to pass; none when one did.
func NoServingPrice(from, column string) []string {
	if from != "" {
		return nil
	}
	return []string{"No price: " + column + " is blank because neither --gpu nor --price was given; pass --gpu MODEL (the catalog's on-demand price, such as --gpu L4) or --price 0.80 ($ per GPU-hour)."}
}

// BlankColumn empties the column named name in every row of t: a figure computed at a price of
// zero is no figure.
func (t Table) BlankColumn(name string) {
	col := slices.Index(t.Columns, name)
	for _, r := range t.Rows {
		if col >= 0 && col < len(r) {
			r[col] = ""
		}
	}
}
