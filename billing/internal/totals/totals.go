// Package totals holds Stats, what every bill reader reports about a file, and keeps its running
// totals (Tally) — sums per currency, checked for overflow, and row counts per charge or line
// item type — cheaply enough to run on every row: consecutive rows mostly share a currency and
// a type, so the last of each is kept at hand and a row costs no map look-up.
package totals

import "github.com/gpucost/gpucost"

// Add returns a+b and ok, or false when the sum overflows.
func Add(a, b int64, ok bool) (int64, bool) {
	s := a + b
	if (s > a) != (b > 0) {
		return s, false
	}
	return s, ok
}

// Overflow is the error for totals in currency cur that leave the range of gpucost.Money.
func Overflow(cur string) error {
	return gpucost.Errorf(gpucost.EInvalid, "the %s totals exceed %s; split the file", cur, gpucost.Money{Nanos: 1<<63 - 1, Currency: cur})
}

// Currencies holds one *S of sums per currency. The zero value is ready to use.
type Currencies[S any] struct {
	// New makes the sums of a currency seen first; nil means new(S).
	New     func() *S
	m       map[string]*S
	lastCur string
	last    *S
}

// Of returns the sums of currency cur.
func (c *Currencies[S]) Of(cur string) *S {
	if c.last != nil && cur == c.lastCur {
		return c.last
	}
	return c.of(cur)
}

// of looks the sums of cur up, making them on first sight.
func (c *Currencies[S]) of(cur string) *S {
	s, ok := c.m[cur]
	if !ok {
		if c.New != nil {
			s = c.New()
		} else {
			s = new(S)
		}
		if c.m == nil {
			c.m = map[string]*S{}
		}
		c.m[cur] = s
	}
	c.last, c.lastCur = s, cur
	return s
}

// All returns the sums by currency; the caller must not modify the map.
func (c *Currencies[S]) All() map[string]*S { return c.m }

// Counts counts rows by a key, such as the line item type. The zero value is ready to use.
type Counts struct {
	m       map[string]*int64
	lastKey string
	last    *int64
}

// Add counts one row of key.
func (c *Counts) Add(key string) {
	if c.last == nil || key != c.lastKey {
		n, ok := c.m[key]
		if !ok {
			if c.m == nil {
				c.m = map[string]*int64{}
			}
			n = new(int64)
			c.m[key] = n
		}
		c.last, c.lastKey = n, key
	}
	*c.last++
}

// Map returns the counts by key, as a new map of the reader's integer type.
func Map[N int | int64](c *Counts) map[string]N {
	m := make(map[string]N, len(c.m))
	for k, n := range c.m {
		m[k] = N(*n)
	}
	return m
}
