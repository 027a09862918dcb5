// Package registry finds the schemas that record payloads name: from a
// Confluent-compatible schema registry over HTTP (Client) or from a
// folder of schema files (Dir). Both implement payload.Source and
// remember every answer for the run.
package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kwire/kwire/codec/payload"
)

// The environment variables that hold the registry's credentials: a user
// and password for basic auth, or a bearer token. Credentials never come
// from a flag, which would land in shell history and process lists.
const (
	EnvUser     = "KWIRE_SCHEMA_REGISTRY_USER"
	EnvPassword = "KWIRE_SCHEMA_REGISTRY_PASSWORD"
	EnvToken    = "KWIRE_SCHEMA_REGISTRY_TOKEN"
)

// DefaultTimeout bounds each request to the registry.
const DefaultTimeout = 10 * time.Second

// maxBody bounds a registry answer: schemas are text of a few KiB.
const maxBody = 8 << 20

// maxRefs bounds the references one schema may pull in, all levels.
const maxRefs = 256

// Client reads schemas from a Confluent-compatible schema registry:
// GET /schemas/ids/{id}, and each reference by GET
// /subjects/{subject}/versions/{version}. Answers (errors too) are kept
// for the run; once the registry cannot be reached, every later lookup
// fails at once with that error instead of waiting for its timeout.
type Client struct {
	base  *url.URL
	http  *http.Client
	auth  func(*http.Request)
	mu    sync.Mutex
	ids   map[int]*entry
	subs  map[string]*entry
	down  error
	calls int // requests made, for tests
}

type entry struct {
	once sync.Once
	s    *payload.Schema
	err  error
}

// Options configure a Client.
type Options struct {
	Timeout time.Duration // per request (DefaultTimeout when 0)
	// Getenv reads the credentials' variables (os.Getenv when nil).
	Getenv func(string) string
	// Transport, when set, carries the requests (tests).
	Transport http.RoundTripper
}

// New returns a Client for the registry at rawURL (http or https). A URL
// that carries a user or password is refused: credentials come from the
// environment (EnvUser and EnvPassword, or EnvToken).
func New(rawURL string, o Options) (*Client, error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, fmt.Errorf("schema registry URL %q: %v", rawURL, err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return nil, fmt.Errorf("schema registry URL %q: expected http:// or https:// and a host", rawURL)
	}
	if u.User != nil {
		return nil, fmt.Errorf("schema registry URL: credentials in the URL are refused (they land in shell history); set %s and %s, or %s", EnvUser, EnvPassword, EnvToken)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := &Client{base: u, ids: map[int]*entry{}, subs: map[string]*entry{}}
	if o.Timeout <= 0 {
		o.Timeout = DefaultTimeout
	}
	c.http = &http.Client{Timeout: o.Timeout, Transport: o.Transport}
	user, pass, token := getenv(EnvUser), getenv(EnvPassword), getenv(EnvToken)
	switch {
	case token != "" && user != "":
		return nil, fmt.Errorf("schema registry: set %s or %s, not both", EnvToken, EnvUser)
	case token != "":
		c.auth = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	case user != "":
		c.auth = func(r *http.Request) { r.SetBasicAuth(user, pass) }
	}
	return c, nil
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
func (c *Client) SchemaByID(id int) (*payload.Schema, error) {
	c.mu.Lock()
	e := c.ids[id]
	if e == nil {
		e = &entry{}
		c.ids[id] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		refs := 0
		e.s, e.err = c.fetch("schemas/ids/"+strconv.Itoa(id), &refs, 0)
		if e.s != nil {
			e.s.ID = id
		}
	})
	return e.s, e.err
}

// SchemaFor returns nil: the registry is asked by id only (payloads
// without the framing are read through --schemas files).
func (c *Client) SchemaFor(topic string, key bool) (*payload.Schema, error) { return nil, nil }

// subject returns a subject's version, references resolved.
func (c *Client) subject(name string, version int, refs *int, depth int) (*payload.Schema, error) {
	key := name + "\x00" + strconv.Itoa(version)
	c.mu.Lock()
	e := c.subs[key]
	if e == nil {
		e = &entry{}
		c.subs[key] = e
	}
	c.mu.Unlock()
	e.once.Do(func() {
		v := "latest"
		if version > 0 {
			v = strconv.Itoa(version)
		}
		e.s, e.err = c.fetch("subjects/"+url.PathEscape(name)+"/versions/"+v, refs, depth)
	})
	return e.s, e.err
}

func (c *Client) fetch(path string, refs *int, depth int) (*payload.Schema, error) {
	if depth > 16 {
		return nil, errors.New("schema registry: references nest deeper than 16")
	}
	var a answer
	if err := c.get(path, &a); err != nil {
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

// get fetches base+path as JSON into v.
func (c *Client) get(path string, v *answer) error {
	c.mu.Lock()
	down := c.down
	c.calls++
	c.mu.Unlock()
	where := c.base.Redacted() + path
	if down != nil {
		return down
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.http.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base.String()+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/vnd.schemaregistry.v1+json, application/json")
	if c.auth != nil {
		c.auth(req)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		err = fmt.Errorf("schema registry %s is unreachable: %v", c.base.Redacted(), unwrapURLError(err))
		c.mu.Lock()
		c.down = err
		c.mu.Unlock()
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody+1))
	if err != nil {
		return fmt.Errorf("schema registry: GET %s: reading the answer: %v", where, unwrapURLError(err))
	}
	if len(body) > maxBody {
		return fmt.Errorf("schema registry: GET %s: the answer is longer than %d bytes", where, maxBody)
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Code    int    `json:"error_code"`
			Message string `json:"message"`
		}
		if json.Unmarshal(body, &e) == nil && e.Message != "" {
			return fmt.Errorf("schema registry: GET %s: %s (%d %s)", where, e.Message, e.Code, http.StatusText(resp.StatusCode))
		}
		return fmt.Errorf("schema registry: GET %s: %s", where, resp.Status)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("schema registry: GET %s: the answer is not the registry's JSON: %v", where, err)
	}
	if v.Schema == "" {
		return fmt.Errorf("schema registry: GET %s: the answer holds no schema", where)
	}
	return nil
}

// unwrapURLError drops net/http's "Get URL:" wrapping, which repeats the
// URL the message already names.
func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
