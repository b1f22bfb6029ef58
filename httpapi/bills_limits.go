package httpapi

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"syscall"
)

// MaxBillRatio is the most a gzip bill upload may grow by when decompressed. Real bills
// compress 3.7× to 10.1× with gzip -9 (the FOCUS sample in billing/focus/testdata 8.2×, the AWS,
// Azure and GCP exports in billing/*/testdata 3.7× to 10.1×), and the most regular bill we
// could make, the demo fleet's hourly FOCUS bill (gpucost demo: 29,000 rows, 14.7 MB), 76.9×;
// scripts/bill_ratios.sh measures them. 250× is three times that, while issue 13's bomb (60 rows
// with 15 MiB ResourceIds: 940 KB that decompress to 900 MiB, about 1,000×) is stopped after
// decompressing 250 times its size.
const MaxBillRatio = 250

// BillDecodedPerSent is how many times MaxBill a bill may hold once decompressed (32 GiB with
// the default 2 GiB): gpucost import billing reads a FOCUS bill at about 50 MB/s (the demo's
// 14.7 MB bill in 0.3 s), so that much takes about 11 minutes, within BillTimeout's 30.
const BillDecodedPerSent = 16

// BillDiskHeadroom is the free space a bill upload leaves on the spool folder's and the store's
// file systems beyond what it needs: room for the database's write-ahead log and checkpoint and
// for other writers, so an upload never fills a disk.
const BillDiskHeadroom = 256 << 20

// receiveBill spools the body as sent (a gzip body stays compressed: the importer reads gzip by
// its magic) and checks it against the bill limits: at most MaxBill as sent, and for gzip at
// most MaxBillRatio times that and BillDecodedPerSent times MaxBill decompressed. Before
// writing anything it checks that the spool folder, and the store's folder where the store is
// a local file, have room for the bill and BillDiskHeadroom, or answers 507.
func (s *Server) receiveBill(w http.ResponseWriter, r *http.Request) (string, func(), error) {
	spool := s.TempDir
	if spool == "" {
		spool = os.TempDir()
	}
	if r.ContentLength > 0 {
		if err := checkFree(spool, "the spool folder", r.ContentLength); err != nil {
			return "", nil, err
		}
	}
	path, cleanup, err := s.spoolBill(w, r)
	if err != nil {
		return "", nil, err
	}
	sizer, _ := s.Bills.(ParquetSizer)
	decoded, err := checkBillSize(path, s.MaxBill, sizer)
	if err == nil {
		if sd, ok := s.Bills.(BillStoreDir); ok && sd.StoreDir() != "" {
			err = checkFree(sd.StoreDir(), "the store's folder", decoded)
		}
	}
	if err != nil {
		cleanup()
		return "", nil, err
	}
	return path, cleanup, nil
}

// spoolBill writes the body, as sent, to a temporary file, refusing it past MaxBill.
func (s *Server) spoolBill(w http.ResponseWriter, r *http.Request) (string, func(), error) {
	dir, err := os.MkdirTemp(s.TempDir, "gpucost-bill-")
	if err != nil {
		return "", nil, fmt.Errorf("spool the bill: %w", err)
	}
	cleanup := func() { os.RemoveAll(dir) }
	path := filepath.Join(dir, "bill")
	f, err := os.Create(path)
	if err != nil {
		cleanup()
		return "", nil, fmt.Errorf("spool the bill: %w", err)
	}
	body := http.MaxBytesReader(w, r.Body, s.MaxBill)
	n, err := io.Copy(f, body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		cleanup()
		var tooBig *http.MaxBytesError
		switch {
		case errors.As(err, &tooBig):
			return "", nil, &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
				"the bill is over the limit of %s as sent; gzip it, split it by month, or raise serve --max-bill-size", mib(s.MaxBill))}
		case errors.Is(err, syscall.ENOSPC):
			return "", nil, &storageError{fmt.Sprintf("the spool folder %s filled up after %s of the bill; free space there or start serve with TMPDIR on a larger disk", s.TempDir, mib(n))}
		}
		return "", nil, &bodyError{http.StatusBadRequest, "read the bill: " + err.Error()}
	}
	if n == 0 {
		cleanup()
		return "", nil, &bodyError{http.StatusBadRequest, "the body is empty: send the billing export (CSV, gzip CSV, JSON lines or Parquet)"}
	}
	return path, cleanup, nil
}

// ParquetSizer is implemented by a BillImporter that can tell what a Parquet bill holds once
// its pages are decompressed (billing.ParquetDecodedSize), so that the limits on a gzip bill's
// decompressed size hold for Parquet, which compresses inside the file, too.
type ParquetSizer interface {
	ParquetDecodedSize(path string) (int64, error)
}

var parquetMagic = []byte("PAR1")

// checkBillSize returns how large the spooled bill at path is decompressed: its size, or for a
// gzip file what it decompresses to, or for a Parquet file what its pages hold decompressed
// (when parquet is not nil), which must stay within MaxBillRatio times its size and
// BillDecodedPerSent times maxBill. Decompression stops at the first limit passed, so a bomb
// costs the server no more than reading that much.
func checkBillSize(path string, maxBill int64, parquet ParquetSizer) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, fmt.Errorf("check the bill: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("check the bill: %w", err)
	}
	br := bufio.NewReader(f)
	magic, _ := br.Peek(4)
	switch {
	case parquet != nil && bytes.Equal(magic, parquetMagic):
		n, err := parquet.ParquetDecodedSize(path)
		if err != nil {
			return 0, &bodyError{http.StatusBadRequest, "the Parquet bill cannot be read: " + err.Error()}
		}
		if err := checkDecoded("Parquet", n, info.Size(), maxBill); err != nil {
			return 0, err
		}
		return n, nil
	case len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b:
		return info.Size(), nil
	}
	limit := min(MaxBillRatio*info.Size(), BillDecodedPerSent*maxBill)
	zr, err := gzip.NewReader(br)
	if err != nil {
		return 0, &bodyError{http.StatusBadRequest, "the bill starts as gzip but its header is damaged: " + err.Error()}
	}
	n, err := io.Copy(io.Discard, io.LimitReader(zr, limit+1))
	if err != nil {
		return 0, &bodyError{http.StatusBadRequest, fmt.Sprintf("the gzip bill is damaged after %s decompressed: %v", mib(n), err)}
	}
	if err := checkDecoded("gzip", n, info.Size(), maxBill); err != nil {
		return 0, err
	}
	return n, nil
}

// checkDecoded refuses a compressed bill of kind (gzip, Parquet) that holds decoded bytes where
// sent were sent: more than MaxBillRatio times that, or BillDecodedPerSent times maxBill.
func checkDecoded(kind string, decoded, sent, maxBill int64) error {
	if decoded > MaxBillRatio*sent {
		return &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"the %s bill decompresses to more than %d times its %s (the limit MaxBillRatio; real bills compress 4 to 10 times, a regular hourly bill 77): it is not a bill export, or send it uncompressed", kind, MaxBillRatio, mib(sent))}
	}
	if limit := BillDecodedPerSent * maxBill; decoded > limit {
		return &bodyError{http.StatusRequestEntityTooLarge, fmt.Sprintf(
			"the %s bill decompresses to more than %s (%d times serve --max-bill-size, the limit BillDecodedPerSent); split it by month or import it with gpucost import billing", kind, mib(limit), BillDecodedPerSent)}
	}
	return nil
}

// storageError is a bill that does not fit on a disk: 507 Insufficient Storage.
type storageError struct{ msg string }

func (e *storageError) Error() string { return e.msg }

// checkFree returns a storageError if the file system of dir, called what, has less than need
// and BillDiskHeadroom free. Where free space cannot be read, nothing is checked.
func checkFree(dir, what string, need int64) error {
	free, ok := freeSpace(dir)
	if !ok {
		return nil
	}
	if want := need + BillDiskHeadroom; free < want {
		return &storageError{fmt.Sprintf("%s %s has %s free; this bill needs %s (%s for the bill and %s kept free, BillDiskHeadroom): free space there, or import the bill with gpucost import billing where there is room",
			what, dir, mib(free), mib(want), mib(need), mib(BillDiskHeadroom))}
	}
	return nil
}
