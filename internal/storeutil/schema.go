package storeutil

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
)

// LastMigration returns the highest version among migration file names (NNNN_name.sql).
func LastMigration(names []string) (int, error) {
	last := 0
	for _, name := range names {
		base := filepath.Base(name)
		v, err := strconv.Atoi(strings.SplitN(base, "_", 2)[0])
		if err != nil {
			return 0, fmt.Errorf("migration %s: name must start with a number", base)
		}
		last = max(last, v)
	}
	return last, nil
}

// NewerSchema is the refusal to open store, whose schema holds version (migration name), newer
// than the last this gpucost knows: an older gpucost writing to it would leave the newer
// tables behind (a day rollup missing the hours it wrote), so reports would miss them.
func NewerSchema(store string, version int, name string, known int) error {
	return fmt.Errorf("%s has schema version %d (%s), written by a newer gpucost; this gpucost knows versions up to %d: use the newer gpucost with this store (gpucost version says which one this is)",
		store, version, name, known)
}
