package present

import "fmt"

// InventoryImport is import inventory's table: the file, its entries, and how many were added
// to the store or replaced an entry with the same resource id.
func InventoryImport(file string, entries, added, replaced int) Table {
	return Table{
		Columns: []string{"File", "Entries", "Added", "Replaced"},
		Rows:    [][]string{{file, fmt.Sprint(entries), fmt.Sprint(added), fmt.Sprint(replaced)}},
		Right:   []int{1, 2, 3},
	}
}
