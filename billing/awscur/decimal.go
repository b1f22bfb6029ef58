package awscur

import (
	"math"
	"math/big"
	"strconv"

	"github.com/gpucost/gpucost"
)

// parseNanos parses a decimal amount as gpucost.ParseNanos does, into nano-units rounded half to
// even, without allocating for the plain forms CUR writes ("12.5", "-0.0000001234567890").
// An empty cell is not an amount: ok is false and err nil.
func parseNanos(b []byte) (n int64, ok bool, err error) {
	if len(b) == 0 {
		return 0, false, nil
	}
	n, err = gpucost.ParseNanos(b)
	return n, err == nil, err
}

// floatNanos converts a DOUBLE amount (the type of CUR 2.0 Parquet cost columns) to nano-units:
// the decimal the writer meant — the shortest decimal that reads back as f — rounded half to even.
// Amounts below a million units whose nano count is within a quarter of an integer are converted
// with one multiplication: there the product's error (< 0.25 nano) cannot change the nearest
// integer. Others are written out as their shortest decimal and parsed.
func floatNanos(f float64) (int64, error) {
	if n, ok := fastNanos(f); ok {
		return n, nil
	}
	return slowFloatNanos(f)
}

// fastNanos is floatNanos by one multiplication, where that is exact; ok is false elsewhere.
func fastNanos(f float64) (n int64, ok bool) {
	if math.Abs(f) < 1e6 { // false for NaN and the infinities
		x := f * 1e9
		r := math.RoundToEven(x) // one instruction; the same as Round within a quarter
		if math.Abs(x-r) < 0.25 {
			return int64(r), true
		}
	}
	return 0, false
}

// slowFloatNanos is floatNanos through the shortest decimal.
func slowFloatNanos(f float64) (int64, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, gpucost.Errorf(gpucost.EInvalid, "%v is not an amount of money", f)
	}
	var buf [40]byte
	return gpucost.ParseNanos(strconv.AppendFloat(buf[:0], f, 'f', -1, 64))
}

// pow10 holds 10^0 … 10^18.
var pow10 = func() (p [19]int64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// scaledNanos converts an unscaled DECIMAL(p, scale) integer to nano-units, rounding half to even.
func scaledNanos(unscaled int64, scale int) (int64, error) {
	switch {
	case scale == 9:
		return unscaled, nil
	case scale >= 0 && scale < 9:
		m := pow10[9-scale]
		if unscaled > math.MaxInt64/m || unscaled < math.MinInt64/m {
			return 0, gpucost.Errorf(gpucost.EInvalid, "decimal %dE-%d is out of range for an amount of money", unscaled, scale)
		}
		return unscaled * m, nil
	}
	return bigNanos(big.NewInt(unscaled), scale)
}

// bigNanos converts an unscaled big decimal to nano-units, rounding half to even.
func bigNanos(unscaled *big.Int, scale int) (int64, error) {
	r := new(big.Rat).SetInt(unscaled)
	if scale > 0 {
		r.Quo(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
	} else if scale < 0 {
		r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-scale)), nil)))
	}
	m, err := gpucost.ParseMoney(r.FloatString(scaleDigits(scale)), "")
	return m.Nanos, err
}

// scaleDigits is the number of decimals that keep a DECIMAL of the given scale exact.
func scaleDigits(scale int) int {
	if scale < 0 {
		return 0
	}
	return scale
}
