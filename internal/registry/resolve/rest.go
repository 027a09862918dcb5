package resolve

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kwire/kwire/codec/payload"
)

// MaxBody bounds a registry answer: schemas are text of a few KiB.
const MaxBody = 8 << 20

// The backoff of a long-running program (kwire proxy, kwire serve, the
// playground: SetRetry): a registry that could not be reached is asked
// again after 30 s, then 1, 2, 4 and every 5 minutes.
const (
	RetryFirst = 30 * time.Second
	RetryMax   = 5 * time.Minute
)

// SplitURL makes u a registry's base URL, the one each request's path is
// appended to (its path ending in "/", without query or fragment: a
// fragment is never sent), and returns its raw query, which every request
// carries after its path (a gateway's routing, say): RequestURL.
func SplitURL(u *url.URL) (query string) {
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		u.RawPath = ""
	}
	query = u.RawQuery
	u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = "", false, "", ""
	return query
}

// RequestURL is the URL asked for path: the base SplitURL made, the path,
// then the query.
func RequestURL(base, path, query string) string {
	if query == "" {
		return base + path
	}
	return base + path + "?" + query
}

// Get asks the registry for path (relative to its base URL, such as
// "schemas/ids/7") and returns the answer's HTTP status and body (at most
// MaxBody+1 bytes: more is refused). An error means there was no answer
// to read; wrapped in an Unreachable, it marks the registry down.
type Get func(path string) (status int, body []byte, err error)

// Unreachable is Get's error when the registry gave no answer at all
// (refused, timed out, blocked): every later lookup then fails at once
// with it instead of waiting for its own timeout (until the Registry's
// backoff, when it has one, lets one try again).
type Unreachable struct{ Err error }

func (u *Unreachable) Error() string { return u.Err.Error() }
func (u *Unreachable) Unwrap() error { return u.Err }

// Temporary says the lookup may work later: the registry may come back.
// A payload.Decoder does not keep such an answer for the id (nor does
// Registry): it asks again, and the Registry answers at once while down.
func (u *Unreachable) Temporary() bool { return true }

// Registry reads schemas from a Confluent-compatible schema registry:
// GET /schemas/ids/{id}, and each reference by GET
// /subjects/{subject}/versions/{version}. Answers are kept while the
// caches hold them (cache.go: bounded; errors asked again after a while).
type Registry struct {
	where string
	get   Get
	ids   cache[int]
	mu    sync.Mutex
	subs  map[string]*payload.Schema // subject versions read whole
	held  int                        // their text (keepSub bounds both)
	down  error

	// The backoff (SetRetry): zero first means a registry that could not
	// be reached is never asked again.
	first, most time.Duration
	now         func() time.Time
	wait        time.Duration // the backoff now
	until       time.Time     // down holds until then
}

// SetRetry makes a registry that could not be reached be asked again
// after a backoff, first then doubling up to most, lookups failing at
// once in between; one lookup tries when the backoff is over, and an
// answer (any) ends it. For a long-running program (kwire proxy); without
// it the registry stays down for the Registry's life. now is the clock
// (time.Now when nil).
func (c *Registry) SetRetry(first, most time.Duration, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	c.mu.Lock()
	c.first, c.most, c.now = first, max(most, first), now
	c.mu.Unlock()
}

// Down reports whether the registry is held down, having given no answer,
// with the error lookups fail with; until is when the backoff lets the
// next lookup ask again (zero without SetRetry: never; in the past, the
// next lookup asks). For a page saying when it will try again.
func (c *Registry) Down() (until time.Time, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.down == nil || c.first <= 0 {
		return time.Time{}, c.down
	}
	return c.until, c.down
}

// NewRegistry returns a Registry that asks through get; where names the
// registry in messages (its URL without credentials, ending in "/").
func NewRegistry(where string, get Get) *Registry {
	return &Registry{where: where, get: get}
}

// answer is what the registry says of a schema (by id or subject version).
type answer struct {
	Schema     string `json:"schema"`
	SchemaType string `json:"schemaType"`
	ID         int    `json:"id"`
	References []struct {
		Name    string `json:"name"`
		Subject string `json:"subject"`
		Version int    `json:"version"`
	} `json:"references"`
}

// SchemaByID returns the schema registered under id, references resolved.
func (c *Registry) SchemaByID(id int) (*payload.Schema, error) {
	return c.ids.get(id, func() (*payload.Schema, error) {
		refs := 0
		s, err := c.fetch("schemas/ids/"+strconv.Itoa(id), &refs, 0)
		if s != nil {
			s.ID = id
		}
		return s, err
	})
}

// SchemaFor returns nil: the registry is asked by id only (payloads
// without the framing are read through schema files).
func (c *Registry) SchemaFor(topic string, key bool) (*payload.Schema, error) { return nil, nil }

// subject returns a subject's version, references resolved. Only
// answers read whole are kept, and none is waited for: references may
// loop (a subject naming itself, or two goroutines each reading one of two
// subjects that name each other), which a once per subject would turn
// into a deadlock; a loop ends at maxDepth or maxRefs instead.
func (c *Registry) subject(name string, version int, refs *int, depth int) (*payload.Schema, error) {
	key := name + "\x00" + strconv.Itoa(version)
	c.mu.Lock()
	s := c.subs[key]
	c.mu.Unlock()
	if s != nil {
		return s, nil
	}
	v := "latest"
	if version > 0 {
		v = strconv.Itoa(version)
	}
	s, err := c.fetch("subjects/"+url.PathEscape(name)+"/versions/"+v, refs, depth)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.keepSub(key, s)
	c.mu.Unlock()
	return s, nil
}

func (c *Registry) fetch(path string, refs *int, depth int) (*payload.Schema, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("schema registry: references nest deeper than %d", maxDepth)
	}
	var a answer
	if err := c.ask(path, &a); err != nil {
		return nil, err
	}
	s := &payload.Schema{ID: a.ID, Type: a.SchemaType, Text: a.Schema}
	for _, r := range a.References {
		*refs++
		if *refs > maxRefs {
			return nil, fmt.Errorf("schema registry: more than %d references", maxRefs)
		}
		rs, err := c.subject(r.Subject, r.Version, refs, depth+1)
		if err != nil {
			return nil, fmt.Errorf("reference %q (subject %q version %d): %w", r.Name, r.Subject, r.Version, err)
		}
		s.References = append(s.References, payload.Reference{Name: r.Name, Subject: r.Subject, Version: r.Version, Schema: rs})
	}
	return s, nil
}

// ask gets path and reads the answer into v.
func (c *Registry) ask(path string, v *answer) error {
	c.mu.Lock()
	down := c.down
	if down != nil && c.first > 0 && !c.now().Before(c.until) {
		// The backoff is over: this lookup tries, the others still fail
		// at once until it is answered.
		c.until = c.now().Add(c.wait)
		down = nil
	}
	c.mu.Unlock()
	if down != nil {
		return down
	}
	where := c.where + path
	status, body, err := c.get(path)
	var u *Unreachable
	c.mu.Lock()
	switch {
	case err != nil && errors.As(err, &u):
		switch {
		case c.first <= 0:
			if c.down == nil {
				c.down = err
			}
		case c.down == nil:
			c.down, c.wait = err, c.first
			c.until = c.now().Add(c.wait)
		default:
			c.down, c.wait = err, min(2*c.wait, c.most)
			c.until = c.now().Add(c.wait)
		}
	case c.down != nil && c.first > 0:
		// An answer: the registry is back.
		c.down, c.wait = nil, 0
	}
	c.mu.Unlock()
	if err != nil {
		return err
	}
	if len(body) > MaxBody {
		return fmt.Errorf("schema registry: GET %s: the answer is longer than %d bytes", where, MaxBody)
	}
	if status != 200 {
		var e struct {
			Code    int    `json:"error_code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(body, &e) == nil && e.Message != "" {
			return fmt.Errorf("schema registry: GET %s: %s (%d %s)", where, e.Message, e.Code, statusName(status))
		}
		return fmt.Errorf("schema registry: GET %s: %s", where, strings.TrimSpace(strconv.Itoa(status)+" "+statusName(status)))
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("schema registry: GET %s: the answer is not the registry's JSON: %v", where, err)
	}
	if v.Schema == "" {
		return fmt.Errorf("schema registry: GET %s: the answer holds no schema", where)
	}
	return nil
}

// statusName names the HTTP statuses a registry answers with (net/http's
// own names, without linking net/http), "" others.
func statusName(code int) string {
	switch code {
	case 400:
		return "Bad Request"
	case 401:
		return "Unauthorized"
	case 403:
		return "Forbidden"
	case 404:
		return "Not Found"
	case 405:
		return "Method Not Allowed"
	case 408:
		return "Request Timeout"
	case 409:
		return "Conflict"
	case 422:
		return "Unprocessable Entity"
	case 429:
		return "Too Many Requests"
	case 500:
		return "Internal Server Error"
	case 502:
		return "Bad Gateway"
	case 503:
		return "Service Unavailable"
	case 504:
		return "Gateway Timeout"
	}
	return ""
}
