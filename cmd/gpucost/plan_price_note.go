package main

// noPriceNote says under a serving plan's table why its money column is blank when neither
// --gpu nor --price priced a GPU-hour, and what to pass; nothing when one did.
func (s *servingFlags) noPriceNote(column string) []string {
	if s.priceFrom != "" {
		return nil
	}
	return []string{"No price: " + column + " is blank because neither --gpu nor --price was given; pass --gpu MODEL (the catalog's on-demand price, such as --gpu L4) or --price 0.80 ($ per GPU-hour)."}
}

// blankColumn empties column col of every row: a figure computed at a price of zero is no figure.
func blankColumn(rows [][]string, col int) {
	for _, r := range rows {
		if col >= 0 && col < len(r) {
			r[col] = ""
		}
	}
}
