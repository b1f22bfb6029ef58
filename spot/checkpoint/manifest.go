// Package checkpoint keeps a training job's checkpoint directory in an object store,
// incrementally and content-addressed, so a job reclaimed on one spot machine resumes on the next.
//
// The layout under the store is
//
//	JOB/objects/<sha256>                 one object per distinct file content
//	JOB/manifests/<seq, 20 digits>.json  the files of one checkpoint: path, size, sha256, mode, mtime
//
// A Sync uploads the objects first and writes the manifest last, in one atomic Put, so the newest
// manifest always names objects that are all in the store: "latest" never names an incomplete
// checkpoint, whenever the process is killed.
//
// The job writing the checkpoints should write each one under a new name, or to a temporary name
// and rename it into place: names ending in ".tmp" and names starting with ".gpucost" are never
// synced, and a top-level entry that changes while a pass runs keeps its previous state in that
// pass's manifest.
package checkpoint

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/gpucost/gpucost"
)

// Version is the manifest format written by this package.
const Version = 1

// Manifest lists the files of one complete checkpoint.
type Manifest struct {
	Version int       `json:"version"`
	Job     string    `json:"job"`
	Seq     int64     `json:"seq"`     // 1 for the first manifest of a job, then one more each time
	Created time.Time `json:"created"` // when the Sync that wrote it started
	Latest  string    `json:"latest"`  // the top-level entry with the newest file mtime: the checkpoint to resume from
	Bytes   int64     `json:"bytes"`   // the files' sizes summed
	Files   []File    `json:"files"`   // in path order

	Key string `json:"-"` // the store key it was read from or written to
}

// File is one file of a checkpoint.
type File struct {
	Path   string      `json:"path"` // relative to the checkpoint directory, '/'-separated
	Size   int64       `json:"size"`
	SHA256 string      `json:"sha256"` // lower-case hex; also the object's name
	Mode   fs.FileMode `json:"mode"`   // permission bits
	MTime  time.Time   `json:"mtime"`
}

// newestMTime returns the newest mtime of m's files, in Unix nanoseconds.
func (m *Manifest) newestMTime() int64 {
	var at int64
	for _, f := range m.Files {
		at = max(at, f.MTime.UnixNano())
	}
	return at
}

// entryTime returns the newest mtime of the files of top-level entry top.
func (m *Manifest) entryTime(top string) time.Time {
	var at time.Time
	for _, f := range m.Files {
		if topLevel(f.Path) == top && f.MTime.After(at) {
			at = f.MTime
		}
	}
	return at
}

// entryBytes returns the size of the files of top-level entry top.
func (m *Manifest) entryBytes(top string) int64 {
	var n int64
	for _, f := range m.Files {
		if topLevel(f.Path) == top {
			n += f.Size
		}
	}
	return n
}

// ObjectKey returns the store key of the object holding content with the given sha256.
func ObjectKey(job, sum string) string { return job + "/objects/" + sum }

// ManifestKey returns the store key of manifest seq of job.
func ManifestKey(job string, seq int64) string {
	return fmt.Sprintf("%s/manifests/%020d.json", job, seq)
}

// manifestSeq returns the sequence number a manifest key names, or false for another key.
func manifestSeq(job, key string) (int64, bool) {
	name, ok := strings.CutPrefix(key, job+"/manifests/")
	if !ok {
		return 0, false
	}
	digits, ok := strings.CutSuffix(name, ".json")
	if !ok || len(digits) != 20 {
		return 0, false
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n <= 0 {
		return 0, false
	}
	return n, true
}

// Encode returns the manifest as indented JSON.
func (m *Manifest) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode manifest %d of %s: %w", m.Seq, m.Job, err)
	}
	return append(b, '\n'), nil
}

// ParseManifest reads a manifest stored under key and checks everything a restore relies on:
// the version, a positive sequence number, and for every file a clean relative path (no "..",
// not absolute, no duplicates), a size that is not negative and a 64-digit hex sha256. The error
// names key and, for a bad file, its index and field.
func ParseManifest(key string, data []byte) (Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Manifest{}, gpucost.Errorf(gpucost.EInvalid, "manifest %s: %w", key, err)
	}
	m.Key = key
	switch {
	case m.Version != Version:
		return Manifest{}, gpucost.Errorf(gpucost.EInvalid, "manifest %s: version %d, this gpucost reads version %d", key, m.Version, Version)
	case m.Seq <= 0:
		return Manifest{}, gpucost.Errorf(gpucost.EInvalid, "manifest %s: seq %d is not positive", key, m.Seq)
	case m.Job == "":
		return Manifest{}, gpucost.Errorf(gpucost.EInvalid, "manifest %s: no job", key)
	}
	seen := make(map[string]bool, len(m.Files))
	var total int64
	for i, f := range m.Files {
		if err := checkFile(f); err != nil {
			return Manifest{}, gpucost.Errorf(gpucost.EInvalid, "manifest %s: files[%d]: %s", key, i, err)
		}
		if seen[f.Path] {
			return Manifest{}, gpucost.Errorf(gpucost.EInvalid, "manifest %s: files[%d].path %q appears twice", key, i, f.Path)
		}
		seen[f.Path] = true
		total += f.Size
	}
	if total != m.Bytes {
		return Manifest{}, gpucost.Errorf(gpucost.EInvalid, "manifest %s: bytes %d, but the files hold %d", key, m.Bytes, total)
	}
	return m, nil
}

// checkFile returns what is wrong with one file entry, or nil.
func checkFile(f File) error {
	if !validPath(f.Path) {
		return fmt.Errorf("path %q is not a clean relative path", f.Path)
	}
	if f.Size < 0 {
		return fmt.Errorf("size %d is negative", f.Size)
	}
	if len(f.SHA256) != 64 || strings.ToLower(f.SHA256) != f.SHA256 {
		return fmt.Errorf("sha256 %q is not 64 lower-case hex digits", f.SHA256)
	}
	if _, err := hex.DecodeString(f.SHA256); err != nil {
		return fmt.Errorf("sha256 %q is not 64 lower-case hex digits", f.SHA256)
	}
	if f.Mode&^fs.ModePerm != 0 {
		return fmt.Errorf("mode %v has more than permission bits", f.Mode)
	}
	return nil
}

// validPath reports whether p is a clean, relative, '/'-separated path that stays inside the
// directory it is relative to.
func validPath(p string) bool {
	if p == "" || p == "." || strings.HasPrefix(p, "/") || strings.ContainsAny(p, "\\\x00") || path.Clean(p) != p {
		return false
	}
	for el := range strings.SplitSeq(p, "/") {
		if el == ".." {
			return false
		}
	}
	return true
}

// ignored reports whether a file or directory name is one that Sync never copies: a temporary
// file being written (*.tmp, .*.tmp) or gpucost's own working files (.gpucost*).
func ignored(name string) bool {
	return strings.HasSuffix(name, ".tmp") || strings.HasPrefix(name, ".gpucost")
}
