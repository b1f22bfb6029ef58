package wal

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"time"

	"github.com/gpucost/gpucost"
)

// A record is framed as 4 bytes of payload length and 4 bytes of the payload's CRC-32C, both
// little-endian, then the payload: a version byte, the number of samples and each sample (see
// appendSample). A crash can leave the last record of a segment cut short or half-written (the
// file system may even extend the file with zeros); the length, the checksum and the refusal of
// empty payloads make sure such a tail is detected and dropped, never read as samples.
const (
	headerLen     = 8
	recordVersion = 1

	// MaxRecord is the largest payload a record may have: a POST of samples is at most 64 MiB
	// once decompressed (httpapi.DefaultMaxDecoded), and a sample encodes to at most about twice
	// its smallest JSON (the eight readings take 8 bytes each here), so 256 MiB only ever stops
	// a corrupt length from being believed.
	MaxRecord = 256 << 20
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errCorrupt says a record's payload passed its checksum but does not decode: a bug or a
// record from a newer version.
var errCorrupt = errors.New("malformed record payload")

// appendRecord appends the framed record of samples to b.
func appendRecord(b []byte, samples []gpucost.Sample) []byte {
	start := len(b)
	b = append(b, make([]byte, headerLen)...)
	b = append(b, recordVersion)
	b = binary.AppendUvarint(b, uint64(len(samples)))
	for i := range samples {
		b = appendSample(b, &samples[i])
	}
	payload := b[start+headerLen:]
	binary.LittleEndian.PutUint32(b[start:], uint32(len(payload)))
	binary.LittleEndian.PutUint32(b[start+4:], crc32.Checksum(payload, crcTable))
	return b
}

// appendSample appends s: its time as Unix nanoseconds, its GPU's fields, the eight readings
// as IEEE 754 bits (NaN, an absent reading, survives) and its labels.
func appendSample(b []byte, s *gpucost.Sample) []byte {
	b = binary.AppendVarint(b, s.Time.UnixNano())
	for _, str := range [...]string{s.GPU.UUID, s.GPU.Host, s.GPU.Model, s.GPU.Parent, s.GPU.Profile} {
		b = appendString(b, str)
	}
	b = binary.AppendVarint(b, int64(s.GPU.Index))
	for _, v := range [...]float64{s.Util, s.MemUsedMiB, s.MemTotalMiB, s.PowerW, s.TempC,
		s.SMActive, s.SMOccupancy, s.GrEngineActive} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	b = binary.AppendUvarint(b, uint64(len(s.Labels)))
	for k, v := range s.Labels {
		b = appendString(b, k)
		b = appendString(b, v)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// parseRecord reads the record at the start of b. It returns the payload and the record's
// length, or ok false when b does not start with a whole, intact record: a torn tail.
func parseRecord(b []byte) (payload []byte, n int, ok bool) {
	if len(b) < headerLen {
		return nil, 0, false
	}
	size := binary.LittleEndian.Uint32(b)
	if size == 0 || size > MaxRecord || uint64(len(b)-headerLen) < uint64(size) {
		return nil, 0, false
	}
	payload = b[headerLen : headerLen+int(size)]
	if crc32.Checksum(payload, crcTable) != binary.LittleEndian.Uint32(b[4:]) {
		return nil, 0, false
	}
	return payload, headerLen + int(size), true
}

// decodeSamples decodes a record's payload.
func decodeSamples(p []byte) ([]gpucost.Sample, error) {
	d := decoder{b: p}
	if d.byte() != recordVersion {
		return nil, errCorrupt
	}
	n := d.uvarint()
	if d.err != nil || n > uint64(len(p)) {
		return nil, errCorrupt
	}
	out := make([]gpucost.Sample, 0, n)
	for range n {
		var s gpucost.Sample
		s.Time = time.Unix(0, d.varint()).UTC()
		for _, str := range [...]*string{&s.GPU.UUID, &s.GPU.Host, &s.GPU.Model, &s.GPU.Parent, &s.GPU.Profile} {
			*str = d.string()
		}
		s.GPU.Index = int(d.varint())
		for _, v := range [...]*float64{&s.Util, &s.MemUsedMiB, &s.MemTotalMiB, &s.PowerW, &s.TempC,
			&s.SMActive, &s.SMOccupancy, &s.GrEngineActive} {
			*v = math.Float64frombits(d.uint64())
		}
		if nl := d.uvarint(); nl > 0 && nl <= uint64(len(p)) {
			s.Labels = make(gpucost.Labels, nl)
			for range nl {
				k := d.string()
				s.Labels[k] = d.string()
			}
		}
		if d.err != nil {
			return nil, d.err
		}
		out = append(out, s)
	}
	if d.err != nil || len(d.b) != 0 {
		return nil, errCorrupt
	}
	return out, nil
}

// decoder reads a payload, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() { d.err, d.b = errCorrupt, nil }

func (d *decoder) byte() byte {
	if len(d.b) < 1 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

func (d *decoder) uvarint() uint64 {
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) varint() int64 {
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) uint64() uint64 {
	if len(d.b) < 8 {
		d.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(d.b)
	d.b = d.b[8:]
	return v
}

func (d *decoder) string() string {
	n := d.uvarint()
	if n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}
