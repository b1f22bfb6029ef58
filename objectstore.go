package gpucost

import (
	"context"
	"io"
	"time"
)

// ObjectStore keeps what must outlive a machine: checkpoints, job events and queue results. It
// is an S3 bucket prefix or a local directory; both give the same guarantees.
type ObjectStore interface {
	// Put stores size bytes from r under key, atomically: a reader sees the whole new object or
	// the previous one, never a part. Large objects go up in parallel parts.
	Put(ctx context.Context, key string, r io.Reader, size int64) error
	// Get opens the object under key. It returns an ENotFound Error if there is none.
	Get(ctx context.Context, key string) (io.ReadCloser, error)
	// List returns the objects whose keys start with prefix, in key order.
	List(ctx context.Context, prefix string) ([]Object, error)
	// Delete removes the object under key. Deleting a missing object is not an error.
	Delete(ctx context.Context, key string) error
}

// Object describes one stored object.
type Object struct {
	Key      string // relative to the store's root, '/'-separated
	Size     int64
	Modified time.Time
}
