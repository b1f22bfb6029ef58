package storeutil

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/gpucost/gpucost"
)

// SourceChunk is the most compressed bytes one stored chunk of a bill source holds: a row of
// bill_sources in either store. Writing and reading a source hold about one chunk, whatever
// the file's size.
const SourceChunk = 1 << 20

// CompressSource compresses what r gives with zstd and hands put the compressed bytes in
// chunks of SourceChunk (the last shorter), numbered from 0. The chunk is reused after put
// returns. It returns the compressed size; bytes whose SHA-256 is not checksum are an EInvalid,
// after every chunk was put, so a store writes the chunks in a transaction it then rolls back.
func CompressSource(checksum string, r io.Reader, put func(seq int, chunk []byte) error) (int64, error) {
	cw := &chunkWriter{put: put}
	enc, _ := encoders.Get().(*zstd.Encoder)
	if enc == nil {
		var err error
		if enc, err = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(2), zstd.WithLowerEncoderMem(true)); err != nil {
			return 0, err
		}
	}
	defer func() { enc.Reset(nil); encoders.Put(enc) }() // keeps no chunk
	enc.Reset(cw)
	h := sha256.New()
	if _, err := io.Copy(enc, io.TeeReader(r, h)); err != nil {
		enc.Close()
		return 0, fmt.Errorf("store bill source %s: %w", short(checksum), err)
	}
	if err := enc.Close(); err != nil {
		return 0, fmt.Errorf("store bill source %s: %w", short(checksum), err)
	}
	if err := cw.flush(); err != nil {
		return 0, err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != checksum {
		return 0, gpucost.Errorf(gpucost.EInvalid, "store bill source %s: the bytes have SHA-256 %s; store a file under its own checksum", short(checksum), short(got))
	}
	return cw.total, nil
}

// encoders are the zstd encoders of sources, kept between imports: an encoder's tables are
// most of what storing a small file allocates. SpeedFastest compressed a 711 MB FOCUS CSV to
// 38.3 MB, against 39.9 MB at SpeedDefault, with a quarter of the tables.
var encoders sync.Pool

// short is the start of a checksum, for messages.
func short(sum string) string { return sum[:min(len(sum), 12)] }

// chunkWriter cuts what is written into chunks of SourceChunk.
type chunkWriter struct {
	buf   []byte
	seq   int
	total int64
	put   func(int, []byte) error
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		k := min(len(p), SourceChunk-len(w.buf))
		w.buf = append(w.buf, p[:k]...)
		p = p[k:]
		if len(w.buf) == SourceChunk {
			if err := w.flush(); err != nil {
				return 0, err
			}
		}
	}
	return n, nil
}

func (w *chunkWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	if err := w.put(w.seq, w.buf); err != nil {
		return err
	}
	w.seq++
	w.total += int64(len(w.buf))
	w.buf = w.buf[:0]
	return nil
}

// SourceReader returns the decompressed bytes of a stored source whose chunks chunk gives by
// number, from 0, until it reports none; it asks for each chunk once it needs it.
func SourceReader(chunk func(seq int) ([]byte, bool, error)) (io.ReadCloser, error) {
	cr := &chunkReader{chunk: chunk}
	dec, err := zstd.NewReader(bufio.NewReaderSize(cr, 64<<10), zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true))
	if err != nil {
		return nil, err
	}
	return decoderCloser{dec}, nil
}

type decoderCloser struct{ *zstd.Decoder }

func (d decoderCloser) Close() error { d.Decoder.Close(); return nil }

// chunkReader reads the chunks of a stored source one after the other.
type chunkReader struct {
	chunk func(int) ([]byte, bool, error)
	cur   []byte
	seq   int
	done  bool
}

func (r *chunkReader) Read(p []byte) (int, error) {
	for len(r.cur) == 0 {
		if r.done {
			return 0, io.EOF
		}
		b, ok, err := r.chunk(r.seq)
		if err != nil {
			return 0, err
		}
		if !ok {
			r.done = true
			continue
		}
		r.cur, r.seq = b, r.seq+1
	}
	n := copy(p, r.cur)
	r.cur = r.cur[n:]
	return n, nil
}
