package sqlite

import (
	"fmt"
	"unsafe"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"
)

// rawConn is a connection of its own to the store's file, opened through SQLite's C API as
// modernc.org/sqlite compiles it to Go, for the one scan that reads hundreds of thousands of
// rows: a row read by database/sql costs a new byte slice for its data (the driver copies every
// blob), a boxed key, and the driver's and database/sql's work per row, about 0.1 cpu-s of a
// report's 300,000 day rows (docs/architecture.md "Speed of the reports"). A rawConn reads a
// row's data where SQLite keeps it and the caller copies it once, into its chunk.
//
// A rawConn is used by one goroutine at a time (its libc.TLS is not safe for concurrent use).
type rawConn struct {
	tls  *libc.TLS
	db   uintptr // sqlite3*
	path string  // for messages
}

// openRaw opens path as sqlite.Open's connections do ("file:" and the path, as a URI, read
// and write so that a store in WAL mode opens as it does for them); it creates nothing, and
// its users only read.
func openRaw(path string) (*rawConn, error) {
	c := &rawConn{tls: libc.NewTLS(), path: path}
	name, err := libc.CString("file:" + path)
	if err != nil {
		c.tls.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	defer libc.Xfree(c.tls, name)
	pp := c.tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	defer c.tls.Free(int(unsafe.Sizeof(uintptr(0))))
	rc := sqlite3.Xsqlite3_open_v2(c.tls, name, pp, sqlite3.SQLITE_OPEN_READWRITE|sqlite3.SQLITE_OPEN_URI|sqlite3.SQLITE_OPEN_NOMUTEX, 0)
	c.db = cPointer(pp)
	if rc != sqlite3.SQLITE_OK {
		err := c.err(rc)
		c.Close()
		return nil, fmt.Errorf("open %s: %w", path, err)
	}
	sqlite3.Xsqlite3_busy_timeout(c.tls, c.db, 10_000) // as sqlite.Open's busy_timeout
	return c, nil
}

// Close closes the connection; its statements must be closed first.
func (c *rawConn) Close() {
	if c.db != 0 {
		sqlite3.Xsqlite3_close_v2(c.tls, c.db)
		c.db = 0
	}
	c.tls.Close()
}

// err returns SQLite's message for the result code rc of the connection's last call.
func (c *rawConn) err(rc int32) error {
	if c.db == 0 {
		return fmt.Errorf("sqlite result code %d", rc)
	}
	return fmt.Errorf("%s (%d)", libc.GoString(sqlite3.Xsqlite3_errmsg(c.tls, c.db)), rc)
}

// rawStmt is a prepared statement of a rawConn with two integer parameters, the first and the
// last (exclusive) key of a range, whose rows are a key and a blob.
type rawStmt struct {
	c     *rawConn
	stmt  uintptr // sqlite3_stmt*
	query string
}

// prepare prepares query, which takes two integer parameters and gives rows of a key and a blob.
func (c *rawConn) prepare(query string) (*rawStmt, error) {
	q, err := libc.CString(query)
	if err != nil {
		return nil, err
	}
	defer libc.Xfree(c.tls, q)
	pp := c.tls.Alloc(int(unsafe.Sizeof(uintptr(0))))
	defer c.tls.Free(int(unsafe.Sizeof(uintptr(0))))
	if rc := sqlite3.Xsqlite3_prepare_v2(c.tls, c.db, q, -1, pp, 0); rc != sqlite3.SQLITE_OK {
		return nil, fmt.Errorf("prepare %q: %w", query, c.err(rc))
	}
	return &rawStmt{c: c, stmt: cPointer(pp), query: query}, nil
}

// Close finalizes the statement.
func (s *rawStmt) Close() {
	if s.stmt != 0 {
		sqlite3.Xsqlite3_finalize(s.c.tls, s.stmt)
		s.stmt = 0
	}
}

// scan runs the statement over keys [lo, hi) and calls fn with each row's key and data, which
// is SQLite's memory: good only during the call. It returns fn's error as it is.
func (s *rawStmt) scan(lo, hi int64, fn func(key int64, data []byte) error) error {
	tls, stmt := s.c.tls, s.stmt
	defer sqlite3.Xsqlite3_reset(tls, stmt)
	if rc := sqlite3.Xsqlite3_bind_int64(tls, stmt, 1, lo); rc != sqlite3.SQLITE_OK {
		return s.c.err(rc)
	}
	if rc := sqlite3.Xsqlite3_bind_int64(tls, stmt, 2, hi); rc != sqlite3.SQLITE_OK {
		return s.c.err(rc)
	}
	for {
		switch rc := sqlite3.Xsqlite3_step(tls, stmt); rc {
		case sqlite3.SQLITE_ROW:
		case sqlite3.SQLITE_DONE:
			return nil
		default:
			return s.c.err(rc)
		}
		key := sqlite3.Xsqlite3_column_int64(tls, stmt, 0)
		p := sqlite3.Xsqlite3_column_blob(tls, stmt, 1) // before column_bytes, as SQLite advises
		n := sqlite3.Xsqlite3_column_bytes(tls, stmt, 1)
		if err := fn(key, cBytes(p, int(n))); err != nil {
			return err
		}
	}
}

// cBytes returns the n bytes at p, memory of modernc.org/libc's allocator (not Go's heap, so
// its address stays put); nil where n is 0. It converts through &p, the conversion the driver
// makes with (*libc.RawMem)(unsafe.Pointer(p)).
func cBytes(p uintptr, n int) []byte {
	if p == 0 || n <= 0 {
		return nil
	}
	return unsafe.Slice((*byte)(*(*unsafe.Pointer)(unsafe.Pointer(&p))), n)
}

// cPointer returns the pointer SQLite wrote at pp, in libc's memory.
func cPointer(pp uintptr) uintptr {
	return *(*uintptr)(*(*unsafe.Pointer)(unsafe.Pointer(&pp)))
}
