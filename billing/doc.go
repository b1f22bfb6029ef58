// Package billing turns cloud bills into stored cost lines. Each subpackage reads one format and
// streams gpucost.CostLine values with FOCUS semantics — focus (FOCUS 1.0–1.3), awscur (AWS CUR
// 2.0 and legacy CUR), gcp (the GCP billing export to BigQuery) and azure (Azure cost details) —
// so import, allocation and reports never see a provider's own column names.
//
// billimport is the one way a bill file gets into the store — gpucost import billing, the
// server's POST /api/v1/bills and gpucost demo all call billimport.Importer.Import: format
// detection, the reader registry, checksums and dedupe, reconciliation and the store write in
// one transaction. Every reader reports the same Stats (billing/internal/totals), reads CSV
// with one scanner (billing/internal/csvscan) and Parquet pages with one decoder
// (billing/internal/pqpage).
//
// Aggregator sums a file's lines per day (or hour) × resource × SKU × pricing category × tag set
// as they stream past, which is what gpucost stores: a month of hourly CUR rows for a fleet
// becomes a few lines per resource and day, with exact per-currency totals to reconcile with the
// reader's sums of the source rows.
//
// Bills are untrusted input, so every reader bounds what one field and one line may hold
// (billing/internal/limits: 64 KiB a field, 1 MiB a line; in Parquet, 16 MiB a data page, 64 MiB
// a dictionary, 8 MiB of metadata) and refuses more, before buffering it, with a gpucost.EInvalid
// error naming the file, the line or row, the column and the limit. Real bills stay under 2 KiB a
// line.
package billing
