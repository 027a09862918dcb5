package resolve

import (
	"errors"
	"sync"
	"time"

	"github.com/kwire/kwire/codec/payload"
)

// Bounds of the answers a source keeps: a server runs for days and every
// frame may name new ids, so what is kept is bounded in entries and in
// schema text, and an answer that there is no schema (or an error) is
// asked again once negativeTTL has passed (the registry may have it by
// then), never kept for the process's life.
const (
	maxKept      = 1024
	maxKeptBytes = 16 << 20
	negativeTTL  = time.Minute
)

// entry is one answer, asked for once while it is kept.
type entry struct {
	once sync.Once
	s    *payload.Schema
	err  error
	size int       // the schema's text, references included (0 until answered)
	at   time.Time // when a negative answer came (zero: positive or not yet)
	kept bool      // still in the cache's map (its size counted)
}

// cache maps keys to entries, each computed once while kept: at most
// maxKept entries and maxKeptBytes of schema text, evicted in Go's map
// order; negative answers expire after negativeTTL.
type cache[K comparable] struct {
	mu    sync.Mutex
	m     map[K]*entry
	bytes int
	now   func() time.Time // time.Now when nil (tests set it)
}

func (c *cache[K]) clock() time.Time {
	if c.now != nil {
		return c.now()
	}
	return time.Now()
}

func (c *cache[K]) get(k K, f func() (*payload.Schema, error)) (*payload.Schema, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[K]*entry{}
	}
	e := c.m[k]
	if e != nil && !e.at.IsZero() && c.clock().Sub(e.at) >= negativeTTL {
		c.drop(k, e)
		e = nil
	}
	if e == nil {
		e = &entry{kept: true}
		c.m[k] = e
		c.trim(k)
	}
	c.mu.Unlock()
	e.once.Do(func() {
		s, err := f()
		c.mu.Lock()
		e.s, e.err = s, err
		if s == nil || err != nil {
			e.at = c.clock()
		} else if e.kept {
			e.size = textSize(s)
			c.bytes += e.size
			c.trim(k)
		}
		c.mu.Unlock()
	})
	c.mu.Lock()
	s, err := e.s, e.err
	var u *Unreachable
	if err != nil && errors.As(err, &u) && c.m[k] == e {
		// Not an answer: the next lookup asks again (the Registry fails
		// it at once while the registry is down, and retries it after
		// its backoff).
		c.drop(k, e)
	}
	c.mu.Unlock()
	return s, err
}

// drop removes k's entry e. c.mu is held.
func (c *cache[K]) drop(k K, e *entry) {
	delete(c.m, k)
	e.kept = false
	c.bytes -= e.size
}

// trim evicts entries until at most maxKept and maxKeptBytes are kept,
// sparing spare's, the entry just made or answered: evicted in its own
// making (one time in maxKept+1, as a map is walked), a 404 was asked
// again at once, and a schema fetched again at its next use. c.mu is
// held.
func (c *cache[K]) trim(spare K) {
	for k, e := range c.m {
		if len(c.m) <= maxKept && c.bytes <= maxKeptBytes {
			return
		}
		if k != spare {
			c.drop(k, e)
		}
	}
}

// textSize is what a schema's text weighs, its references' included
// (each once).
func textSize(s *payload.Schema) int {
	seen := map[*payload.Schema]bool{}
	var walk func(s *payload.Schema, depth int) int
	walk = func(s *payload.Schema, depth int) int {
		if s == nil || seen[s] || depth > maxDepth {
			return 0
		}
		seen[s] = true
		n := len(s.Text)
		for _, r := range s.References {
			n += walk(r.Schema, depth+1)
		}
		return n
	}
	return walk(s, 0)
}

// keepSub keeps subject version key's schema s, evicting others past
// maxKept entries or maxKeptBytes of text. c.mu is held.
func (c *Registry) keepSub(key string, s *payload.Schema) {
	if c.subs == nil {
		c.subs = map[string]*payload.Schema{}
	}
	if old, ok := c.subs[key]; ok {
		c.held -= textSize(old)
	}
	c.subs[key] = s
	c.held += textSize(s)
	for k, x := range c.subs {
		if len(c.subs) <= maxKept && c.held <= maxKeptBytes {
			return
		}
		if k != key {
			c.held -= textSize(x)
			delete(c.subs, k)
		}
	}
}
