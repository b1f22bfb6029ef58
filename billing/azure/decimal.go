package azure

import (
	"math"
	"math/big"
	"math/bits"

	"github.com/gpucost/gpucost"
)

// dec is a decimal read from a cell: the value m × 10^-scale, negated when neg. Prices, quantities
// and exchange rates are multiplied as decimals, so derived amounts (ListCost = PayGPrice ×
// Quantity, ContractedCost = UnitPrice × Quantity × ExchangeRatePricingToBilling) are exact
// before the one rounding to nano-units. Values with more than 19 significant digits keep only
// their text (wide) and are multiplied with math/big.
type dec struct {
	m     uint64
	scale int
	neg   bool
	wide  bool
	raw   []byte // the cell, valid until the next record
}

// parseDec parses [+-]digits[.digits][(e|E)[+-]digits]. Trailing zeros of the fraction are
// dropped, so "0.000300000000000" is 3 × 10^-4. An empty cell is zero.
func parseDec(b []byte) (dec, bool) {
	d := dec{raw: b}
	i := 0
	if i < len(b) && (b[i] == '+' || b[i] == '-') {
		d.neg = b[i] == '-'
		i++
	}
	n, frac, zeros := 0, false, 0 // digits taken; inside the fraction; fraction zeros held back
	for ; i < len(b); i++ {
		c := b[i]
		switch {
		case c == '.' && !frac:
			frac = true
			continue
		case c < '0' || c > '9':
			goto exponent
		}
		n++
		if frac && c == '0' {
			zeros++
			continue
		}
		for ; zeros > 0; zeros-- {
			d.push(0, frac)
		}
		d.push(c-'0', frac)
	}
exponent:
	if n == 0 {
		return d, len(b) == 0
	}
	if i < len(b) {
		if b[i] != 'e' && b[i] != 'E' {
			return d, false
		}
		exp, j, neg := 0, i+1, false
		if j < len(b) && (b[j] == '+' || b[j] == '-') {
			neg = b[j] == '-'
			j++
		}
		if j == len(b) {
			return d, false
		}
		for ; j < len(b); j++ {
			if b[j] < '0' || b[j] > '9' {
				return d, false
			}
			if exp = exp*10 + int(b[j]-'0'); exp > 60 { // no price or quantity needs more
				return d, false
			}
		}
		if neg {
			exp = -exp
		}
		d.scale -= exp
	}
	return d, true
}

// push appends one significant digit; a digit that would overflow makes the decimal wide.
func (d *dec) push(c byte, frac bool) {
	if frac {
		d.scale++
	}
	if d.wide {
		return
	}
	hi, lo := bits.Mul64(d.m, 10)
	sum, carry := bits.Add64(lo, uint64(c), 0)
	if hi != 0 || carry != 0 {
		d.wide = true
		return
	}
	d.m = sum
}

var pow10u = func() (p [20]uint64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()

// mulNanos returns the product of the decimals in nano-units, rounded half to even.
func mulNanos(ds ...dec) (int64, error) {
	var hi, lo uint64 = 0, 1
	scale, neg := 0, false
	for _, d := range ds {
		if d.wide || hi != 0 {
			return bigNanos(ds)
		}
		hi, lo = bits.Mul64(lo, d.m)
		scale += d.scale
		neg = neg != d.neg
	}
	var q uint64
	switch {
	case scale <= 9 && scale >= 9-19:
		h, l := bits.Mul64(lo, pow10u[9-scale])
		if hi != 0 || h != 0 {
			return bigNanos(ds)
		}
		q = l
	case scale > 9 && scale-9 < len(pow10u):
		div := pow10u[scale-9]
		if hi >= div {
			return bigNanos(ds)
		}
		var r uint64
		q, r = bits.Div64(hi, lo, div)
		if half := div - r; r > half || r == half && q&1 == 1 { // round half to even: compare r with div/2
			q++
		}
	default:
		return bigNanos(ds)
	}
	if q > math.MaxInt64 {
		return 0, gpucost.Errorf(gpucost.EInvalid, "a product of %d values is out of range for an amount of money", len(ds))
	}
	if neg {
		return -int64(q), nil
	}
	return int64(q), nil
}

// bigNanos multiplies the decimals' texts exactly with math/big and rounds the product half to
// even to nano-units.
func bigNanos(ds []dec) (int64, error) {
	p := big.NewRat(1_000_000_000, 1)
	for _, d := range ds {
		if len(d.raw) == 0 {
			return 0, nil
		}
		r, ok := new(big.Rat).SetString(string(d.raw))
		if !ok {
			return 0, gpucost.Errorf(gpucost.EInvalid, "%q is not a decimal number", d.raw)
		}
		p.Mul(p, r)
	}
	q, m := new(big.Int).QuoRem(p.Num(), p.Denom(), new(big.Int))
	twice := new(big.Int).Mul(new(big.Int).Abs(m), big.NewInt(2))
	if c := twice.Cmp(p.Denom()); c > 0 || c == 0 && q.Bit(0) == 1 {
		if p.Sign() < 0 {
			q.Sub(q, big.NewInt(1))
		} else {
			q.Add(q, big.NewInt(1))
		}
	}
	if !q.IsInt64() {
		return 0, gpucost.Errorf(gpucost.EInvalid, "a product of %d values is out of range for an amount of money", len(ds))
	}
	return q.Int64(), nil
}

// blocks returns a quantity of pricing blocks in units: the cell's decimal times the block size,
// exactly when the product has at most 15 significant digits ("0.0003" blocks of 10,000 → 3, not
// 2.9999999999999996), else the float product of v, the cell's value.
func blocks(cell []byte, v, block float64) float64 {
	d, ok := parseDec(cell)
	if !ok || d.wide || block != math.Trunc(block) || block < 1 || block > 1e15 || d.scale < 0 || d.scale > 22 {
		return v * block
	}
	hi, m := bits.Mul64(d.m, uint64(block))
	if hi != 0 || m >= 1<<53 {
		return v * block
	}
	f := float64(m) / pow10f[d.scale] // both exact, so the quotient is correctly rounded
	if d.neg {
		f = -f
	}
	return f
}

var pow10f = func() (p [23]float64) {
	p[0] = 1
	for i := 1; i < len(p); i++ {
		p[i] = p[i-1] * 10
	}
	return p
}()
