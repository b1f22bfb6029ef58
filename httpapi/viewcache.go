package httpapi

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// ViewCacheSize is how many distinct views (a view and its query) are kept.
const ViewCacheSize = 128

// ViewCache keeps each computed view for every, at most size of them (the least recently used
// go first), and computes one key once however many requests ask for it at the same time. An
// error is handed to the requests waiting for it and not kept.
type ViewCache struct {
	every time.Duration // zero: compute every time
	size  int
	now   func() time.Time

	mu  sync.Mutex
	lru *list.List // of *viewEntry, most recently used first
	m   map[string]*list.Element
	gen uint64 // bumped by Forget: a view computed from before is not kept
}

type viewEntry struct {
	key  string
	done chan struct{} // closed once val and err are set
	at   time.Time     // when its computation started: the data is as of then
	val  any
	err  error
}

// NewViewCache returns a cache that keeps a view for every (zero: computes every time), reading
// the time from now.
func NewViewCache(every time.Duration, now func() time.Time) *ViewCache {
	return &ViewCache{every: every, size: ViewCacheSize, now: now, lru: list.New(), m: map[string]*list.Element{}}
}

// Get returns the view under key, computing it with compute when it is missing or older than
// every. The computation does not stop when ctx is cancelled: it serves the other requests and
// is kept for the next.
func (c *ViewCache) Get(ctx context.Context, key string, compute func(context.Context) (any, error)) (any, error) {
	if c.every <= 0 {
		return compute(ctx)
	}
	c.mu.Lock()
	if el, ok := c.m[key]; ok {
		ent := el.Value.(*viewEntry)
		select {
		case <-ent.done:
			if c.now().Sub(ent.at) < c.every {
				c.lru.MoveToFront(el)
				c.mu.Unlock()
				return ent.val, nil
			}
			c.remove(el)
		default:
			c.mu.Unlock()
			select {
			case <-ent.done:
				return ent.val, ent.err
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
	}
	ent := &viewEntry{key: key, done: make(chan struct{}), at: c.now()}
	el := c.lru.PushFront(ent)
	c.m[key] = el
	for c.lru.Len() > c.size {
		c.remove(c.lru.Back())
	}
	gen := c.gen
	c.mu.Unlock()

	val, err := compute(context.WithoutCancel(ctx))

	c.mu.Lock()
	ent.val, ent.err = val, err
	close(ent.done)
	if err != nil || gen != c.gen {
		if cur, ok := c.m[key]; ok && cur == el {
			c.remove(el)
		}
	}
	c.mu.Unlock()
	return val, err
}

func (c *ViewCache) remove(el *list.Element) {
	c.lru.Remove(el)
	delete(c.m, el.Value.(*viewEntry).key)
}

// Forget drops every view, so the next requests see a change at once: new budgets, a new bill.
func (c *ViewCache) Forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lru.Init()
	clear(c.m)
	c.gen++
}
