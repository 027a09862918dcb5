// Package resolve holds the rules that turn schema files and a schema
// registry's answers into payload.Schemas, with no I/O of its own: Files
// reads a folder's layout (schemas by id or topic, and the files they
// refer to) from any fs.FS, Registry reads a Confluent-compatible
// registry's REST answers (schemas by id, references by subject and
// version) through a Get function, and Chain asks sources in turn.
//
// Both users of these rules bring the I/O: package registry (the CLI's
// --schemas folder through an os.Root, its --schema-registry over
// net/http) and the playground's payload module (the schema files a user
// dropped on the page, a registry the browser fetches), which must link
// neither net/http nor the os.
package resolve

import (
	"errors"
	"sync"

	"github.com/kwire/kwire/codec/payload"
)

// maxRefs bounds the references one schema may pull in, all levels.
const maxRefs = 256

// maxDepth bounds how deep references nest.
const maxDepth = 16

// entry is one answer, asked for once.
type entry struct {
	once sync.Once
	s    *payload.Schema
	err  error
}

// cache maps keys to entries, each computed once.
type cache[K comparable] struct {
	mu sync.Mutex
	m  map[K]*entry
}

func (c *cache[K]) get(k K, f func() (*payload.Schema, error)) (*payload.Schema, error) {
	c.mu.Lock()
	if c.m == nil {
		c.m = map[K]*entry{}
	}
	e := c.m[k]
	if e == nil {
		e = &entry{}
		c.m[k] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.s, e.err = f() })
	var u *Unreachable
	if e.err != nil && errors.As(e.err, &u) {
		// Not an answer: the next lookup asks again (the Registry fails
		// it at once while the registry is down).
		c.mu.Lock()
		if c.m[k] == e {
			delete(c.m, k)
		}
		c.mu.Unlock()
	}
	return e.s, e.err
}

// Chain asks each source in turn: the first schema found is the answer.
// When none has one, SchemaByID returns every error the sources gave, in
// their order (nil, nil when none did): that a folder holds no such file
// must not hide that the registry after it is down.
type Chain []payload.Source

// SchemaByID returns the first source's schema registered under id.
func (c Chain) SchemaByID(id int) (*payload.Schema, error) {
	var errs chainError
	for _, x := range c {
		s, err := x.SchemaByID(id)
		if err == nil && s != nil {
			return s, nil
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	switch len(errs) {
	case 0:
		return nil, nil
	case 1:
		return nil, errs[0]
	}
	return nil, errs
}

// chainError is what each source of a Chain said, none having the schema.
type chainError []error

func (e chainError) Error() string {
	s := ""
	for i, err := range e {
		if i > 0 {
			s += "; "
		}
		s += err.Error()
	}
	return s
}

func (e chainError) Unwrap() []error { return e }

// SchemaFor returns the first answer (a schema or an error) a source
// gives for topic's keys or values.
func (c Chain) SchemaFor(topic string, key bool) (*payload.Schema, error) {
	for _, x := range c {
		if s, err := x.SchemaFor(topic, key); err != nil || s != nil {
			return s, err
		}
	}
	return nil, nil
}
