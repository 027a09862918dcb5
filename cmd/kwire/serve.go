package main

import (
	"context"
	"errors"
	"mime"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/kwire/kwire/internal/api"
	"github.com/kwire/kwire/site"
	"golang.org/x/net/netutil"
)

func runServe(e *env, args []string) int {
	fs := newFlags(e, "serve", "[--dir DIR] [--addr HOST:PORT] [--max-decodes N]")
	dir := fs.String("dir", "dist", "serve the files under `DIR` (as kwire site writes them)")
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` exactly as given; port 0 picks a free one")
	var pf payloadFlags
	pf.registerServer(fs)
	running := fs.Int("max-decodes", api.DefaultRunning(), "run at most `N` API decodes and encodes at once (default: one per core, at most 8); "+
		"16 per slot more wait up to 2 s, the rest get 503")
	rest, code := parseFlags(e, fs, args)
	if code >= 0 {
		return code
	}
	if len(rest) > 0 {
		fail(e, "serve takes no arguments; the folder is --dir")
		return 2
	}
	if *running < 1 {
		fail(e, "--max-decodes must be at least 1")
		return 2
	}
	payload, err := pf.serverHook()
	if err != nil {
		fail(e, "%v", err)
		return 2
	}
	if st, err := os.Stat(*dir); err != nil || !st.IsDir() {
		fail(e, "%s is not a folder; run make site first", *dir)
		return 1
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fail(e, "%v", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e.stderr.Write([]byte("kwire: serving " + *dir + " at http://" + ln.Addr().String() + "/\n"))
	lim := api.NewLimiter(*running, api.DefaultWaitingPerSlot**running, api.DefaultWait)
	if err := serve(ctx, ln, siteHandlerWith(*dir, api.Options{Limiter: lim, Payload: payload}), defaultLimits); err != nil {
		fail(e, "%v", err)
		return 1
	}
	return 0
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

// serve answers on ln with h until ctx ends.
func serve(ctx context.Context, ln net.Listener, h http.Handler, l serverLimits) error {
	srv := &http.Server{
		Handler:           h,
		ReadHeaderTimeout: l.readHeader,
		ReadTimeout:       l.read,
		WriteTimeout:      l.write,
		IdleTimeout:       l.idle,
		MaxHeaderBytes:    l.maxHeaderBytes,
	}
	if l.maxConns > 0 {
		ln = netutil.LimitListener(ln, l.maxConns)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		if err := <-done; !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}

// siteHandler serves the JSON API (the same handler the Worker runs) on its
// routes and the files under dir everywhere else: the docs site has pages
// under /api/<name>/ too, so only the API's own routes go to it.
func siteHandler(dir string, lim *api.Limiter) http.Handler {
	return siteHandlerWith(dir, api.Options{Limiter: lim})
}

// siteHandlerWith is siteHandler with the API's options.
func siteHandlerWith(dir string, o api.Options) http.Handler {
	apiHandler := api.New(o)
	files := fileHandler(dir)
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

// fileHandler serves the files under dir: GET and HEAD only, a folder
// answers with its index.html, nothing outside dir, no listings.
// Content-hashed names are cached for a year, everything else revalidated.
func fileHandler(dir string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
			return
		}
		p := path.Clean("/" + r.URL.Path)
		name := filepath.Join(dir, filepath.FromSlash(p))
		st, err := os.Stat(name)
		if err == nil && st.IsDir() {
			if !strings.HasSuffix(r.URL.Path, "/") {
				// Relative, so the site works behind any path prefix.
				w.Header().Set("Location", path.Base(p)+"/")
				w.WriteHeader(http.StatusMovedPermanently)
				return
			}
			name = filepath.Join(name, "index.html")
			st, err = os.Stat(name)
		}
		if err != nil || st.IsDir() {
			http.NotFound(w, r)
			return
		}
		f, err := os.Open(name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		ext := strings.ToLower(filepath.Ext(name))
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
		if site.HashedName(filepath.Base(name)) {
			h.Set("Cache-Control", "public, max-age=31536000, immutable")
		} else {
			h.Set("Cache-Control", "no-cache")
		}
		http.ServeContent(w, r, name, st.ModTime(), f)
	})
}
