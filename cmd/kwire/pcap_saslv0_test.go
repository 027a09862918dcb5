package main

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// saslV0Users are kfake's SASL users, one per mechanism, for the
// kafka-python SASL v0 captures.
var saslV0Users = map[string][2]string{
	"PLAIN":         {"admin", "admin-secret"},
	"SCRAM-SHA-256": {"scram", "scram-secret"},
	"SCRAM-SHA-512": {"scram512", "scram512-secret"},
}

// saslV0Mechanisms are the mechanisms kfake supports, which the front
// lists in a handshake's answer when kfake lists none.
var saslV0Mechanisms = []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}

// saslV0Steps is how many raw token exchanges the mechanism's login takes
// after a SaslHandshake v0 (KIP-43): PLAIN one (the credentials, the
// broker's empty answer), SCRAM two (client-first and server-first,
// client-final and server-final).
func saslV0Steps(mechanism string) int {
	switch mechanism {
	case "PLAIN":
		return 1
	case "SCRAM-SHA-256", "SCRAM-SHA-512":
		return 2
	}
	return 0
}

// saslV0Front listens on loopback in front of a kfake broker at upstream
// and lets a client of SASL the old way (SaslHandshake v0, then raw SASL
// tokens, size-prefixed with no Kafka header) log in to kfake, which only
// takes SaslHandshake v1 and SaslAuthenticate. Per client connection it
// dials upstream and, until the login is done, relays request by request:
// a SaslHandshake v0 goes to kfake as v1 (the body is the same at both
// versions), and its answer comes back with kfake's mechanisms listed
// (kfake lists none when it takes the one asked for; a client of v0, as
// kafka-python, requires its own among them); then each raw token of the
// client goes to kfake in a SaslAuthenticate v0 request, and the answer's
// auth bytes go back as a raw token (PLAIN's empty answer: a zero size),
// for as many steps as the mechanism takes; an error from kfake closes
// the client's connection, as a broker does. After that, or at a first
// request that is not ApiVersions or SASL, bytes are relayed unchanged
// both ways. The tokens are written to the test's log. The listener and
// every connection are closed, and every goroutine waited for, by
// t.Cleanup.
func saslV0Front(t *testing.T, upstream string) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var (
		mu     sync.Mutex
		closed bool
		conns  = map[net.Conn]bool{}
		wg     sync.WaitGroup
	)
	// track registers c to be closed by the cleanup; false when the
	// cleanup has run (c is closed then).
	track := func(c net.Conn) bool {
		mu.Lock()
		defer mu.Unlock()
		if closed {
			c.Close()
			return false
		}
		conns[c] = true
		return true
	}
	untrack := func(c net.Conn) {
		c.Close()
		mu.Lock()
		delete(conns, c)
		mu.Unlock()
	}
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		closed = true
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	wg.Add(1)
	go func() {
		defer wg.Done()
		for id := 1; ; id++ {
			c, err := l.Accept()
			if err != nil {
				return
			}
			if !track(c) {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer untrack(c)
				u, err := net.DialTimeout("tcp", upstream, 5*time.Second)
				if err != nil {
					t.Logf("sasl front conn %d: dial %s: %v", id, upstream, err)
					return
				}
				if !track(u) {
					return
				}
				defer untrack(u)
				if !saslV0Login(t, id, c, u) {
					return
				}
				// Logged in (or never asked to): relay both ways until
				// either side closes, frame by frame, the ApiVersions
				// answers saying SaslHandshake v0 as a broker's do.
				saslV0Relay(c, u)
			}()
		}
	}()
	return l.Addr().String()
}

// saslV0Login relays, request by request, the client c's frames to kfake
// u until a login with SaslHandshake v0 and raw tokens is done, or until
// a request that is not ApiVersions or SASL (forwarded). It returns false
// when the connection is to be closed.
func saslV0Login(t *testing.T, id int, c, u net.Conn) bool {
	for {
		b, err := readSized(c)
		if err != nil || len(b) < 12 {
			return false
		}
		key, version := int16(binary.BigEndian.Uint16(b[4:])), int16(binary.BigEndian.Uint16(b[6:]))
		if key == 17 && version == 0 {
			return saslV0Handshake(t, id, c, u, b)
		}
		if _, err := u.Write(b); err != nil {
			return false
		}
		if key != 18 && key != 17 && key != 36 {
			return true // an ordinary request: relay from here on
		}
		resp, err := readSized(u)
		if err != nil {
			return false
		}
		if _, err := c.Write(resp); err != nil {
			return false
		}
	}
}

// saslV0Relay relays frames between the client c and kfake u until either
// closes. kfake advertises SaslHandshake from v1 only, which a broker
// taking v0 logins does not: its ApiVersions answers are made to say v0
// (kwire check would rightly find the v0 handshakes outside the range
// otherwise).
func saslV0Relay(c, u net.Conn) {
	versions := make(chan [2]int32, 64) // the ApiVersions requests' correlation ids and versions, in order
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(versions)
		for {
			b, err := readSized(c)
			if err != nil || len(b) < 12 {
				break
			}
			if binary.BigEndian.Uint16(b[4:]) == 18 {
				versions <- [2]int32{int32(binary.BigEndian.Uint32(b[8:])), int32(binary.BigEndian.Uint16(b[6:]))}
			}
			if _, err := u.Write(b); err != nil {
				break
			}
		}
		u.Close()
		c.Close()
	}()
	var wanted [][2]int32
	for {
		b, err := readSized(u)
		if err != nil || len(b) < 8 {
			break
		}
		for len(versions) > 0 { // the requests sent so far
			wanted = append(wanted, <-versions)
		}
		corr := int32(binary.BigEndian.Uint32(b[4:]))
		for i, w := range wanted {
			if w[0] != corr {
				continue
			}
			wanted = append(wanted[:i], wanted[i+1:]...)
			av := kmsg.ApiVersionsResponse{Version: int16(w[1])}
			if av.ReadFrom(b[8:]) == nil { // the header is v0 at every version
				for k := range av.ApiKeys {
					if av.ApiKeys[k].ApiKey == 17 {
						av.ApiKeys[k].MinVersion = 0
					}
				}
				body := av.AppendTo(append([]byte(nil), b[4:8]...))
				b = append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
			}
			break
		}
		if _, err := c.Write(b); err != nil {
			break
		}
	}
	c.Close()
	u.Close()
	<-done
}

// saslV0Handshake forwards the client's SaslHandshake v0 request b as v1,
// answers it, and exchanges the mechanism's raw tokens through
// SaslAuthenticate v0.
func saslV0Handshake(t *testing.T, id int, c, u net.Conn, b []byte) bool {
	// The request header (v1: key, version, correlation id, client id)
	// and the body, the mechanism.
	idLen := int(int16(binary.BigEndian.Uint16(b[12:])))
	if 14+max(idLen, 0) > len(b) {
		return false
	}
	req := kmsg.SASLHandshakeRequest{Version: 0}
	if err := req.ReadFrom(b[14+max(idLen, 0):]); err != nil {
		t.Logf("sasl front conn %d: SaslHandshake v0 request: %v", id, err)
		return false
	}
	binary.BigEndian.PutUint16(b[6:], 1)
	if _, err := u.Write(b); err != nil {
		return false
	}
	resp, err := readSized(u)
	if err != nil || len(resp) < 8 {
		return false
	}
	hs := kmsg.SASLHandshakeResponse{Version: 1}
	if err := hs.ReadFrom(resp[8:]); err != nil {
		t.Logf("sasl front conn %d: SaslHandshake v1 response: %v", id, err)
		return false
	}
	if hs.ErrorCode == 0 && len(hs.SupportedMechanisms) == 0 {
		hs.SupportedMechanisms = saslV0Mechanisms
		hs.Version = 0
		body := hs.AppendTo(append([]byte(nil), resp[4:8]...)) // correlation id, body
		resp = append(binary.BigEndian.AppendUint32(nil, uint32(len(body))), body...)
	}
	if _, err := c.Write(resp); err != nil {
		return false
	}
	if hs.ErrorCode != 0 {
		t.Logf("sasl front conn %d: kfake refused SaslHandshake %s: error %d", id, req.Mechanism, hs.ErrorCode)
		return true // no login: the client sees the error
	}
	steps := saslV0Steps(req.Mechanism)
	format := kmsg.NewRequestFormatter(kmsg.FormatterClientID("kwire-sasl-front"))
	for step := range steps {
		tok, err := readSized(c)
		if err != nil {
			return false
		}
		t.Logf("sasl front conn %d %s: client token %d: %q", id, req.Mechanism, step+1, tok[4:])
		auth := kmsg.SASLAuthenticateRequest{Version: 0, SASLAuthBytes: tok[4:]}
		if _, err := u.Write(format.AppendRequest(nil, &auth, int32(1000+step))); err != nil {
			return false
		}
		resp, err := readSized(u)
		if err != nil || len(resp) < 8 {
			t.Logf("sasl front conn %d %s: kfake closed at SaslAuthenticate %d: %v", id, req.Mechanism, step+1, err)
			return false
		}
		ar := kmsg.SASLAuthenticateResponse{Version: 0}
		if err := ar.ReadFrom(resp[8:]); err != nil {
			t.Logf("sasl front conn %d: SaslAuthenticate v0 response: %v", id, err)
			return false
		}
		if ar.ErrorCode != 0 {
			msg := ""
			if ar.ErrorMessage != nil {
				msg = *ar.ErrorMessage
			}
			t.Logf("sasl front conn %d %s: kfake refused token %d: error %d %s; closing, as a broker does", id, req.Mechanism, step+1, ar.ErrorCode, msg)
			return false
		}
		t.Logf("sasl front conn %d %s: broker token %d: %q", id, req.Mechanism, step+1, ar.SASLAuthBytes)
		if _, err := c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(ar.SASLAuthBytes))), ar.SASLAuthBytes...)); err != nil {
			return false
		}
	}
	return true
}

// advertisedListener is kfake's listener telling kfake another address,
// the front's, which kfake then gives clients in its metadata.
type advertisedListener struct {
	net.Listener
	addr net.Addr
}

func (l advertisedListener) Addr() net.Addr { return l.addr }

// saslV0Cluster starts kfake (one broker, topic "orders", SASL with a user
// per mechanism) behind a saslV0Front, and returns the front's port: kfake
// advertises the front, so every connection of a client goes through it.
func saslV0Cluster(t *testing.T) int {
	kl, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { kl.Close() })
	front := saslV0Front(t, kl.Addr().String())
	fa, err := net.ResolveTCPAddr("tcp", front)
	require.NoError(t, err)
	given := false
	listen := func(network, addr string) (net.Listener, error) {
		if given {
			return nil, errors.New("saslV0Cluster: one broker only")
		}
		given = true
		return advertisedListener{kl, fa}, nil
	}
	opts := []kfake.Opt{kfake.NumBrokers(1), kfake.ListenFn(listen), kfake.SeedTopics(1, "orders"), kfake.EnableSASL()}
	for m, u := range saslV0Users {
		opts = append(opts, kfake.Superuser(m, u[0], u[1]))
	}
	cluster, err := kfake.NewCluster(opts...)
	require.NoError(t, err)
	t.Cleanup(cluster.Close)
	return fa.Port
}

// captureKafkaPythonSASL runs testdata/kafkapython-sasl.py, kafka-python
// logging in with mechanism (SaslHandshake v0 and raw tokens) through a
// saslV0Front to kfake, producing 3 records to "orders" and consuming
// them, captured on the front's port. It returns the capture and the port.
func captureKafkaPythonSASL(t *testing.T, mechanism string) (string, int) {
	script, err := filepath.Abs(filepath.Join("testdata", "kafkapython-sasl.py"))
	require.NoError(t, err)
	port := saslV0Cluster(t)
	u := saslV0Users[mechanism]
	file := captureLoopback(t, port, func() {
		start := time.Now()
		runKafkaPython(t, script, "kafka-python: SASL "+mechanism+" produced and consumed 3", "127.0.0.1:"+strconv.Itoa(port), mechanism, u[0], u[1])
		t.Logf("kafka-python %s: %v", mechanism, time.Since(start).Round(time.Millisecond))
	})
	return file, port
}

// saslV0Produced is what testdata/kafkapython-sasl.py produces.
func saslV0Produced(mechanism string) []produced {
	var want []produced
	for i := range 3 {
		want = append(want, produced{fmt.Sprintf("py-sasl-key-%d", i), fmt.Sprintf("kafka-python %s value %d", mechanism, i)})
	}
	return want
}

// TestCaptureKafkaPythonSASLv0 captures kafka-python logging in with SASL
// the way of KIP-43 (SaslHandshake v0, then raw SASL tokens, size-prefixed
// with no Kafka header), with PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512,
// through saslV0Front to kfake, then producing and consuming; and runs
// kwire pcap on it (assertSASLv0Capture says what kwire makes of it).
func TestCaptureKafkaPythonSASLv0(t *testing.T) {
	needKafkaPython(t)
	for _, mechanism := range []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"} {
		t.Run(mechanism, func(t *testing.T) {
			file, port := captureKafkaPythonSASL(t, mechanism)
			out, errOut, code := runCLI(t, []string{"pcap", "--port", strconv.Itoa(port), file}, nil)
			require.Equal(t, 0, code, errOut)
			assertSASLv0Capture(t, file, port, mechanism, out, errOut)
			if *update && mechanism == "SCRAM-SHA-256" {
				b, err := os.ReadFile(file)
				require.NoError(t, err)
				require.NoError(t, os.WriteFile(filepath.Join(sharedTestdata, "captures", "kafkapython-sasl.pcapng"), b, 0o644))
				require.NoError(t, os.WriteFile(filepath.Join("testdata", "kafkapython-sasl.port"), []byte(strconv.Itoa(port)+"\n"), 0o644))
			}
		})
	}
}

// TestCommittedSASLv0Capture reads the committed capture of kafka-python
// logging in with SCRAM-SHA-256 by SaslHandshake v0 and raw tokens (made
// by TestCaptureKafkaPythonSASLv0 -update), as that test reads its own:
// the playground's tests open it too.
func TestCommittedSASLv0Capture(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "kafkapython-sasl.port"))
	require.NoError(t, err)
	port, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	file, err := filepath.Abs(filepath.Join(sharedTestdata, "captures", "kafkapython-sasl.pcapng"))
	require.NoError(t, err)
	out, errOut, code := runCLI(t, []string{"pcap", "--port", strconv.Itoa(port), file}, nil)
	require.Equal(t, 0, code, errOut)
	assertSASLv0Capture(t, file, port, "SCRAM-SHA-256", out, errOut)
}

// assertSASLv0Capture holds what kwire pcap makes of a capture of
// kafka-python's SASL v0 logins (out and stderr: its output on file, port
// the broker's): each connection's SaslHandshake v0 is decoded, paired,
// with the mechanism asked for and taken; the raw tokens after it are
// exchanges of their own (saslToken), each read as the SASL message it
// is: PLAIN's credentials and the broker's empty answer, or SCRAM's four
// messages, the nonces chained; nothing is taken for a frame that is none
// (no SaslAuthenticate, no resynchronising); the exchanges after the
// login decode whole, the Produce requests hold exactly the records the
// script produced, and kwire check finds nothing wrong with any of it.
func assertSASLv0Capture(t *testing.T, file string, port int, mechanism string, out, stderr string) {
	t.Helper()
	var handshakes int
	var lines []pcapLine
	apis := map[string]int{}
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		var l struct {
			pcapLine
			APIVersion int `json:"apiVersion"`
		}
		require.NoError(t, json.Unmarshal([]byte(s), &l), s)
		require.Empty(t, l.RequestError, s)
		require.Empty(t, l.ResponseError, s)
		require.True(t, l.Paired || l.NoResponse || l.ConnClosed && l.Response == nil, "unpaired %s %s", l.APIName, s)
		apis[l.APIName]++
		lines = append(lines, l.pcapLine)
		if l.APIName != "SaslHandshake" {
			continue
		}
		handshakes++
		require.Equal(t, 0, l.APIVersion, s)
		var req struct {
			Body struct{ Mechanism string } `json:"body"`
		}
		require.NoError(t, json.Unmarshal(l.Request, &req), s)
		require.Equal(t, mechanism, req.Body.Mechanism, s)
		var resp struct {
			Body struct {
				ErrorCode  int      `json:"errorCode"`
				Mechanisms []string `json:"mechanisms"`
			} `json:"body"`
		}
		require.NoError(t, json.Unmarshal(l.Response, &resp), s)
		require.Equal(t, 0, resp.Body.ErrorCode, s)
		require.Contains(t, resp.Body.Mechanisms, mechanism, s)
	}
	t.Logf("kwire pcap, %s: exchanges per API %v", mechanism, apis)
	// kafka-python logs in on every connection: its producer's and its
	// consumer's to the bootstrap broker and to the broker as node 0.
	require.GreaterOrEqual(t, handshakes, 2, "SaslHandshake v0 exchanges")
	require.Zero(t, apis["SaslAuthenticate"], "raw tokens are no SaslAuthenticate requests")
	for _, a := range []string{"ApiVersions", "Metadata", "Produce", "Fetch"} {
		require.Greater(t, apis[a], 0, "the capture holds %s exchanges", a)
	}

	// The records produced, decoded from the Produce requests.
	var got []produced
	for _, l := range lines {
		if l.APIName == "Produce" {
			got = appendRecords(got, produceBatches(t, l.Request))
		}
	}
	sort.Slice(got, func(i, j int) bool { return got[i].key < got[j].key })
	require.Equal(t, saslV0Produced(mechanism), got)

	// The tokens: one exchange per step of each login, in the order of
	// the mechanism's messages, the client's answered by the broker's.
	u := saslV0Users[mechanism]
	var tokens []saslV0Token
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		var l struct {
			SASLToken bool                           `json:"saslToken"`
			APIKey    int                            `json:"apiKey"`
			Paired    bool                           `json:"paired"`
			ConnID    int                            `json:"connId"`
			Request   struct{ Value map[string]any } `json:"request"`
			Response  struct{ Value any }            `json:"response"`
		}
		require.NoError(t, json.Unmarshal([]byte(s), &l), s)
		if l.SASLToken {
			require.Equal(t, -1, l.APIKey, s)
			require.True(t, l.Paired, "each token answered: %s", s)
			tokens = append(tokens, saslV0Token{l.ConnID, l.Request.Value, l.Response.Value})
		}
	}
	require.Len(t, tokens, handshakes*saslV0Steps(mechanism), out)
	for i := 0; i < len(tokens); i += saslV0Steps(mechanism) {
		first := tokens[i]
		if mechanism == "PLAIN" {
			masked := strings.Repeat("*", len(u[1])) // kwire pcap hides secrets unless --show-secrets
			require.Equal(t, map[string]any{"mechanism": "PLAIN", "message": "client-initial", "authzid": u[0], "username": u[0], "password": masked}, first.req)
			require.Equal(t, "", first.resp, "the broker's empty answer")
			continue
		}
		final := tokens[i+1]
		require.Equal(t, first.conn, final.conn, "a login's tokens on one connection")
		require.Equal(t, "client-first", first.req["message"])
		require.Equal(t, u[0], first.req["username"])
		sf, ok := first.resp.(map[string]any)
		require.True(t, ok, "server-first: %v", first.resp)
		require.Equal(t, "server-first", sf["message"])
		require.EqualValues(t, 4096, sf["iterations"])
		require.True(t, strings.HasPrefix(sf["nonce"].(string), first.req["nonce"].(string)), "the server's nonce continues the client's")
		require.Equal(t, "client-final", final.req["message"])
		require.Equal(t, sf["nonce"], final.req["nonce"], "the client's final nonce repeats the server's")
		sfin, ok := final.resp.(map[string]any)
		require.True(t, ok, "server-final: %v", final.resp)
		require.Equal(t, "server-final", sfin["message"])
		require.Equal(t, strings.Repeat("*", map[string]int{"SCRAM-SHA-256": 44, "SCRAM-SHA-512": 88}[mechanism]), sfin["verifier"], "masked")
		require.Regexp(t, `^\*{44,}$`, final.req["proof"], "masked")
	}
	require.NotContains(t, out, u[1], "the password is never printed")
	// What was hidden is said once: every PLAIN login, or SCRAM's final
	// messages.
	require.Equal(t, "kwire: "+file+": secrets hidden in "+strconv.Itoa(handshakes)+` exchanges, each line's "redacted" naming them; --show-secrets shows them`, strings.TrimSpace(stderr))
	out, errOut, code := runCLI(t, []string{"check", "--fail-on", "note", "--port", strconv.Itoa(port), file}, nil)
	require.Equal(t, 0, code, out+errOut)
}

// saslV0Token is a raw token exchange of a kafka-python login: its
// connection, the client's message and the broker's answer.
type saslV0Token struct {
	conn int
	req  map[string]any
	resp any
}
