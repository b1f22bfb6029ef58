module github.com/parquet-go/parquet-go

go 1.24.9

require (
	github.com/andybalholm/brotli v1.1.1
	github.com/google/uuid v1.6.0
	github.com/hexops/gotextdiff v1.0.3
	github.com/klauspost/compress v1.17.9
	github.com/parquet-go/bitpack v1.0.0
	github.com/parquet-go/jsonlite v1.0.0
	github.com/pierrec/lz4/v4 v4.1.21
	github.com/twpayne/go-geom v1.6.1
	golang.org/x/sys v0.38.0
)
