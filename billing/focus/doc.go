// Package focus reads and writes bills in FOCUS, the FinOps Open Cost and Usage Specification
// (focus.finops.org), as gpucost.CostLine values.
//
// Read, ReadParquet and ReadFile take FOCUS 1.0, 1.1 and 1.2 files — CSV, gzip-compressed CSV or
// Parquet — whatever the column order, and say which version the columns show. Every FOCUS
// column a CostLine has a field for is read; columns outside the specification (x_ columns and
// any other) are kept by name in CostLine.Extra. Amounts are exact: decimals are parsed into
// nano-units, rounding past the ninth place half to even as gpucost.ParseMoney does, and
// Stats carries exact totals per currency. Nulls are empty values or the word NULL in any case
// (FOCUS "Null Handling"); a null where every row needs a value is refused. A bad value stops
// the read with an error naming "file:line: column 7 (BilledCost)" (file, row and column for
// Parquet), the value and what to do, since an import lands whole or not at all.
// Options.Lenient reads amounts such as "$10,000.00" and dates such as "2025/10/01" that are
// errors otherwise, and counts them in Stats.Coerced.
//
// Writer writes FOCUS 1.2 CSV or Parquet with chosen extra columns (x_Team, x_Job, …), which
// the readers take back line for line, with identical totals.
//
// Reading is built for files of tens of millions of rows: memory stays flat, and a row is a
// few hundred nanoseconds. The CSV reader splits records in place with the bill readers' scanner
// (billing/internal/csvscan) instead of copying each into strings as encoding/csv does, interns the text of each column (bills repeat the same
// accounts, services and SKUs millions of times) behind a small direct-mapped table, parses
// tag sets once per distinct text and parses decimals, quantities and dates with fast paths
// that hand anything unusual to the exact general parsers. The Parquet reader reads only the
// columns it needs, decodes pages with parquet-go, walks them with the bill readers' page
// cursor (billing/internal/pqpage) and fills 256 rows at a time column by column, converting
// each dictionary entry once.
package focus
