//go:build !s390x

package parquet

const (
	firstByteOffsetOfBooleanValue = 0
	firstByteOffsetOf32BitsValue  = 0
)
