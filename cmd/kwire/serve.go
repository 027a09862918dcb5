package main

import (
	"context"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"os/signal"
	"path"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kwire/kwire/internal/api"
	"github.com/kwire/kwire/site"
)

func runServe(e *env, args []string) int {
	fs := newFlags(e, "serve", "[--dir DIR] [--addr HOST:PORT] [--max-decodes N]")
	dir := fs.String("dir", "dist", "serve the files under `DIR` (as kwire site writes them); links leading out of it are not followed")
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` exactly as given (0.0.0.0 for every interface); port 0 picks a free one")
	var hosts stringList
	fs.Var(&hosts, "allow-host", "answer requests for these host `NAMES` too (comma-separated or repeated), besides localhost and address literals; others get 421 (DNS rebinding)")
	var pf payloadFlags
	pf.registerServer(fs)
	running := fs.Int("max-decodes", api.DefaultRunning(), "run at most `N` API decodes and encodes at once (default: one per core, at most 8); "+
		"16 per slot more wait up to 2 s, the rest get 503")
	if code := parseFlagsOnly(e, fs, args, "; the folder is --dir"); code >= 0 {
		return code
	}
	if *running < 1 {
		fail(e, "--max-decodes must be at least 1")
		return 2
	}
	if err := checkListenAddr(*addr, "--addr"); err != nil {
		fail(e, "%v", err)
		return 2
	}
	payload, err := pf.serverHook(e.stderr)
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		// Missing (kwire serve run before kwire site, or elsewhere) or
		// a file: which, and what writes the folder it serves.
		if err == nil {
			err = errors.New("not a folder")
		}
		fail(e, "--dir %v: kwire serve serves the site kwire site --out %s writes (make site writes dist in kwire's repository)", fileError(*dir, err), *dir)
		return 1
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fail(e, "%v", listenError("--addr", *addr, err))
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e.stderr.Write([]byte("kwire: serving " + *dir + " at http://" + ln.Addr().String() + "/\n"))
	lim := api.NewLimiter(*running, api.DefaultWaitingPerSlot**running, api.DefaultWait)
	var mu sync.Mutex
	opts := serveOptions{allowHosts: hosts, log: func(s string) {
		mu.Lock()
		defer mu.Unlock()
		fail(e, "serve: %s", s)
	}}
	if err := serve(ctx, ln, siteHandlerWith(*dir, api.Options{Limiter: lim, Payload: payload}), defaultLimits, opts); err != nil {
		fail(e, "%v", err)
		return 1
	}
	return 0
}

// stringList is a flag of strings, comma-separated or repeated.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// serverLimits bound what a client can hold of kwire serve: how long a
// connection may take over each part of a request, how large its headers
// may be, and how many connections are open at once.
type serverLimits struct {
	readHeader, read, write, idle time.Duration
	maxHeaderBytes                int
	maxConns                      int
}

// defaultLimits are kwire serve's.
//
// A request's headers must arrive within 5 s of its first byte (a
// browser's take well under a second, even over a slow link), which cuts
// slow-loris clients that trickle them. The whole request, body included,
// within 15 s: the largest body, 1 MiB, needs 70 KB/s for that, slower
// than any link this serves. The answer must be written within 30 s of the
// headers' end: the body (at most 15 s), the decode (bounded by the
// per-request budget: well under a second here) and the largest answer
// (the playground's wasm, a few MB; an annotated decode at MaxNodes). A
// keep-alive connection idles at most 60 s. Headers are at most 16 KiB
// (browsers send 1-8 KiB, cookies included; Go adds 4 KiB of slack). At
// most 128 connections at once (more wait in the kernel's queue): each
// holds at most its headers and a body as far as sent (under 2 MiB read
// into memory), so slow clients hold at most about 256 MiB, apart from the
// decodes, which the api.Limiter bounds.
var defaultLimits = serverLimits{
	readHeader:     5 * time.Second,
	read:           15 * time.Second,
	write:          30 * time.Second,
	idle:           60 * time.Second,
	maxHeaderBytes: 16 << 10,
	maxConns:       128,
}

// checkListenAddr refuses an address without a host (":8080"), which
// would listen on every interface without saying so: the native servers
// listen where they are told, and every interface must be asked for by
// name (0.0.0.0, [::]).
func checkListenAddr(addr, flag string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New(flag + " must be HOST:PORT, not " + strconv.Quote(addr))
	}
	if host == "" {
		return errors.New(flag + " " + addr + " would listen on every interface: give the address, 127.0.0.1" + addr +
			" (this machine only), or 0.0.0.0" + addr + " to serve every interface on purpose")
	}
	return nil
}

// serveOptions are what kwire serve and kwire proxy --web add to their
// limits: the host names they answer for besides localhost and address
// literals (--allow-host), where the accept loop says it is short of
// descriptors, and what to do first when shutting down (end the live
// feed's streams, which would otherwise hold the shutdown). connState,
// when set, sees each connection's state after the cap has recorded it:
// a client learns of its response before the server marks the connection
// idle, so only this says when the server counts it idle.
type serveOptions struct {
	allowHosts []string
	log        func(string)
	onShutdown func()
	connState  func(net.Conn, http.ConnState)
}

// serve answers on ln with h until ctx ends, within l, behind the Host and
// Origin checks of guardHosts: kwire serve and kwire proxy --web both run
// it. The connection cap closes idle keep-alive connections first (then
// connections that sent nothing for a second, then those sending a body
// slowly) to make room for new ones, and the accept loop backs off when
// descriptors run out.
func serve(ctx context.Context, ln net.Listener, h http.Handler, l serverLimits, o serveOptions) error {
	cl := newCapListener(ln, l.maxConns, o.log)
	srv := &http.Server{
		Handler:           cl.watchBodies(guardHosts(h, ln.Addr(), o.allowHosts)),
		ConnContext:       withCapConn,
		ReadHeaderTimeout: l.readHeader,
		ReadTimeout:       l.read,
		WriteTimeout:      l.write,
		IdleTimeout:       l.idle,
		MaxHeaderBytes:    l.maxHeaderBytes,
		ConnState:         cl.state,
	}
	if o.connState != nil {
		srv.ConnState = func(c net.Conn, s http.ConnState) {
			cl.state(c, s)
			o.connState(c, s)
		}
	}
	if o.onShutdown != nil {
		srv.RegisterOnShutdown(o.onShutdown)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(cl) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if srv.Shutdown(sctx) != nil {
			srv.Close()
		}
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// capListener is a listener that holds at most max connections open.
// When a connection arrives at the cap, it closes the one that has idled
// longest between requests (keep-alive), or else the oldest that has sent
// nothing for a second, or else the one sending its request's body the
// slowest, under slowBody for a second or more, to make room; with none
// such, the new connection waits for one to close. (netutil.LimitListener
// waits in every case: 128 keep-alive connections that had each sent one
// request held every slot for the idle timeout; and 200 that trickled
// their bodies a byte a second held new clients for up to 21 s, until the
// read timeout cut them.) Accept errors from want of descriptors are
// waited out, 5 ms doubling to 1 s as net/http does, and said at most once
// a minute, rather than left to net/http, which logs each one.
type capListener struct {
	net.Listener
	max int
	log func(string)

	mu      sync.Mutex
	conns   map[*capConn]struct{}
	changed chan struct{} // closed and replaced when a connection closes or idles
	said    time.Time     // when the want of descriptors was last said
	cut     time.Time     // when closing slow senders was last said
	cuts    int           // slow senders closed since

	closeOnce sync.Once
	closed    chan struct{} // closed by Close: an Accept waiting for room returns
}

// Close closes the listener and ends an Accept waiting for room.
func (l *capListener) Close() error {
	l.closeOnce.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// capConn is a connection of a capListener: since when it is in its
// state, and whether that state is idle or new (evictable); and, while its
// request's body is being read, since when and how much of it has come.
type capConn struct {
	net.Conn
	l     *capListener
	once  sync.Once
	state http.ConnState
	since time.Time

	inBody    bool
	bodySince time.Time
	bodyBytes int64
}

// slowBody is the body rate under which a connection may be closed to
// make room at the cap: the largest body, 1 MiB, at this rate takes the
// 15 s the read timeout allows. A body's first second is never judged
// (a small one arrives whole in far less).
const slowBody = 64 << 10 // bytes a second

func newCapListener(ln net.Listener, max int, log func(string)) *capListener {
	if max <= 0 {
		max = int(^uint(0) >> 1)
	}
	return &capListener{Listener: ln, max: max, log: log, conns: map[*capConn]struct{}{}, changed: make(chan struct{}), closed: make(chan struct{})}
}

func (l *capListener) Accept() (net.Conn, error) {
	nc, err := l.accept()
	if err != nil {
		return nil, err
	}
	c := &capConn{Conn: nc, l: l, state: http.StateNew, since: time.Now()}
	for {
		l.mu.Lock()
		if len(l.conns) < l.max {
			l.conns[c] = struct{}{}
			l.mu.Unlock()
			return c, nil
		}
		victim := l.victim()
		changed := l.changed
		l.mu.Unlock()
		if victim != nil {
			victim.Close()
			continue
		}
		select {
		case <-changed:
		case <-time.After(time.Second): // a new connection may have become evictable
		case <-l.closed:
			nc.Close()
			return nil, net.ErrClosed
		}
	}
}

// victim is the connection to close to make room (l.mu held): the one
// idle longest, else the oldest that has sent nothing for a second, else
// the slowest sender of a body (slowBody).
func (l *capListener) victim() *capConn {
	var idle, fresh, slow *capConn
	var slowest float64
	now := time.Now()
	for c := range l.conns {
		switch c.state {
		case http.StateIdle:
			if idle == nil || c.since.Before(idle.since) {
				idle = c
			}
		case http.StateNew:
			if now.Sub(c.since) >= time.Second && (fresh == nil || c.since.Before(fresh.since)) {
				fresh = c
			}
		case http.StateActive:
			if d := now.Sub(c.bodySince); c.inBody && d >= time.Second {
				if rate := float64(c.bodyBytes) / d.Seconds(); rate < slowBody && (slow == nil || rate < slowest) {
					slow, slowest = c, rate
				}
			}
		}
	}
	switch {
	case idle != nil:
		return idle
	case fresh != nil:
		return fresh
	case slow != nil:
		l.saySlow(now)
	}
	return slow
}

// saySlow says that slow senders are closed to make room, at most once a
// minute, with how many were (l.mu held).
func (l *capListener) saySlow(now time.Time) {
	l.cuts++
	if l.log == nil || now.Sub(l.cut) < time.Minute {
		return
	}
	l.log("at the cap of connections, " + strconv.Itoa(l.cuts) + " sending a request's body at under 64 KiB/s closed to make room for new clients (said at most once a minute)")
	l.cut, l.cuts = now, 0
}

type capConnKey struct{}

// withCapConn is the server's ConnContext: it puts the connection in each
// request's context, for watchBodies.
func withCapConn(ctx context.Context, nc net.Conn) context.Context {
	if c, ok := nc.(*capConn); ok {
		return context.WithValue(ctx, capConnKey{}, c)
	}
	return ctx
}

// watchBodies counts, for victim, how much of each request's body has
// come and since when, until the handler has read it or returns.
func (l *capListener) watchBodies(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, ok := r.Context().Value(capConnKey{}).(*capConn)
		if !ok || r.Body == nil || r.Body == http.NoBody {
			h.ServeHTTP(w, r)
			return
		}
		l.mu.Lock()
		c.inBody, c.bodySince, c.bodyBytes = true, time.Now(), 0
		l.mu.Unlock()
		r.Body = &watchedBody{ReadCloser: r.Body, c: c}
		defer l.bodyRead(c, 0, true)
		h.ServeHTTP(w, r)
	})
}

// bodyRead counts n bytes of c's body, and its end.
func (l *capListener) bodyRead(c *capConn, n int, end bool) {
	l.mu.Lock()
	c.bodyBytes += int64(n)
	if end {
		c.inBody = false
	}
	l.mu.Unlock()
}

type watchedBody struct {
	io.ReadCloser
	c *capConn
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.c.l.bodyRead(b.c, n, err != nil)
	return n, err
}

// accept accepts from the listener, waiting out want of descriptors.
func (l *capListener) accept() (net.Conn, error) {
	var delay time.Duration
	for {
		nc, err := l.Listener.Accept()
		if err == nil || !outOfDescriptors(err) {
			return nc, err
		}
		delay = min(max(2*delay, 5*time.Millisecond), time.Second)
		l.mu.Lock()
		say := l.log != nil && time.Since(l.said) >= time.Minute
		if say {
			l.said = time.Now()
		}
		l.mu.Unlock()
		if say {
			l.log("cannot accept connections (" + err.Error() + "): new clients wait until descriptors are free, retried every 5 ms to 1 s; " +
				"raise the limit (ulimit -n) if it lasts (said at most once a minute)")
		}
		time.Sleep(delay)
	}
}

// outOfDescriptors reports whether an accept error says the process or
// the system is out of descriptors or socket buffers.
func outOfDescriptors(err error) bool {
	for _, e := range []error{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM} {
		if errors.Is(err, e) {
			return true
		}
	}
	return false
}

// state is the server's ConnState hook: it keeps each connection's state
// for victim, and forgets closed ones.
func (l *capListener) state(nc net.Conn, s http.ConnState) {
	c, ok := nc.(*capConn)
	if !ok {
		return
	}
	if s == http.StateClosed || s == http.StateHijacked {
		l.forget(c)
		return
	}
	l.mu.Lock()
	c.state, c.since = s, time.Now()
	if s == http.StateIdle {
		l.signal()
	}
	l.mu.Unlock()
}

// signal wakes an Accept waiting for room (l.mu held).
func (l *capListener) signal() {
	close(l.changed)
	l.changed = make(chan struct{})
}

func (l *capListener) forget(c *capConn) {
	l.mu.Lock()
	if _, ok := l.conns[c]; ok {
		delete(l.conns, c)
		l.signal()
	}
	l.mu.Unlock()
}

func (c *capConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() { c.l.forget(c) })
	return err
}

// guardHosts answers only requests made to this server by name: a Host
// of localhost, an address literal (the listening address among them) or
// a name in allow (421 otherwise), and, when a page sent the request, an
// Origin of that same host and port, or of a name in allow (403
// otherwise). A page elsewhere can then reach neither the API nor the
// live feed, not even through DNS rebinding (a name of its own resolved
// to 127.0.0.1), nor read them from another origin on this machine.
func guardHosts(h http.Handler, addr net.Addr, allow []string) http.Handler {
	names := map[string]bool{"localhost": true}
	for _, n := range allow {
		names[strings.ToLower(strings.TrimSuffix(n, "."))] = true
	}
	hostOK := func(host string) bool {
		host = strings.ToLower(strings.TrimSuffix(host, "."))
		if _, err := netip.ParseAddr(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")); err == nil {
			return true
		}
		return names[host]
	}
	listen := addr.String()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		host := hostOnly(r.Host)
		if r.Host != "" && !hostOK(host) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusMisdirectedRequest)
			io.WriteString(w, "this server (listening on "+listen+") answers for localhost, address literals and the names given with --allow-host, not for "+
				strconv.Quote(host)+": is this a DNS rebinding attack?\n")
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !originOK(origin, r, names) {
			w.Header().Set("Content-Type", "text/plain; charset=utf-8")
			w.WriteHeader(http.StatusForbidden)
			io.WriteString(w, "requests from pages of other origins ("+strconv.Quote(origin)+") are refused; this server answers its own pages only\n")
			return
		}
		h.ServeHTTP(w, r)
	})
}

// hostOnly is the host of a Host header value, without its port.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return hostport
}

// originOK reports whether a request's Origin is the server's own (the
// scheme's host and port are those the request was sent to) or a name
// given with --allow-host.
func originOK(origin string, r *http.Request, names map[string]bool) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return false // "null" among others: a sandboxed frame, a file
	}
	if h := strings.ToLower(u.Hostname()); names[h] && h != "localhost" {
		return true
	}
	withPort := func(hostport, scheme string) string {
		if _, _, err := net.SplitHostPort(hostport); err == nil {
			return strings.ToLower(hostport)
		}
		if scheme == "https" {
			return strings.ToLower(hostport) + ":443"
		}
		return strings.ToLower(hostport) + ":80"
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return withPort(u.Host, u.Scheme) == withPort(r.Host, scheme)
}

// siteHandler serves the JSON API (the same handler the Worker runs) on its
// routes and the files under dir everywhere else: the docs site has pages
// under /api/<name>/ too, so only the API's own routes go to it. A path
// that is no file goes to the API handler too, as the Worker's static
// assets send it to the Worker: its 404 is an HTML page for a browser's
// request and the API's JSON error for anything else (POST /api/decode/,
// GET /api/foo), the same from both servers.
func siteHandler(dir string, lim *api.Limiter) http.Handler {
	return siteHandlerWith(dir, api.Options{Limiter: lim})
}

// siteHandlerWith is siteHandler with the API's options.
func siteHandlerWith(dir string, o api.Options) http.Handler {
	apiHandler := api.New(o)
	files := filesOr(dir, apiHandler)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if api.IsRoute(r.URL.Path) {
			apiHandler.ServeHTTP(w, r)
			return
		}
		files.ServeHTTP(w, r)
	})
}

// contentTypes pins the types a static host must get right, whatever the
// system's MIME tables say: browsers compile WebAssembly streaming only
// from application/wasm.
var contentTypes = map[string]string{
	".html":        "text/html; charset=utf-8",
	".css":         "text/css; charset=utf-8",
	".js":          "text/javascript; charset=utf-8",
	".mjs":         "text/javascript; charset=utf-8",
	".json":        "application/json",
	".wasm":        "application/wasm",
	".svg":         "image/svg+xml",
	".png":         "image/png",
	".ico":         "image/x-icon",
	".txt":         "text/plain; charset=utf-8",
	".webmanifest": "application/manifest+json",
}

// htmlPolicy is the Content-Security-Policy of every HTML answer
// (site.HTMLPolicy, which the built site's _headers carries too).
const htmlPolicy = site.HTMLPolicy

// fileHandler serves the files under dir (filesOr), with a plain 404 for
// what is none.
func fileHandler(dir string) http.Handler {
	return filesOr(dir, http.NotFoundHandler())
}

// filesOr serves the files under dir: GET and HEAD only, a folder
// answers with its index.html, a path without its .html with that page
// (as the Worker's static assets answer; they redirect X.html to X,
// which is served here as it is), nothing outside dir (through an os.Root, so
// neither ".." nor a symbolic link leads out of it), no listings; a
// request for what is no file (whatever its method) goes to notFound.
// Content-hashed names are cached for a year, everything else revalidated.
// The folder is opened for each request, so a site rebuilt in place is
// served as it is now. A file with a gzip copy beside it (NAME.gz, as
// kwire site writes for the playground's modules and scripts) is sent as
// that copy, Content-Encoding gzip, to a client that accepts gzip, unless
// the copy is older than the file (a file rebuilt since); see
// sendPrecompressed.
func filesOr(dir string, notFound http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		root, err := os.OpenRoot(dir)
		if outOfFiles(w, err) {
			return
		}
		if err != nil {
			notFound.ServeHTTP(w, r)
			return
		}
		defer root.Close()
		p := path.Clean("/" + r.URL.Path)
		name := "." + p
		st, err := root.Stat(name)
		// A page named without its .html (/api/fetch/v12, the URL the
		// Worker's static assets redirect /api/fetch/v12.html to) is that
		// page, when no file or folder with an index has the name
		// (/internal is internal.html, there being no internal/index.html),
		// so a URL copied from the hosted site works here too.
		if p != "/" && !strings.HasSuffix(r.URL.Path, "/") && (err != nil || st.IsDir() && !hasIndex(root, name)) {
			if hst, herr := root.Stat(name + ".html"); herr == nil && hst.Mode().IsRegular() {
				name, st, err = name+".html", hst, nil
			}
		}
		// A folder named without its slash is sent to it (a redirect,
		// below); with it, it answers with its index.html.
		bare := err == nil && st.IsDir() && !strings.HasSuffix(r.URL.Path, "/")
		if err == nil && st.IsDir() && !bare {
			name = path.Join(name, "index.html")
			st, err = root.Stat(name)
		}
		if outOfFiles(w, err) {
			return
		}
		if err != nil || st.IsDir() && !bare {
			notFound.ServeHTTP(w, r)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		if bare {
			// Relative, so the site works behind any path prefix.
			w.Header().Set("Location", path.Base(p)+"/")
			w.WriteHeader(http.StatusMovedPermanently)
			return
		}
		f, err := root.Open(name)
		if outOfFiles(w, err) {
			return
		}
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		ext := strings.ToLower(path.Ext(name))
		ct := contentTypes[ext]
		if ct == "" {
			ct = mime.TypeByExtension(ext)
		}
		if ct == "" {
			ct = "application/octet-stream"
		}
		h := w.Header()
		h.Set("Content-Type", ct)
		h.Set("X-Content-Type-Options", "nosniff")
		if strings.HasPrefix(ct, "text/html") {
			h.Set("Content-Security-Policy", htmlPolicy)
			h.Set("X-Frame-Options", "DENY")
		}
		if site.HashedName(path.Base(name)) {
			h.Set("Cache-Control", site.ImmutableCache)
		} else {
			h.Set("Cache-Control", "no-cache")
		}
		if sendPrecompressed(w, r, root, name, st) {
			return
		}
		http.ServeContent(w, r, name, st.ModTime(), f)
	})
}

// outOfFiles answers 503 when err says the process or system is out of
// file descriptors (a file that is there could not be opened, which is
// no 404), with Retry-After, and reports whether it did.
func outOfFiles(w http.ResponseWriter, err error) bool {
	if !errors.Is(err, syscall.EMFILE) && !errors.Is(err, syscall.ENFILE) {
		return false
	}
	w.Header().Set("Retry-After", "1")
	http.Error(w, "kwire serve is out of file descriptors: try again", http.StatusServiceUnavailable)
	return true
}

// hasIndex reports whether the folder name under root has an index.html.
func hasIndex(root *os.Root, name string) bool {
	st, err := root.Stat(path.Join(name, "index.html"))
	return err == nil && st.Mode().IsRegular()
}

// sendPrecompressed answers with name's gzip copy (name.gz under root) when
// there is one, no older than st (name's own), and r accepts gzip; it
// reports whether it did. Locally the transfer is not what a visitor
// waits for, but over a network kwire.wasm is 1.1 MB gzip against 5.2 MB.
// Both answers say Vary: Accept-Encoding, and the encoded one says how
// long the decoded body is (X-Decoded-Content-Length), so that the
// playground's download progress still has a total: Content-Length counts
// encoded bytes, the body read in the page decoded ones.
func sendPrecompressed(w http.ResponseWriter, r *http.Request, root *os.Root, name string, st os.FileInfo) bool {
	gz, err := root.Stat(name + ".gz")
	if err != nil || !gz.Mode().IsRegular() || gz.ModTime().Before(st.ModTime()) {
		return false
	}
	w.Header().Add("Vary", "Accept-Encoding")
	if !acceptsEncoding(r.Header.Values("Accept-Encoding"), "gzip") {
		return false
	}
	f, err := root.Open(name + ".gz")
	if err != nil {
		return false
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Encoding", "gzip")
	h.Set("X-Decoded-Content-Length", strconv.FormatInt(st.Size(), 10))
	http.ServeContent(w, r, name, gz.ModTime(), f)
	return true
}

// acceptsEncoding reports whether Accept-Encoding values accept coding:
// named (or "*") with a quality above zero.
func acceptsEncoding(values []string, coding string) bool {
	star := false
	for _, v := range values {
		for _, item := range strings.Split(v, ",") {
			tok, params, _ := strings.Cut(item, ";")
			tok = strings.ToLower(strings.TrimSpace(tok))
			q := 1.0
			for _, p := range strings.Split(params, ";") {
				k, val, ok := strings.Cut(strings.TrimSpace(p), "=")
				if ok && strings.EqualFold(strings.TrimSpace(k), "q") {
					if f, err := strconv.ParseFloat(strings.TrimSpace(val), 64); err == nil {
						q = f
					}
				}
			}
			switch tok {
			case coding:
				return q > 0
			case "*":
				star = q > 0
			}
		}
	}
	return star
}

// listenError is err, listening on addr (the value of flag) failed, said
// with what to do when the address is taken (another kwire proxy or
// serve on the default address, most often): Go's "bind: address already
// in use" named neither the flag nor a way out.
func listenError(flag, addr string, err error) error {
	if errors.Is(err, syscall.EADDRINUSE) {
		return errors.New(flag + " " + addr + ": the address is already in use: stop what listens there, or give " +
			flag + " another HOST:PORT (port 0 picks a free one)")
	}
	return err
}
