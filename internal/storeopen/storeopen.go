// Package storeopen opens the store a name gives (the --db value, $GPUCOST_DB): a
// postgres:// or postgresql:// URL opens the PostgreSQL store, a file path or a file: or
// sqlite: URL the SQLite store, each migrated to the current schema. It is the one place that
// knows the kinds of store; callers see a gpucost.Store and never tell them apart
// (docs/architecture.md "Packages and what they import").
package storeopen

import (
	"context"
	"errors"
	"os"
	"strings"

	"github.com/gpucost/gpucost"
	"github.com/gpucost/gpucost/postgres"
	"github.com/gpucost/gpucost/sqlite"
	"github.com/jackc/pgx/v5/pgconn"
)

// Open opens the store name gives, creating a SQLite file that does not exist yet. An
// unreachable PostgreSQL server is gpucost.EUnavailable, a URL of any other scheme
// gpucost.EInvalid.
func Open(ctx context.Context, name string) (gpucost.Store, error) {
	if IsPostgres(name) {
		s, err := postgres.Open(ctx, name)
		if ce := (*pgconn.ConnectError)(nil); errors.As(err, &ce) {
			return nil, gpucost.Errorf(gpucost.EUnavailable, "%w; check that PostgreSQL runs there and the --db URL's host, port, user, password and database", err)
		}
		if err != nil {
			return nil, err
		}
		return s, nil
	}
	path := File(name)
	if scheme, _, ok := strings.Cut(path, "://"); ok {
		return nil, gpucost.Errorf(gpucost.EInvalid, "--db %s: %s stores are not supported; use a SQLite file path or a postgres:// URL", name, scheme)
	}
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// IsPostgres reports whether name is a PostgreSQL database rather than a SQLite file.
func IsPostgres(name string) bool {
	return strings.HasPrefix(name, "postgres://") || strings.HasPrefix(name, "postgresql://")
}

// File returns the file name gives, without a sqlite: or file: prefix.
func File(name string) string {
	for _, prefix := range []string{"sqlite://", "sqlite:", "file://", "file:"} {
		if p, ok := strings.CutPrefix(name, prefix); ok {
			return p
		}
	}
	return name
}

// Path returns where the store name gives lives, as messages and files beside it name it: the
// SQLite file without its scheme, or the PostgreSQL URL.
func Path(name string) string {
	if IsPostgres(name) {
		return name
	}
	return File(name)
}

// Missing reports whether name gives a SQLite file that does not exist yet: a command that
// only reads has nothing to show then, and must not create the file by opening it.
func Missing(name string) bool {
	f := File(name)
	if strings.Contains(f, "://") {
		return false
	}
	_, err := os.Stat(f)
	return err != nil
}

// Remove deletes the store name gives so that the next Open starts empty: the SQLite file
// with its -wal and -shm (sqlite.Remove). A PostgreSQL database is left alone: dropping one
// is for its administrator.
func Remove(name string) error {
	if IsPostgres(name) {
		return nil
	}
	return sqlite.Remove(File(name))
}
