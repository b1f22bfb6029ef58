package postgres

import "fmt"

// params collects a query's arguments and names each by its PostgreSQL placeholder ($1, $2 …):
// the log filters build their WHERE clauses through add.
type params struct{ args []any }

// add keeps v and returns its placeholder.
func (p *params) add(v any) string {
	p.args = append(p.args, v)
	return fmt.Sprintf("$%d", len(p.args))
}
