package web

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strings"
	"sync"
	"time"
)

// asset is one embedded static file, with its content hash and, once asked for, its gzip form.
type asset struct {
	name  string
	data  []byte
	hash  string // the first 12 hex digits of its SHA-256: the ?v= of its URL
	ctype string

	gzOnce sync.Once
	gz     []byte
}

// assets serves the embedded files under /static/. A URL carrying the file's current hash
// (?v=HASH, as URL gives it) is cached for a year; any other is revalidated by ETag.
type assets struct {
	files map[string]*asset // by path under static/
}

func mustAssets() *assets {
	a := &assets{files: make(map[string]*asset)}
	err := fs.WalkDir(staticFS, "static", func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		data, err := staticFS.ReadFile(p)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		name := strings.TrimPrefix(p, "static/")
		ctype := mime.TypeByExtension(path.Ext(name))
		if ctype == "" {
			ctype = "text/plain; charset=utf-8"
		}
		a.files[name] = &asset{name: name, data: data, hash: hex.EncodeToString(sum[:6]), ctype: ctype}
		return nil
	})
	if err != nil {
		panic(err) // the files are embedded: this is a build bug
	}
	return a
}

// URL returns the versioned URL of the static file name; it panics on a name that is not
// embedded, so a page naming a missing file fails every test.
func (a *assets) URL(name string) string {
	f, ok := a.files[name]
	if !ok {
		panic("web: no static file " + name)
	}
	return "/static/" + name + "?v=" + f.hash
}

func (a *assets) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f, ok := a.files[strings.TrimPrefix(r.URL.Path, "/static/")]
	if !ok {
		http.NotFound(w, r)
		return
	}
	h := w.Header()
	h.Set("Content-Type", f.ctype)
	h.Set("ETag", `"`+f.hash+`"`)
	h.Set("Vary", "Accept-Encoding")
	if r.URL.Query().Get("v") == f.hash {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "no-cache")
	}
	data := f.data
	if compressible(f.ctype) && acceptsGzip(r) {
		data = f.gzipped()
		h.Set("Content-Encoding", "gzip")
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

func (f *asset) gzipped() []byte {
	f.gzOnce.Do(func() {
		var b bytes.Buffer
		zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		zw.Write(f.data)
		zw.Close()
		f.gz = b.Bytes()
	})
	return f.gz
}

func compressible(ctype string) bool {
	return strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "javascript") || strings.Contains(ctype, "json")
}

func acceptsGzip(r *http.Request) bool {
	for _, enc := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		if e, q, _ := strings.Cut(strings.TrimSpace(enc), ";"); e == "gzip" && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
