package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/check"
	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/capture"
	"github.com/kwire/kwire/internal/proxy"
	"github.com/kwire/kwire/internal/topicids"
)

// kwire proxy sits between Kafka clients and brokers, forwards every byte
// and prints each exchange as kwire pcap does: one NDJSON line per
// exchange, or a tree per exchange on a terminal, or the per-API table.
// The relaying and pairing live in internal/proxy; this file turns its
// exchanges into lines, applies the filters and keeps the summary.

func runProxy(e *env, args []string) int {
	cfg, code := parseProxyFlags(e, args)
	if code >= 0 {
		return code
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if cfg.runFor > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.runFor)
		defer cancel()
	}
	return cfg.run(ctx, e)
}

// proxyConfig is what the flags of kwire proxy ask for.
type proxyConfig struct {
	listen, upstream, advertise string
	ports                       portList
	exchangeFilter
	summary                bool
	every                  time.Duration
	format                 string
	color                  bool
	maxFrame               int
	showSecrets            bool
	clientTLS, upstreamTLS *tls.Config
	web, webDir            string
	webHosts               stringList
	queue                  int
	runFor                 time.Duration
	decodeCPU              float64
	check                  bool
	failOn                 check.Severity
	maxBrokers             int
	allowBrokers           stringList
}

func parseProxyFlags(e *env, args []string) (*proxyConfig, int) {
	fs := newFlags(e, "proxy", "--upstream HOST:PORT [flags]   (runs until interrupted, or --for)",
		"kwire proxy --upstream broker:9092 --listen 127.0.0.1:0 --for 1s",
		"kwire proxy --upstream broker:9092 --listen 127.0.0.1:0 --api Produce --errors-only --for 1s",
		"kwire proxy --upstream broker:9092 --listen 127.0.0.1:0 --summary --every 500ms --for 1s")
	c := &proxyConfig{}
	fs.StringVar(&c.listen, "listen", "127.0.0.1:19092", "accept clients on `HOST:PORT` exactly as given (the bootstrap address clients are given)")
	fs.StringVar(&c.upstream, "upstream", "", "the broker to forward to, `HOST:PORT` (required)")
	fs.Var(&c.ports, "ports", "`PORTS` for the listeners opened for each broker the responses name, in order (repeatable or comma-separated; default: the system picks)")
	fs.StringVar(&c.advertise, "advertise-host", "", "the host written into rewritten responses (default: --listen's host)")
	fs.IntVar(&c.maxBrokers, "max-brokers", proxy.DefaultMaxListeners, "open at most `N` listeners, the first included: brokers named past it are left in responses as the broker gave them (clients reach them directly, unseen)")
	fs.Var(&c.allowBrokers, "allow-brokers", "relay only to brokers matching these `PATTERNS` (comma-separated or repeated): host globs (*.kafka.internal), address prefixes (10.1.0.0/16), either with :PORT; "+
		"others are left in responses as the broker gave them, and the proxy never connects to them (default: every broker the responses name; --upstream is always allowed)")
	c.exchangeFilter.register(fs)
	fs.BoolVar(&c.summary, "summary", false, "print the per-API table instead of each exchange: on exit, on SIGUSR1 and every --every")
	fs.DurationVar(&c.every, "every", 0, "with --summary, also print the table at this interval (e.g. 10s)")
	fs.StringVar(&c.format, "format", "auto", "each exchange as ndjson, or tree (one exchange at a time, for a terminal); auto: tree on a terminal, else ndjson")
	colorMode := fs.String("color", "auto", "colour the tree: auto, always or never")
	fs.IntVar(&c.maxFrame, "max-frame", proxy.DefaultMaxFrame, "close a connection that sends a frame larger than this many `bytes`")
	fs.BoolVar(&c.showSecrets, "show-secrets", false, showSecretsUsage)
	cert := fs.String("tls-cert", "", "speak TLS to clients with this certificate `FILE` (PEM; with --tls-key)")
	key := fs.String("tls-key", "", "the private key `FILE` (PEM) of --tls-cert")
	upTLS := fs.Bool("upstream-tls", false, "connect to brokers with TLS")
	upCA := fs.String("upstream-ca", "", "trust the brokers' certificates signed by this CA `FILE` (PEM; default: the system's)")
	upName := fs.String("upstream-server-name", "", "the name to check in every broker's certificate (default: each broker's host)")
	fs.StringVar(&c.web, "web", "", "serve the playground with a live feed of the exchanges on `HOST:PORT` (e.g. 127.0.0.1:8080; 0.0.0.0:PORT for every interface), with kwire serve's limits")
	fs.StringVar(&c.webDir, "web-dir", "dist", "the built site --web serves (make site writes it)")
	fs.Var(&c.webHosts, "web-allow-host", "--web answers requests for these host `NAMES` too (comma-separated or repeated), besides localhost and address literals; others get 421 (DNS rebinding)")
	fs.DurationVar(&c.runFor, "for", 0, "stop after this long (default: run until interrupted)")
	fs.IntVar(&c.queue, "queue", 1024, "exchanges waiting to be decoded; when it is full, exchanges are skipped (and counted), never the traffic")
	fs.Float64Var(&c.decodeCPU, "decode-cpu", proxy.DefaultSinkShare, "the share of one CPU core decoding and printing may use, in CPU time (waiting on the output is not counted), after a 100 ms burst; past it exchanges are skipped and counted, so the traffic keeps the CPU; 0: no limit")
	fs.BoolVar(&c.check, "check", false, "apply kwire check's protocol rules to the exchanges, findings and a summary on standard error; exchanges skipped (see --decode-cpu) are lost to the rules, which judge nothing that depends on them and say so")
	failOn := fs.String("fail-on", "error", "with --check, exit 1 once stopped when a finding was at least this severe: error, warning, note or none "+
		"(the exit status is otherwise 0 once stopped, 1 when it cannot listen, 2 for misuse)")
	if code := parseFlagsOnly(e, fs, args, "; the broker is --upstream"); code >= 0 {
		return nil, code
	}
	sev, ok := parseFailOn(e, *failOn)
	if !ok {
		return nil, 2
	}
	c.failOn = sev
	if !c.check {
		given := false
		fs.Visit(func(f *flag.Flag) { given = given || f.Name == "fail-on" })
		if given {
			fail(e, "--fail-on needs --check")
			return nil, 2
		}
	}
	if c.upstream == "" {
		fail(e, "proxy needs --upstream HOST:PORT, the broker to forward to")
		return nil, 2
	}
	// Addresses that cannot work are misuse, said now: they were taken,
	// and the upstream's failed at every dial, later, in the log.
	if err := hostPort("--upstream", c.upstream, false); err != nil {
		fail(e, "%v", err)
		return nil, 2
	}
	if err := hostPort("--listen", c.listen, true); err != nil {
		fail(e, "%v", err)
		return nil, 2
	}
	c.pf.retry = true // a proxy runs for long: a registry that was down is tried again
	err := c.exchangeFilter.resolve(e.stderr)
	if err != nil {
		fail(e, "%v", err)
		return nil, 2
	}
	switch c.format {
	case "auto":
		c.format = "ndjson"
		if e.stdoutIsTTY {
			c.format = "tree"
		}
	case "ndjson", "tree":
	default:
		fail(e, "--format must be auto, ndjson or tree, not %q", c.format)
		return nil, 2
	}
	if c.color, err = colorOn(*colorMode, e.stdoutIsTTY); err != nil {
		fail(e, "%v", err)
		return nil, 2
	}
	if c.decodeCPU < 0 {
		fail(e, "--decode-cpu must be 0 (no limit) or more")
		return nil, 2
	}
	if c.runFor < 0 {
		fail(e, "--for must be positive")
		return nil, 2
	}
	if c.every < 0 || c.every > 0 && !c.summary {
		fail(e, "--every needs --summary and a positive interval")
		return nil, 2
	}
	if c.web != "" {
		if err := checkListenAddr(c.web, "--web"); err != nil {
			fail(e, "%v", err)
			return nil, 2
		}
	}
	if c.maxBrokers < 1 {
		fail(e, "--max-brokers must be at least 1")
		return nil, 2
	}
	if c.maxFrame <= 0 {
		fail(e, "--max-frame must be positive")
		return nil, 2
	}
	if c.queue < 1 {
		fail(e, "--queue must be at least 1")
		return nil, 2
	}
	if host, _, err := net.SplitHostPort(c.listen); err == nil && c.advertise == "" {
		if ip, err := netip.ParseAddr(host); host == "" || err == nil && ip.IsUnspecified() {
			fail(e, "--listen %s is every address: give --advertise-host, the address clients reach the proxy by", c.listen)
			return nil, 2
		}
	}
	if (*cert == "") != (*key == "") {
		fail(e, "--tls-cert and --tls-key go together")
		return nil, 2
	}
	if *cert != "" {
		pair, err := tls.LoadX509KeyPair(*cert, *key)
		if err != nil {
			fail(e, "%v", err)
			return nil, 2
		}
		c.clientTLS = &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}
	}
	if !*upTLS && (*upCA != "" || *upName != "") {
		fail(e, "--upstream-ca and --upstream-server-name need --upstream-tls")
		return nil, 2
	}
	if *upTLS {
		c.upstreamTLS = &tls.Config{ServerName: *upName, MinVersion: tls.VersionTLS12}
		if *upCA != "" {
			pem, err := os.ReadFile(*upCA)
			if err != nil {
				fail(e, "%v", err)
				return nil, 2
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				fail(e, "%s holds no PEM certificate", *upCA)
				return nil, 2
			}
			c.upstreamTLS.RootCAs = pool
		}
	}
	return c, -1
}

// hostPort checks a flag's HOST:PORT: a host and a TCP port, 1-65535 (0
// too when zeroOK: a listener the system gives a port) or a service name.
func hostPort(flag, addr string, zeroOK bool) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s must be HOST:PORT, not %q", flag, addr)
	}
	if n, err := net.LookupPort("tcp", port); err != nil || n == 0 && !zeroOK {
		if strings.Contains(port, ",") && flag == "--upstream" {
			return fmt.Errorf("--upstream is one broker, HOST:PORT, not %q: the proxy finds the others in its answers", addr)
		}
		return fmt.Errorf("%s %s: %q is not a TCP port (1-65535)", flag, addr, port)
	}
	return nil
}

// proxyRun is one run: the output, the filters and what the summary adds up.
type proxyRun struct {
	cfg  *proxyConfig
	e    *env
	p    *proxy.Proxy
	feed *proxy.Feed

	outMu sync.Mutex // the output and the summary
	w     *bufio.Writer
	errMu sync.Mutex // standard error

	dec      proxy.Decoder
	line     []byte
	ev       []byte
	diag     []byte
	sides    [2][]byte // the tree view's value JSON for the live feed
	stats    map[int16]*apiStats
	errCodes map[apiCode]int
	shown    int
	skipSaid int64 // skipped exchanges the log told of (saySkipped)
	// newer holds the API versions newer than kwire knows said so far
	// (newerVersion), each said once a run, as kwire batch and kwire
	// pcap say it, at the first exchange shown that was decoded at it:
	// what kwire does not know is the same on every connection, and a
	// proxy left running serves many (a line a connection would repeat
	// it at every client's reconnect). The sink alone touches it.
	newer   newerSaid
	started time.Time
	checker *proxyChecker // --check
	// What the filters saw, for saying, when they showed none, which
	// matched nothing and what it saw instead, as kwire pcap says it:
	// judged counts the exchanges the sink had, unmatched those its
	// filters left out, keptOut those --api left out before they were
	// copied (Keep).
	judged    int
	unmatched filtersMissed
	keptOut   keptOut
}

// keptOut counts the exchanges --api left out before they were copied
// (proxy.Config.Keep), by API key: raw SASL tokens (key -1), of no API,
// apart. Keep is asked from every connection's goroutine.
type keptOut struct {
	mu     sync.Mutex
	apis   map[int16]int
	tokens int
}

// keep is Keep for --api key: an exchange of it, or of an API that names
// topic ids (Metadata), is copied; another is counted.
func (k *keptOut) keep(key int16) func(int16) bool {
	return func(api int16) bool {
		if api == key || topicids.Learns(api) {
			return true
		}
		k.mu.Lock()
		defer k.mu.Unlock()
		if api < 0 {
			k.tokens++
			return false
		}
		if k.apis == nil {
			k.apis = map[int16]int{}
		}
		k.apis[api]++
		return false
	}
}

// noneShown says, when the run showed no exchange though its filters
// judged some, which filter matched nothing and what it saw instead
// (filtersMissed.why); "" otherwise.
func (r *proxyRun) noneShown() string {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	k := &r.keptOut
	k.mu.Lock()
	defer k.mu.Unlock()
	m := r.unmatched
	n := r.judged + k.tokens
	m.dropped[byAPI] += k.tokens
	if len(k.apis) > 0 {
		m.apis = make(map[int16]int, len(r.unmatched.apis)+len(k.apis))
		for key, c := range r.unmatched.apis {
			m.apis[key] += c
		}
		for key, c := range k.apis {
			m.apis[key] += c
			m.dropped[byAPI] += c
			n += c
		}
	}
	if r.shown > 0 || n == 0 {
		return ""
	}
	return m.why(&r.cfg.exchangeFilter, n)
}

func (c *proxyConfig) run(ctx context.Context, e *env) int {
	r := &proxyRun{cfg: c, e: e, w: bufio.NewWriterSize(e.stdout, 64<<10), stats: map[int16]*apiStats{}, errCodes: map[apiCode]int{}, started: time.Now()}
	r.dec.ShowSecrets = c.showSecrets
	c.pf.setOptions(&r.dec.Options, c.payload, true)
	if c.check {
		r.checker = newProxyChecker()
	}
	// The table alone needs error codes, not records.
	r.dec.Options.Kafka = c.summary && c.web == "" && c.format == "tree"
	pc := proxy.Config{
		Listen: c.listen, Upstream: c.upstream, AdvertiseHost: c.advertise, MaxFrame: c.maxFrame,
		ClientTLS: c.clientTLS, UpstreamTLS: c.upstreamTLS, QueueLen: c.queue, SinkShare: c.decodeCPU,
		MaxListeners: c.maxBrokers, AllowBrokers: c.allowBrokers,
		Sink: r.exchange, Log: func(s string) { r.logf("proxy: %s", s) },
	}
	for _, p := range c.ports {
		pc.Ports = append(pc.Ports, int(p))
	}
	if c.only != nil && !c.check {
		// --check follows every exchange, whatever --api shows.
		pc.Keep = r.keptOut.keep(c.only.Key) // Metadata too: topic ids
	}
	if c.web != "" {
		// Before anything listens: the folder --web serves is there.
		if err := webDirReady(c.webDir); err != nil {
			fail(e, "%v", err)
			return 1
		}
	}
	p, err := proxy.New(pc)
	if err != nil {
		fail(e, "%v", strings.TrimPrefix(listenError("--listen", c.listen, err).Error(), "proxy: "))
		return 1
	}
	r.p = p
	r.logf("proxy: listening on %s, forwarding to %s", p.Addr(), c.upstream)
	var web <-chan error
	if c.web != "" {
		if web, err = r.serveWeb(ctx); err != nil {
			p.Close()
			fail(e, "%v", err)
			return 1
		}
	}
	usr1 := make(chan os.Signal, 1)
	if summarySignal != nil { // none on Windows: --every and exit still print
		signal.Notify(usr1, summarySignal)
		defer signal.Stop(usr1)
	}
	var tick <-chan time.Time
	if c.every > 0 {
		t := time.NewTicker(c.every)
		defer t.Stop()
		tick = t.C
	}
	skips := time.NewTicker(time.Second)
	defer skips.Stop()
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			case <-usr1:
				r.printSummary()
			case <-tick:
				r.printSummary()
			case <-skips.C:
				r.saySkipped()
			}
		}
	}()
	p.Serve(ctx) // until SIGINT or SIGTERM; every exchange copied is shown
	close(done)
	if web != nil {
		if err := <-web; err != nil {
			r.logf("proxy: web: %v", err)
		}
	}
	if c.summary {
		r.printSummary()
	}
	r.outMu.Lock()
	r.w.Flush()
	r.outMu.Unlock()
	if r.checker != nil {
		r.e.stderr.Write(r.checker.end(p.Stats().Skipped))
	}
	if why := r.noneShown(); why != "" {
		r.logf("proxy: %s", why)
	}
	st := p.Stats()
	r.logf("proxy: stopped: %s, %s (%d shown, %d skipped because decoding was behind); %s to brokers tried",
		plural(int(st.Connections), "connection"), plural(int(st.Exchanges), "exchange"), r.shown, st.Skipped, plural(int(st.Dials), "connection"))
	if r.checker != nil && r.checker.reached(c.failOn) {
		return 1
	}
	return 0
}

// saySkipped logs, once a second at most, how many exchanges were skipped
// since it last did: one line per exchange delivered after a skip was 268
// lines in two seconds of a busy producer. The last line's total is in
// the line that says the proxy stopped.
func (r *proxyRun) saySkipped() {
	n := r.p.Stats().Skipped
	if n > r.skipSaid {
		r.logf("proxy: %d exchanges skipped in the last second, %d in all: decoding was behind the traffic (--decode-cpu, --queue)", n-r.skipSaid, n)
		r.skipSaid = n
	}
}

func (r *proxyRun) logf(format string, a ...any) {
	r.errMu.Lock()
	defer r.errMu.Unlock()
	fail(r.e, format, a...)
}

// exchange is the proxy's sink: decode, filter, print, count. Value JSON
// (NDJSON, the live feed) is written straight from the bytes; the tree
// view decodes trees.
func (r *proxyRun) exchange(x *proxy.Exchange) {
	c := r.cfg
	if r.checker != nil {
		// Before the filters and before any secret is zeroed in the frames.
		if lines := r.checker.exchange(x); len(lines) > 0 {
			r.errMu.Lock()
			r.e.stderr.Write(lines)
			r.errMu.Unlock()
		}
	}
	if x.Request != nil && x.Response != nil && topicids.Learns(x.APIKey) {
		c.pf.ids.LearnFrom(x.Response, x.APIKey, x.APIVersion) // the topic ids it names
		if s := c.pf.ids.FullNote(); s != "" {
			r.logf("proxy: %s", s)
		}
	}
	r.judged++
	if c.clientID != "" {
		// A raw SASL token carries no client id. The filters are
		// judged as kwire pcap judges them, --api first, for what
		// noneShown says.
		var id string
		has := x.Request != nil && !x.SASLToken
		if has {
			id = requestClientID(x.Request)
		}
		if !has || id != c.clientID {
			l := runLine{dropped: byClientID, clientID: id, hasID: has}
			if c.only != nil && x.SASLToken {
				l = runLine{dropped: byAPI, key: saslTokens}
			} else if c.only != nil && x.Request != nil && x.APIKey != c.only.Key {
				l = runLine{dropped: byAPI, key: x.APIKey}
			}
			r.unmatched.add(&l)
			return
		}
	}
	var ex proxyExchange
	var d proxy.Decoded
	if c.format == "tree" {
		r.dec.Options.Records, r.dec.Options.Kafka = c.jo.records, c.jo.kafka || r.dec.Options.Kafka
		r.dec.Options.Int64Strings = c.jo.int64s
		d = r.dec.Decode(x)
		ex = r.fromTrees(x, &d)
	} else {
		jo := c.jo
		if c.summary && r.feed == nil {
			jo = jsonForm{records: codec.RecordsSize} // the table alone needs error codes, not records
		}
		r.dec.Options = jo.apply(r.dec.Options)
		ex = fromJSON(r.dec.DecodeJSON(x))
	}
	if c.only != nil && ex.key != c.only.Key {
		l := runLine{dropped: byAPI, key: ex.key}
		if x.SASLToken {
			l.key = saslTokens
		}
		r.unmatched.add(&l)
		return
	}
	if c.errorsOnly && len(ex.codes) == 0 {
		r.unmatched.add(&runLine{dropped: byErrors})
		return
	}
	r.diag = r.diag[:0]
	for i, side := range [2]string{"request", "response"} {
		if n, ok := newerOf(ex.info[i]); ok && r.newer.first(n) {
			r.diag = append(append(append(r.diag, "kwire: "...), exchangePrefix(int(x.ConnID), x.CorrelationID, side)...), n.String()+"\n"...)
		}
	}
	for i, side := range [2]string{"request", "response"} {
		if ex.guess[i] != nil || len(ex.warnings[i]) > 0 {
			r.diag = appendDiagnostics(r.diag, exchangePrefix(int(x.ConnID), x.CorrelationID, side), ex.guess[i], ex.warnings[i])
		}
	}
	r.outMu.Lock()
	defer r.outMu.Unlock()
	r.shown++
	key := ex.key
	if x.SASLToken {
		key = saslTokens // the summary's row for them
	}
	r.count(x, key, ex.ver, ex.codes)
	if c.format == "ndjson" && !c.summary || r.feed != nil {
		r.line = appendProxyLine(r.line[:0], x, &ex, c.pf.ids)
	}
	if r.feed != nil && r.feed.Subscribers() > 0 {
		r.ev = r.feed.AppendEvent(r.ev[:0], r.line, x.Request, x.Response)
		r.feed.Publish(append([]byte(nil), r.ev...))
	}
	if len(r.diag) > 0 {
		r.w.Flush() // the lines before it first
		r.errMu.Lock()
		r.e.stderr.Write(r.diag)
		r.errMu.Unlock()
	}
	if c.summary {
		return
	}
	if c.format == "tree" {
		r.w.WriteString(exchangeTree(x, &d, c.color, c.pf.ids))
	} else {
		r.w.Write(r.line)
		r.w.WriteByte('\n')
	}
	if r.p.Queued() == 0 {
		r.w.Flush()
	}
}

// proxyExchange is an exchange decoded, either way: what its line, the
// filters, the summary and standard error need.
type proxyExchange struct {
	key, ver int16
	req, rsp decodedFrame
	codes    []int16 // the response's non-zero error codes
	warnings [2][]codec.Warning
	guess    [2]*codec.Guess
	info     [2]*codec.Frame // what decoding each side learnt (newerOf), nil for none
	redacted []string
}

// fromJSON is an exchange written by the tree-less path.
func fromJSON(d proxy.DecodedJSON) proxyExchange {
	var warnings [2][]codec.Warning
	var guess *codec.Guess
	if f := d.Request.Info; f != nil {
		warnings[0] = f.Warnings
	}
	if f := d.Response.Info; f != nil {
		warnings[1], guess = f.Warnings, f.Guess
	}
	ex := proxyExchange{key: d.APIKey, ver: d.APIVersion, redacted: d.Redacted,
		req:      decodedFrame{json: d.Request.JSON, err: d.Request.Err},
		rsp:      decodedFrame{json: d.Response.JSON, err: d.Response.Err, guess: guess},
		codes:    appendCodes(nil, d.Response.Info),
		warnings: warnings,
		guess:    [2]*codec.Guess{nil, guess},
		info:     [2]*codec.Frame{d.Request.Info, d.Response.Info}}
	return ex
}

// fromTrees is an exchange decoded as trees (the tree view), its value
// JSON written only for the live feed.
func (r *proxyRun) fromTrees(x *proxy.Exchange, d *proxy.Decoded) proxyExchange {
	ex := proxyExchange{key: d.APIKey, ver: d.APIVersion, redacted: d.Redacted,
		req: decodedFrame{err: d.RequestErr}, rsp: decodedFrame{err: d.ResponseErr},
		info: [2]*codec.Frame{d.Request, d.Response}}
	for i, f := range [2]*codec.Frame{d.Request, d.Response} {
		if f == nil {
			continue
		}
		if r.feed != nil {
			r.sides[i] = f.AppendJSON(r.sides[i][:0])
		}
		ex.warnings[i] = f.Warnings
	}
	if d.Request != nil && r.feed != nil {
		ex.req.json = r.sides[0]
	}
	if d.Response != nil {
		if r.feed != nil {
			ex.rsp.json = r.sides[1]
		}
		ex.rsp.guess, ex.guess[1] = d.Response.Guess, d.Response.Guess // set when guessed
		for _, ec := range d.Response.ErrorCodes() {
			if ec.Code != 0 {
				ex.codes = append(ex.codes, ec.Code)
			}
		}
	}
	return ex
}

// appendProxyLine appends an exchange's line: kwire pcap's line, written
// by pcap's own appendExchange from the exchange as a capture would hold
// it, then what the proxy adds: "unanswered" (given up on, as later
// requests of its connection were answered), "rewritten" (broker endpoints rewritten in the response the client
// got); "redacted" (the paths of the secrets zeroed) is pcap's too.
func appendProxyLine(out []byte, x *proxy.Exchange, ex *proxyExchange, ids *topicids.Names) []byte {
	conn := &capture.Conn{ID: int(x.ConnID),
		Client: capture.Endpoint{IP: x.Client.Addr(), Port: x.Client.Port()},
		Broker: capture.Endpoint{IP: x.Broker.Addr(), Port: x.Broker.Port()}}
	cx := &capture.Exchange{Conn: conn, APIKey: x.APIKey, APIVersion: x.APIVersion, CorrelationID: x.CorrelationID,
		Latency: x.Latency(), NoResponseExpected: x.NoResponseExpected, ConnClosed: x.ConnClosed, SASLToken: x.SASLToken}
	if x.Request != nil {
		cx.Request = &capture.Frame{Conn: conn, FromClient: true, Time: x.RequestTime, Bytes: x.Request}
	}
	if x.Response != nil {
		cx.Response = &capture.Frame{Conn: conn, Time: x.ResponseTime, Bytes: x.Response}
	}
	out = appendExchange(out, cx, ex.key, ex.ver, ex.req, ex.rsp, ex.redacted)
	out = out[:len(out)-2] // "}\n"
	if x.Unanswered {
		out = append(out, `,"unanswered":true`...)
	}
	if x.Rewritten > 0 {
		out = append(out, `,"rewritten":`...)
		out = strconv.AppendInt(out, int64(x.Rewritten), 10)
	}
	out = appendTopicNames(out, ids, ex.req.json, ex.rsp.json)
	return append(out, '}')
}

// topicIDKey is how a topic id starts in value JSON (Kafka's form too):
// 22 characters of unpadded URL-safe base64 follow.
const topicIDKey = `"topicId":"`

// appendTopicNames appends "topicNames", the names of the topic ids the
// exchange's value JSON holds (Fetch 13+, Produce 13+ and the like name
// topics by id alone), as far as the session has learnt them from the
// responses that passed (ids: Metadata, CreateTopics,
// DescribeTopicPartitions; bounded at topicids.MaxNames), each id as the
// JSON has it: {"<id>":"orders"}. Nothing when no id of the exchange is
// named: an id alone stays as it is. The frames' JSON is left as it is,
// so that kwire encode reads it back.
func appendTopicNames(out []byte, ids *topicids.Names, sides ...[]byte) []byte {
	if ids == nil || ids.Len() == 0 {
		return out
	}
	w := jsontext.Writer{B: out}
	opened := false
	var seen map[string]bool
	for _, js := range sides {
		for {
			i := bytes.Index(js, []byte(topicIDKey))
			if i < 0 {
				break
			}
			js = js[i+len(topicIDKey):]
			if len(js) < 23 || js[22] != '"' {
				continue
			}
			text := js[:22]
			var id [16]byte
			if n, err := base64.RawURLEncoding.Decode(id[:], text); err != nil || n != 16 {
				continue
			}
			name := ids.Name(id)
			if name == "" || seen[string(text)] {
				continue
			}
			if seen == nil {
				seen = map[string]bool{}
			}
			seen[string(text)] = true
			if !opened {
				w.B = append(w.B, `,"topicNames":`...)
				w.BeginObject()
				opened = true
			}
			w.Key(string(text))
			w.String([]byte(name))
		}
	}
	if opened {
		w.EndObject()
	}
	return w.B
}

// exchangeTree draws one exchange for a terminal: a title line, then the
// request's and the response's trees.
func exchangeTree(x *proxy.Exchange, d *proxy.Decoded, color bool, ids *topicids.Names) string {
	var b strings.Builder
	title := "conn " + strconv.FormatUint(x.ConnID, 10) + " " + x.Client.String() + "->" + x.Broker.String() + "  "
	if x.SASLToken {
		title += "raw SASL token (after SaslHandshake v0)"
	} else {
		title += schema.APIName(d.APIKey) + " v" + strconv.Itoa(int(d.APIVersion)) + "  correlation id " + strconv.Itoa(int(x.CorrelationID))
	}
	if x.Paired() {
		title += "  " + strconv.FormatFloat(capture.Millis(x.Latency()), 'f', 3, 64) + " ms"
	}
	if x.Rewritten > 0 {
		title += "  " + strconv.Itoa(x.Rewritten) + " broker addresses rewritten"
	}
	if color {
		title = ansiBold + title + ansiReset
	}
	b.WriteString(title + "\n")
	side := func(name string, f *codec.Frame, err error, size int) {
		switch {
		case f != nil:
			b.WriteString(name + ":\n")
			b.WriteString(treeTextNames(f, color, ids.Name))
		case size == 0 && name == "response" && x.NoResponseExpected:
			b.WriteString("response: none expected (acks=0)\n")
		case size == 0:
			b.WriteString(name + ": none\n")
		}
		if err != nil {
			msg := name + " error: " + err.Error()
			if color {
				msg = ansiRed + msg + ansiReset
			}
			b.WriteString(msg + "\n")
		}
	}
	side("request", d.Request, d.RequestErr, x.RequestSize)
	side("response", d.Response, d.ResponseErr, x.ResponseSize)
	if len(d.Redacted) > 0 {
		b.WriteString("secrets hidden (--show-secrets shows them): " + strings.Join(d.Redacted, ", ") + "\n")
	}
	b.WriteString("\n")
	return b.String()
}

// count adds an exchange shown to the summary, in pcap's apiStats.
func (r *proxyRun) count(x *proxy.Exchange, key, ver int16, codes []int16) {
	countStat(r.stats, r.errCodes, &exchangeStat{key: key, ver: ver, bytes: int64(x.RequestSize + x.ResponseSize),
		latency: x.Latency(), paired: x.Paired(), noResponse: x.NoResponseExpected, codes: codes})
}

// printSummary prints the per-API table: on standard output with
// --summary, else on standard error (SIGUSR1).
func (r *proxyRun) printSummary() {
	r.outMu.Lock()
	defer r.outMu.Unlock()
	var w io.Writer = r.w
	if !r.cfg.summary {
		r.errMu.Lock()
		defer r.errMu.Unlock()
		w = r.e.stderr
	}
	st := r.p.Stats()
	fmt.Fprintf(w, "%s: %s (%d open), %s, %d shown, %d skipped because decoding was behind, %s rewritten, %s\n\n",
		time.Now().UTC().Format(time.RFC3339), plural(int(st.Connections), "connection"), st.Open, plural(int(st.Exchanges), "exchange"), r.shown, st.Skipped,
		pluralOf(int(st.Rewritten), "broker address", "broker addresses"), plural(int(st.Listeners), "listener"))
	writeAPITable(w, r.stats, r.errCodes)
	fmt.Fprintln(w)
	if w == io.Writer(r.w) {
		r.w.Flush()
	}
}

// webDirReady says why dir, the site --web serves, cannot be served: not
// a folder, named by its whole path (--web-dir is relative to where kwire
// runs).
func webDirReady(dir string) error {
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		return nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	return errors.New("--web serves the built site, and " + abs + " is not a folder: give the site kwire site --out DIR wrote (make site writes dist in the repository) with --web-dir DIR")
}

// serveWeb serves the built site (as kwire serve does, the JSON API
// included, within its limits and behind its Host and Origin checks) with
// the live feed at /proxy/events, until ctx ends; what serve returns
// comes on the channel.
func (r *proxyRun) serveWeb(ctx context.Context) (<-chan error, error) {
	if err := webDirReady(r.cfg.webDir); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", r.cfg.web)
	if err != nil {
		return nil, listenError("--web", r.cfg.web, err)
	}
	r.feed = &proxy.Feed{}
	mux := http.NewServeMux()
	mux.Handle("/proxy/events", r.feed)
	mux.Handle("/", siteHandler(r.cfg.webDir, nil))
	done := make(chan error, 1)
	opts := serveOptions{allowHosts: r.cfg.webHosts, log: func(s string) { r.logf("proxy: web: %s", s) }, onShutdown: r.feed.Close}
	go func() { done <- serve(ctx, ln, mux, defaultLimits, opts) }()
	r.logf("proxy: the playground with the live feed is at http://%s/playground/#live (events at /proxy/events)", ln.Addr())
	return done, nil
}
