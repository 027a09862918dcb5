package capture

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/hex"
	"io"
	"math/big"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/gopacket/layers"
	"github.com/kwire/kwire/internal/bench/traffic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// testCert is the test's TLS server certificate, made once, so that a
// client may resume a session with a later server (TestTLSResumed).
var testCert struct {
	once sync.Once
	cert tls.Certificate
	pool *x509.CertPool
}

// selfSigned is a certificate for the test's TLS server, and a pool that
// trusts it.
func selfSigned(t testing.TB) (tls.Certificate, *x509.CertPool) {
	testCert.once.Do(func() { testCert.cert, testCert.pool = makeCert(t) })
	return testCert.cert, testCert.pool
}

func makeCert(t testing.TB) (tls.Certificate, *x509.CertPool) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "broker"}, DNSNames: []string{"broker"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	cert, err := x509.ParseCertificate(der)
	require.NoError(t, err)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, pool
}

// flight is what one side wrote to the connection in one call.
type flight struct {
	client bool
	data   []byte
}

// recorder keeps every write of both sides of a connection, in order.
type recorder struct {
	mu      sync.Mutex
	flights []flight
}

type recConn struct {
	net.Conn
	r      *recorder
	client bool
}

func (c recConn) Write(b []byte) (int, error) {
	c.r.mu.Lock()
	c.r.flights = append(c.r.flights, flight{c.client, bytes.Clone(b)})
	c.r.mu.Unlock()
	return c.Conn.Write(b)
}

// tlsExchanges runs a real TLS session (crypto/tls, both ends) in which the client sends each of reqs and the server answers it
// with the matching resp, and returns what each side wrote, in order,
// and the client's key log.
func tlsExchanges(t testing.TB, client, server *tls.Config, reqs, resps [][]byte) ([]flight, []byte) {
	cert, pool := selfSigned(t)
	client, server = client.Clone(), server.Clone()
	var keys bytes.Buffer
	client.RootCAs, client.ServerName, client.KeyLogWriter = pool, "broker", &keys
	server.Certificates = []tls.Certificate{cert}
	// Loopback TCP, not net.Pipe: the kernel's buffers let both sides
	// write at once, as a HelloRetryRequest's flights do.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer l.Close()
	a, err := net.Dial("tcp", l.Addr().String())
	require.NoError(t, err)
	b, err := l.Accept()
	require.NoError(t, err)
	rec := &recorder{}
	done := make(chan error, 1)
	go func() {
		s := tls.Server(recConn{b, rec, false}, server)
		if err := s.Handshake(); err != nil {
			done <- err
			return
		}
		for _, resp := range resps {
			var size [4]byte
			if _, err := io.ReadFull(s, size[:]); err != nil {
				done <- err
				return
			}
			if _, err := io.CopyN(io.Discard, s, int64(binary.BigEndian.Uint32(size[:]))); err != nil {
				done <- err
				return
			}
			if _, err := s.Write(resp); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	c := tls.Client(recConn{a, rec, true}, client)
	require.NoError(t, c.SetDeadline(time.Now().Add(20*time.Second)))
	if err := c.Handshake(); err != nil {
		a.Close()
		require.NoError(t, err, "server: %v", <-done)
	}
	lastResumed = c.ConnectionState().DidResume
	for i, req := range reqs {
		_, err := c.Write(req)
		require.NoError(t, err)
		var size [4]byte
		_, err = io.ReadFull(c, size[:])
		require.NoError(t, err)
		_, err = io.CopyN(io.Discard, c, int64(binary.BigEndian.Uint32(size[:])))
		require.NoError(t, err, "response %d", i)
	}
	require.NoError(t, <-done)
	a.Close() // no close_notify: nobody is left to read it
	b.Close()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return rec.flights, keys.Bytes()
}

// lastResumed says whether tlsExchanges' last session was resumed.
var lastResumed bool

// tlsCapture is a capture of flights on one TCP connection, each cut into
// segments of at most seg bytes; drop, when > 0, leaves out the segment of
// that number (counted from 1).
func tlsCapture(t testing.TB, flights []flight, seg, drop int) *tb {
	b := newTB(t, layers.LinkTypeEthernet)
	tlsConv(b, "10.0.0.1:40000", flights, seg, drop)
	return b
}

// tlsConv adds to b a connection from client carrying flights, as
// tlsCapture does.
func tlsConv(b *tb, client string, flights []flight, seg, drop int) {
	v := b.conv(client, "10.0.0.2:9093")
	v.handshake()
	n := 0
	for _, f := range flights {
		for _, s := range v.split(f.client, f.data, seg) {
			if n++; n != drop {
				v.send(s)
			}
		}
	}
	v.fin()
}

// bigRequest is a Produce v9 request frame of about 40 KB: three TLS
// records at least.
func bigRequest(corr int32) []byte {
	return kreq(0, 9, corr, "kwire-test", append([]byte{0, 0, 1}, make([]byte, 40000)...)) // acks 1
}

func testKeyLog(t testing.TB, b []byte) *KeyLog {
	k, err := ParseKeyLog(bytes.NewReader(b))
	require.NoError(t, err)
	return k
}

// TestTLSDecrypted reads captures of real TLS sessions, each version and
// AEAD suite kwire decrypts, with their key log: the Kafka frames inside
// come out as they were written, paired, their connection named with its
// version and suite.
func TestTLSDecrypted(t *testing.T) {
	reqs := [][]byte{apiVersionsReq(1), bigRequest(2), apiVersionsReq(3)}
	resps := [][]byte{apiVersionsResp(1), kresp(2, bytes.Repeat([]byte{7}, 30000)), apiVersionsResp(3)}
	tls12 := func(suite uint16) *tls.Config {
		return &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{suite}}
	}
	for _, c := range []struct {
		name           string
		client, server *tls.Config
		want           string
	}{
		{"1.3", &tls.Config{}, &tls.Config{}, "TLS 1.3 TLS_AES_128_GCM_SHA256"},
		// The server asks for another key share (HelloRetryRequest): the
		// second ServerHello is the session's.
		{"1.3 retry", &tls.Config{}, &tls.Config{CurvePreferences: []tls.CurveID{tls.CurveP384}}, "TLS 1.3 TLS_AES_128_GCM_SHA256"},
		{"1.2 AES-128-GCM", tls12(tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256), &tls.Config{}, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256"},
		{"1.2 AES-256-GCM", tls12(tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384), &tls.Config{}, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384"},
		{"1.2 ChaCha20", tls12(tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256), &tls.Config{}, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256"},
		// The CBC suites Go speaks: MAC (HMAC-SHA-1 or -SHA-256), padding,
		// then AES-CBC with each record's own IV.
		{"1.2 AES-128-CBC-SHA", tls12(tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA), &tls.Config{}, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA"},
		{"1.2 AES-256-CBC-SHA", tls12(tls.TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA), &tls.Config{}, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA"},
		{"1.2 AES-128-CBC-SHA256", tls12(tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256), &tls.Config{CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256}}, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256"},
	} {
		t.Run(c.name, func(t *testing.T) {
			flights, keys := tlsExchanges(t, c.client, c.server, reqs, resps)
			// Whole flights, and segments of 7 bytes, which cut every
			// record header and hello in pieces.
			for _, seg := range []int{1 << 20, 7} {
				r := tlsCapture(t, flights, seg, 0).read(Options{KeyLog: testKeyLog(t, keys)})
				dump(t, r)
				require.Len(t, r.Conns, 1, "segments of %d", seg)
				assert.Equal(t, c.want, r.Conns[0].TLS)
				assert.Equal(t, 1, r.TLSDecrypted)
				assert.Equal(t, 0, r.TLS)
				assert.Empty(t, r.Notes)
				require.Equal(t, []int32{1, 2, 3}, pairedCorrs(r))
				for i, x := range r.Exchanges {
					assert.Equal(t, reqs[i], x.Request.Bytes)
					assert.Equal(t, resps[i], x.Response.Bytes)
				}
				assert.Equal(t, int64(len(reqs[0])), r.Exchanges[1].Request.StreamOffset, "offsets count the decrypted bytes")
			}
			if c.name == "1.3 retry" {
				require.Contains(t, string(flights[1].data[11:43]), string(hrrRandom[:]), "the server's first hello is a HelloRetryRequest")
			}
		})
	}
}

// sealTLS13 is data as the TLS 1.3 record numbered seq of content type
// typ under traffic secret (AES-128-GCM, SHA-256), written from RFC 8446
// here, apart from the reader's own key schedule.
func sealTLS13(secret []byte, seq uint64, typ byte, data []byte) []byte {
	label := func(l string, n int) []byte {
		info := binary.BigEndian.AppendUint16(nil, uint16(n))
		info = append(append(info, byte(6+len(l))), "tls13 "+l...)
		out, _ := hkdf.Expand(sha256.New, secret, string(append(info, 0)), n)
		return out
	}
	block, _ := aes.NewCipher(label("key", 16))
	aead, _ := cipher.NewGCM(block)
	nonce := label("iv", 12)
	for i := 0; i < 8; i++ {
		nonce[4+i] ^= byte(seq >> (56 - 8*i))
	}
	inner := append(bytes.Clone(data), typ)
	hdr := append([]byte{23, 3, 3}, binary.BigEndian.AppendUint16(nil, uint16(len(inner)+16))...)
	return aead.Seal(hdr, nonce, inner, hdr)
}

// TestTLSKeyUpdate: after a TLS 1.3 KeyUpdate, a direction's records are
// under its next traffic secret (RFC 8446, 7.2), which the reader moves
// to. Go sends no KeyUpdate of its own, so the client's is written here:
// the message under the first secret, then a request under the next.
func TestTLSKeyUpdate(t *testing.T) {
	flights, keys := tlsExchanges(t, &tls.Config{}, &tls.Config{}, [][]byte{apiVersionsReq(1)}, [][]byte{apiVersionsResp(1)})
	var secret []byte
	for _, l := range strings.Split(string(keys), "\n") {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "CLIENT_TRAFFIC_SECRET_0" {
			secret, _ = hex.DecodeString(f[2])
		}
	}
	require.Len(t, secret, 32)
	// The client's records under the first traffic secret: all its
	// encrypted ones but its Finished.
	seq := uint64(0)
	for _, f := range flights {
		for b := f.data; f.client && len(b) >= 5; b = b[5+int(binary.BigEndian.Uint16(b[3:])):] {
			if b[0] == 23 {
				seq++
			}
		}
	}
	seq--
	next, _ := hkdf.Expand(sha256.New, secret, string(append(append(binary.BigEndian.AppendUint16(nil, 32), byte(6+len("traffic upd"))), "tls13 traffic upd\x00"...)), 32)
	update := sealTLS13(secret, seq, 22, []byte{24, 0, 0, 1, 0}) // KeyUpdate, update_not_requested
	flights = append(flights, flight{true, append(update, sealTLS13(next, 0, 23, apiVersionsReq(2))...)})
	r := tlsCapture(t, flights, 1<<20, 0).read(Options{KeyLog: testKeyLog(t, keys)})
	dump(t, r)
	assert.Empty(t, r.Notes)
	require.Len(t, r.Exchanges, 2)
	assert.Equal(t, apiVersionsReq(2), r.Exchanges[1].Request.Bytes, "the request after the key update")
}

// TestTLSResumed: a session resumed from an earlier one in the capture is
// decrypted. TLS 1.3's (a PSK) has secrets of its own in the key log;
// TLS 1.2's abbreviated handshake (the server changes cipher spec first)
// has none, as Go's client writes no line for it: it takes the master
// secret of the session whose ticket it offers.
func TestTLSResumed(t *testing.T) {
	for _, max := range []uint16{tls.VersionTLS12, tls.VersionTLS13} {
		client := &tls.Config{MaxVersion: max, ClientSessionCache: tls.NewLRUClientSessionCache(4)}
		server := &tls.Config{}
		server.SetSessionTicketKeys([][32]byte{{1, 2, 3}})
		reqs, resps := [][]byte{apiVersionsReq(1)}, [][]byte{apiVersionsResp(1)}
		first, keys := tlsExchanges(t, client, server, reqs, resps)
		require.False(t, lastResumed)
		second, more := tlsExchanges(t, client, server, reqs, resps)
		require.True(t, lastResumed, "the second session resumes the first (%s)", tls.VersionName(max))
		b := newTB(t, layers.LinkTypeEthernet)
		tlsConv(b, "10.0.0.1:40000", first, 1<<20, 0)
		tlsConv(b, "10.0.0.1:40001", second, 1<<20, 0)
		r := b.read(Options{KeyLog: testKeyLog(t, append(keys, more...))})
		dump(t, r)
		require.Len(t, r.Conns, 2)
		for _, c := range r.Conns {
			assert.Contains(t, c.TLS, tls.VersionName(max))
		}
		assert.Equal(t, []int32{1, 1}, pairedCorrs(r))
		assert.Empty(t, r.Notes)
	}
}

// TestTLSNotDecrypted: a TLS connection without its secrets is said, and
// dropped, as before key logs: none given, a key log of other sessions,
// or one with its secrets but a capture that starts after its hello.
func TestTLSNotDecrypted(t *testing.T) {
	flights, keys := tlsExchanges(t, &tls.Config{}, &tls.Config{}, [][]byte{apiVersionsReq(1), apiVersionsReq(2)}, [][]byte{apiVersionsResp(1), apiVersionsResp(2)})
	other := []byte("CLIENT_TRAFFIC_SECRET_0 " + strings.Repeat("ab", 32) + " " + strings.Repeat("cd", 32) + "\n")
	for _, c := range []struct {
		name string
		keys *KeyLog
		want string
	}{
		{"no key log", nil, "TLS (record header 16 03 01): encrypted, not decoded"},
		{"other sessions", testKeyLog(t, other), "TLS: TLS 1.3; the key log has no traffic secrets (CLIENT_TRAFFIC_SECRET_0 and SERVER_TRAFFIC_SECRET_0) for its client random "},
	} {
		r := tlsCapture(t, flights, 1<<20, 0).read(Options{KeyLog: c.keys})
		dump(t, r)
		assert.Empty(t, r.Conns, c.name)
		assert.Equal(t, 1, r.TLS, c.name)
		assert.Equal(t, 0, r.TLSDecrypted, c.name)
		require.Len(t, r.Notes, 1, c.name)
		assert.True(t, r.Notes[0].TLS, c.name)
		assert.Contains(t, r.Notes[0].Message, c.want, c.name)
	}
	// The capture begins after the hellos: the secrets cannot be found.
	b := newTB(t, layers.LinkTypeEthernet)
	v := b.conv("10.0.0.1:40000", "10.0.0.2:9093")
	var cl, sv []byte
	for _, f := range flights[3:] {
		if f.client {
			cl = append(cl, f.data...)
		} else {
			sv = append(sv, f.data...)
		}
	}
	v.req(cl)
	v.resp(sv)
	r := b.read(Options{KeyLog: testKeyLog(t, keys)})
	dump(t, r)
	assert.Equal(t, 1, r.TLS)
	require.NotEmpty(t, r.Notes)
	assert.Contains(t, r.Notes[0].Message, "seen from its middle: its ClientHello is not in the capture")
}

// TestTLSTrafficSecretsOnly: a key log with TLS 1.3's traffic secrets
// but not its handshake secrets (what some tools log) decrypts the
// application data; the handshake's records are passed over.
func TestTLSTrafficSecretsOnly(t *testing.T) {
	flights, keys := tlsExchanges(t, &tls.Config{}, &tls.Config{}, [][]byte{apiVersionsReq(1), apiVersionsReq(2)}, [][]byte{apiVersionsResp(1), apiVersionsResp(2)})
	var traffic []string
	for _, l := range strings.Split(string(keys), "\n") {
		if strings.HasPrefix(l, "CLIENT_TRAFFIC_SECRET_0 ") || strings.HasPrefix(l, "SERVER_TRAFFIC_SECRET_0 ") {
			traffic = append(traffic, l)
		}
	}
	require.Len(t, traffic, 2)
	r := tlsCapture(t, flights, 1<<20, 0).read(Options{KeyLog: testKeyLog(t, []byte(strings.Join(traffic, "\n")))})
	dump(t, r)
	assert.Equal(t, []int32{1, 2}, pairedCorrs(r))
	assert.Empty(t, r.Notes)

	// The client's secret alone (a client that logs only its own): the
	// note said the log had no traffic secrets at all.
	r = tlsCapture(t, flights, 1<<20, 0).read(Options{KeyLog: testKeyLog(t, []byte(traffic[0]+"\n"))})
	require.Len(t, r.Notes, 1)
	assert.Contains(t, r.Notes[0].Message, "the key log has no SERVER_TRAFFIC_SECRET_0 (it has the client's, CLIENT_TRAFFIC_SECRET_0; both are needed) for its client random ")
}

// TestTLSKeyLogUpdate: a key log that grows while a live capture is read
// (its client logs as it goes) is read again when a session's secrets
// are not in it, once its first encrypted record comes: asked once for
// the session, not for each record.
func TestTLSKeyLogUpdate(t *testing.T) {
	flights, keys := tlsExchanges(t, &tls.Config{}, &tls.Config{}, [][]byte{apiVersionsReq(1), apiVersionsReq(2)}, [][]byte{apiVersionsResp(1), apiVersionsResp(2)})
	for _, c := range []struct {
		name  string
		start *KeyLog
		later []byte
		want  []int32
	}{
		{"written after the hellos", nil, keys, []int32{1, 2}},
		{"beside other sessions", testKeyLog(t, []byte("CLIENT_RANDOM "+strings.Repeat("ab", 32)+" "+strings.Repeat("cd", 48)+"\n")), keys, []int32{1, 2}},
		{"never written", nil, nil, nil},
	} {
		calls := 0
		update := func() *KeyLog {
			calls++
			if c.later == nil {
				return nil
			}
			return testKeyLog(t, c.later)
		}
		r := tlsCapture(t, flights, 1<<20, 0).read(Options{KeyLog: c.start, KeyLogUpdate: update})
		dump(t, r)
		assert.Equal(t, c.want, pairedCorrs(r), c.name)
		if c.want != nil {
			assert.Equal(t, 1, calls, c.name)
			assert.Equal(t, 1, r.TLSDecrypted, c.name)
		} else {
			assert.Equal(t, 1, r.TLS, c.name)
			require.NotEmpty(t, r.Notes, c.name)
			assert.Contains(t, r.Notes[0].Message, "the key log has no traffic secrets", c.name)
		}
	}
}

// TestTLSGap: after bytes lost in a decrypted direction, its records
// are found again by the sequence numbers the lost ones could have held:
// the exchanges before and after the loss are read, in every version and
// suite.
func TestTLSGap(t *testing.T) {
	reqs := [][]byte{apiVersionsReq(1), apiVersionsReq(2), bigRequest(3), apiVersionsReq(4), apiVersionsReq(5)}
	resps := [][]byte{apiVersionsResp(1), apiVersionsResp(2), apiVersionsResp(3), apiVersionsResp(4), apiVersionsResp(5)}
	for _, c := range []*tls.Config{{}, {MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384}},
		{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}}} {
		flights, keys := tlsExchanges(t, c, &tls.Config{}, reqs, resps)
		// Segments of 1000 bytes; the one to drop is inside request 3,
		// the big one, so records both before and after the gap are cut.
		at, n := 0, 0
		for _, f := range flights {
			if f.client && len(f.data) > 2000 { // request 3, in records of 2 to 16 KB
				at = n + 5
				break
			}
			n += (len(f.data) + 999) / 1000
		}
		require.NotZero(t, at)
		for _, drop := range []int{at, at + 1} {
			r := tlsCapture(t, flights, 1000, drop).read(Options{KeyLog: testKeyLog(t, keys)})
			dump(t, r)
			require.Len(t, r.Conns, 1)
			assert.Equal(t, []int32{1, 2, 4, 5}, pairedCorrs(r), "%s, segment %d dropped", r.Conns[0].TLS, drop)
			var said []string
			for _, x := range r.Notes {
				said = append(said, x.Message)
			}
			assert.Contains(t, strings.Join(said, "\n"), "1000 bytes lost at stream offset")
			assert.Contains(t, strings.Join(said, "\n"), "TLS: records of the client stream found again at stream offset")
		}
	}
}

// TestTLSSecretsInCapture: a pcapng file that carries its TLS key log (a
// decryption secrets block, as editcap --inject-secrets writes) is
// decrypted with no key log given.
func TestTLSSecretsInCapture(t *testing.T) {
	flights, keys := tlsExchanges(t, &tls.Config{}, &tls.Config{}, [][]byte{apiVersionsReq(1)}, [][]byte{apiVersionsResp(1)})
	ng := tlsCapture(t, flights, 1<<20, 0).pcapng()
	// After the section header, before the interface description.
	shb := binary.LittleEndian.Uint32(ng[4:])
	pad := (4 - len(keys)%4) % 4
	dsb := binary.LittleEndian.AppendUint32(nil, 10)
	dsb = binary.LittleEndian.AppendUint32(dsb, uint32(20+len(keys)+pad))
	dsb = binary.LittleEndian.AppendUint32(dsb, 0x544c534b)
	dsb = binary.LittleEndian.AppendUint32(dsb, uint32(len(keys)))
	dsb = append(append(dsb, keys...), make([]byte, pad)...)
	dsb = binary.LittleEndian.AppendUint32(dsb, uint32(20+len(keys)+pad))
	file := append(append(append([]byte{}, ng[:shb]...), dsb...), ng[shb:]...)
	r, err := Read(bytes.NewReader(file), Options{})
	require.NoError(t, err)
	dump(t, r)
	require.Len(t, r.Conns, 1)
	assert.Equal(t, "TLS 1.3 TLS_AES_128_GCM_SHA256", r.Conns[0].TLS)
	assert.Equal(t, []int32{1}, pairedCorrs(r))
	// Options.KeyLog given beside them is left as it was.
	other := testKeyLog(t, []byte("CLIENT_RANDOM "+strings.Repeat("ab", 32)+" "+strings.Repeat("cd", 48)+"\n"))
	r, err = Read(bytes.NewReader(file), Options{KeyLog: other})
	require.NoError(t, err)
	assert.Equal(t, []int32{1}, pairedCorrs(r))
	assert.Equal(t, 1, other.Sessions())
}

func TestParseKeyLog(t *testing.T) {
	cr, secret := strings.Repeat("01", 32), strings.Repeat("02", 32)
	k, err := ParseKeyLog(strings.NewReader("# a comment\n\nEXPORTER_SECRET " + cr + " " + secret + "\nCLIENT_TRAFFIC_SECRET_0 " + cr + " " + secret + "\nSERVER_TRAFFIC_SECRET_0 " + cr + " " + secret[:10] + "\r\nCLIENT_RANDOM " + cr[:20]))
	require.NoError(t, err)
	assert.Equal(t, 1, k.Sessions(), "a line cut off by a process writing it is passed over")
	_, err = ParseKeyLog(strings.NewReader("-----BEGIN CERTIFICATE-----\nMIIB\n"))
	require.ErrorIs(t, err, ErrKeyLog)
	assert.Contains(t, err.Error(), `line 1: "-----BEGIN CERTIFICATE-----"`)
	_, err = ParseKeyLog(strings.NewReader(""))
	require.ErrorIs(t, err, ErrKeyLog)
	// Said after the flag's name and file (--tls-keylog F: ...): no
	// package prefix ("capture: no TLS secrets").
	require.Equal(t, "no TLS secrets in the key log", err.Error())
}

// FuzzTLS reads TLS captures with their key logs, both mutated: hellos,
// record headers, ciphertext and secrets that lie. Nothing panics, what
// is framed is whole frames (checkResult), and a TLS connection left
// encrypted is said. (Its inputs are costly to minimise: the Makefile
// gives minimising a budget.)
func FuzzTLS(f *testing.F) {
	for _, c := range []*tls.Config{{}, {MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}},
		{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256}},
		{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA}}} {
		flights, keys := tlsExchanges(f, c, &tls.Config{}, [][]byte{apiVersionsReq(1)}, [][]byte{apiVersionsResp(1)})
		f.Add(tlsCapture(f, flights, 1<<20, 0).pcap(), keys)
		f.Add(tlsCapture(f, flights, 300, 0).pcap(), keys)
	}
	f.Fuzz(func(t *testing.T, capture, keys []byte) {
		k, err := ParseKeyLog(bytes.NewReader(keys))
		if err != nil {
			k = nil
		}
		for _, keep := range []bool{false, true} {
			r, err := Read(bytes.NewReader(capture), Options{KeyLog: k, KeepDamaged: keep})
			if err != nil {
				return
			}
			checkResult(t, r)
			if r.TLS > 0 && len(r.Notes) == 0 {
				t.Fatal("a TLS connection left encrypted without a note")
			}
		}
	})
}

// BenchmarkTLS reads realistic traffic (package traffic's mix: Metadata,
// Produce and Fetch frames of up to 10 KB, 600 exchanges) over one TLS
// 1.3 connection, in 1448-byte segments, decrypted with its key log; and
// the same frames in the clear, to compare. MB/s counts the frames' bytes.
func BenchmarkTLS(b *testing.B) {
	var reqs, resps [][]byte
	var size int64
	for i := 0; i < 600; i++ {
		p := traffic.Mix()[i%len(traffic.Mix())]
		req, resp := bytes.Clone(p.Request.Bytes), bytes.Clone(p.Response.Bytes)
		binary.BigEndian.PutUint32(req[8:], uint32(i))
		binary.BigEndian.PutUint32(resp[4:], uint32(i))
		reqs, resps = append(reqs, req), append(resps, resp)
		size += int64(len(req) + len(resp))
	}
	flights, keys := tlsExchanges(b, &tls.Config{}, &tls.Config{}, reqs, resps)
	kl := testKeyLog(b, keys)
	cbcFlights, cbcKeys := tlsExchanges(b, &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA}}, &tls.Config{}, reqs, resps)
	var clear []flight
	for i := range reqs {
		clear = append(clear, flight{true, reqs[i]}, flight{false, resps[i]})
	}
	for _, c := range []struct {
		name    string
		capture []byte
		keys    *KeyLog
	}{{"tls1.3", tlsCapture(b, flights, 1448, 0).pcap(), kl}, {"tls1.2-aes128-cbc-sha", tlsCapture(b, cbcFlights, 1448, 0).pcap(), testKeyLog(b, cbcKeys)},
		{"clear", tlsCapture(b, clear, 1448, 0).pcap(), nil}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(size)
			b.ReportAllocs()
			for b.Loop() {
				n := 0
				_, err := ReadFunc(bytes.NewReader(c.capture), Options{KeyLog: c.keys}, func(*Exchange) { n++ })
				if err != nil || n != len(reqs) {
					b.Fatalf("%v %d", err, n)
				}
			}
		})
	}
}

// TestTLSGapCBC: bytes lost in a TLS 1.2 CBC session end the direction
// they were lost from, said: a CBC record's padding leaves its plaintext's
// length unknown, so the records after a loss are not looked for (as
// TestTLSGap's AEAD ones are). What came before is decoded.
func TestTLSGapCBC(t *testing.T) {
	reqs := [][]byte{apiVersionsReq(1), apiVersionsReq(2), bigRequest(3), apiVersionsReq(4), apiVersionsReq(5)}
	resps := [][]byte{apiVersionsResp(1), apiVersionsResp(2), apiVersionsResp(3), apiVersionsResp(4), apiVersionsResp(5)}
	c := &tls.Config{MaxVersion: tls.VersionTLS12, CipherSuites: []uint16{tls.TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA}}
	flights, keys := tlsExchanges(t, c, &tls.Config{}, reqs, resps)
	at, n := 0, 0
	for _, f := range flights {
		if f.client && len(f.data) > 2000 {
			at = n + 5
			break
		}
		n += (len(f.data) + 999) / 1000
	}
	require.NotZero(t, at)
	r := tlsCapture(t, flights, 1000, at).read(Options{KeyLog: testKeyLog(t, keys)})
	dump(t, r)
	require.Len(t, r.Conns, 1)
	assert.Equal(t, "TLS 1.2 TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", r.Conns[0].TLS)
	assert.Equal(t, []int32{1, 2}, pairedCorrs(r))
	var said []string
	for _, x := range r.Notes {
		said = append(said, x.Message)
	}
	assert.Contains(t, strings.Join(said, "\n"), "1000 bytes lost at stream offset")
}

// TestTLSCBCRecord: a TLS 1.2 CBC record sealed here from RFC 5246
// (6.2.3.1-2: HMAC over the sequence number, header and content, then
// padding, then AES-CBC under the record's own IV), for the SHA-384
// suites Go does not speak (Java's preferred CBC ones), opens to its
// content only as the record it is: another sequence number, a byte
// changed or bad padding do not open.
func TestTLSCBCRecord(t *testing.T) {
	s := suiteByID(0xc028) // TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384
	require.NotNil(t, s)
	key, macKey, iv := bytes.Repeat([]byte{1}, 32), bytes.Repeat([]byte{2}, 48), bytes.Repeat([]byte{3}, 16)
	content := []byte("a Kafka request, say")
	seal := func(seq uint64, padByte byte) []byte {
		m := hmac.New(sha512.New384, macKey)
		var hdr [13]byte
		binary.BigEndian.PutUint64(hdr[:], seq)
		hdr[8], hdr[9], hdr[10] = 23, 3, 3
		binary.BigEndian.PutUint16(hdr[11:], uint16(len(content)))
		m.Write(hdr[:])
		m.Write(content)
		pt := m.Sum(append([]byte(nil), content...))
		pad := 16 - (len(pt)+1)%16
		for i := 0; i <= pad; i++ {
			pt = append(pt, byte(pad))
		}
		pt[len(pt)-2] = padByte
		b, _ := aes.NewCipher(key)
		ct := make([]byte, len(pt))
		cipher.NewCBCEncrypter(b, iv).CryptBlocks(ct, pt)
		rec := []byte{23, 3, 3, 0, 0}
		binary.BigEndian.PutUint16(rec[3:], uint16(16+len(ct)))
		return append(append(rec, iv...), ct...)
	}
	b, _ := aes.NewCipher(key)
	x := &tlsHalf{s: &tlsConn{version: tls12, suite: s}, block: b, mac: hmac.New(s.macHash(), macKey)}
	good := seal(7, byte(16-(len(content)+48+1)%16))
	typ, pt, ok := x.openAt(good, 7)
	require.True(t, ok)
	assert.Equal(t, byte(23), typ)
	assert.Equal(t, content, pt)
	_, _, ok = x.openAt(good, 8)
	assert.False(t, ok, "another sequence number")
	bad := bytes.Clone(good)
	bad[30] ^= 1
	_, _, ok = x.openAt(bad, 7)
	assert.False(t, ok, "a byte changed")
	_, _, ok = x.openAt(seal(7, 0xee), 7)
	assert.False(t, ok, "padding bytes that are not its length")
	_, _, ok = x.openAt(good[:len(good)-1], 7)
	assert.False(t, ok, "not whole blocks")
}
