// Package registry finds the schemas that record payloads name: from a
// Confluent-compatible schema registry over HTTP (Client) or from a
// folder of schema files (Dir). Both implement payload.Source and
// remember every answer for the run.
package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sync"
	"time"

	"github.com/kwire/kwire/internal/registry/resolve"
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

// Client reads schemas from a Confluent-compatible schema registry:
// GET /schemas/ids/{id}, and each reference by GET
// /subjects/{subject}/versions/{version} (resolve.Registry's rules, over
// net/http). Answers (errors too) are kept for the run; once the registry
// cannot be reached, every later lookup fails at once with that error
// instead of waiting for its timeout (with Options.Retry, until its
// backoff is over).
type Client struct {
	*resolve.Registry
	base  *url.URL // without its query
	query string   // the URL's raw query, sent with every request
	http  *http.Client
	auth  func(*http.Request)
	mu    sync.Mutex
	calls int // requests made, for tests
}

// Options configure a Client.
type Options struct {
	Timeout time.Duration // per request (DefaultTimeout when 0)
	// Getenv reads the credentials' variables (os.Getenv when nil).
	Getenv func(string) string
	// Transport, when set, carries the requests (tests).
	Transport http.RoundTripper
	// Retry, when set, asks a registry that could not be reached again
	// after Retry, then after twice as long each time, up to RetryMax
	// (Retry when less), lookups failing at once in between
	// (resolve.Registry.SetRetry): for a long-running program. Without
	// it the registry stays down for the Client's life.
	Retry, RetryMax time.Duration
	// Now is the clock of the backoff (time.Now when nil; tests).
	Now func() time.Time
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
	query := resolve.SplitURL(u)
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := &Client{base: u, query: query}
	c.Registry = resolve.NewRegistry(u.Redacted(), c.get)
	if o.Retry > 0 {
		c.Registry.SetRetry(o.Retry, o.RetryMax, o.Now)
	}
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

// get asks the registry for base+path over HTTP.
func (c *Client) get(path string) (int, []byte, error) {
	c.mu.Lock()
	c.calls++
	c.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), c.http.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, resolve.RequestURL(c.base.String(), path, c.query), nil)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Accept", "application/vnd.schemaregistry.v1+json, application/json")
	if c.auth != nil {
		c.auth(req)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, &resolve.Unreachable{Err: fmt.Errorf("schema registry %s is unreachable: %v", c.base.Redacted(), unwrapURLError(err))}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, resolve.MaxBody+1))
	if timedOut(err) {
		// A registry that sends headers and then stalls costs a timeout
		// per id as one that never answers does: it is down.
		return 0, nil, &resolve.Unreachable{Err: fmt.Errorf("schema registry %s is unreachable: GET %s: the answer did not come whole within %v", c.base.Redacted(), path, c.http.Timeout)}
	}
	if err != nil {
		return 0, nil, fmt.Errorf("schema registry: GET %s: reading the answer: %v", c.base.Redacted()+path, unwrapURLError(err))
	}
	return resp.StatusCode, body, nil
}

// timedOut reports whether err is a timeout (the client's, or the
// connection's deadline).
func timedOut(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
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
