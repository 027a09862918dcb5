package proxy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"math/big"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// selfSigned is a certificate for 127.0.0.1 that no client trusts.
func selfSigned(t *testing.T) tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	require.NoError(t, err)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestFailedClientHandshakeContactsNoBroker: with TLS to clients, a client
// whose handshake fails (plain Kafka bytes, a client that does not trust
// the certificate, one that hangs up) costs the broker nothing: the proxy
// dials only once a handshake is done and the client has spoken, so the
// broker sees the listener's spare connection alone and the dials counted
// are the spare's. The log line says the broker was not contacted rather
// than name the client's connection as one to it.
func TestFailedClientHandshakeContactsNoBroker(t *testing.T) {
	var accepted atomic.Int64
	broker := acceptEach(t, func(c net.Conn) {
		accepted.Add(1)
		t.Cleanup(func() { c.Close() })
	})
	lg := &logs{}
	p := startProxy(t, Config{Upstream: broker, Log: lg.log,
		ClientTLS: &tls.Config{Certificates: []tls.Certificate{selfSigned(t)}, MinVersion: tls.VersionTLS12}})
	require.Eventually(t, func() bool { return accepted.Load() == 1 }, 5*time.Second, 5*time.Millisecond, "the spare")

	plain, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	plain.Write([]byte{0, 0, 0, 12, 0, 18, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0})
	readEOF(t, plain)
	plain.Close()
	for range 3 {
		c, err := tls.Dial("tcp", p.Addr().String(), &tls.Config{ServerName: "127.0.0.1"}) // the system's roots: untrusted
		require.Error(t, err)
		if c != nil {
			c.Close()
		}
	}
	gone, err := net.Dial("tcp", p.Addr().String())
	require.NoError(t, err)
	gone.Close()
	require.Eventually(t, func() bool { return p.Stats().Open == 0 }, 5*time.Second, 5*time.Millisecond)
	require.Eventually(t, func() bool { return lg.has("TLS handshake with the client failed: EOF") }, 5*time.Second, 5*time.Millisecond, lg.String())
	time.Sleep(100 * time.Millisecond)
	require.Equal(t, int64(1), accepted.Load(), "the broker saw the spare alone")
	require.Equal(t, int64(1), p.Stats().Dials, "the spare's dial alone")
	require.Equal(t, int64(5), p.Stats().Connections)
	require.True(t, lg.has("; closed, the broker ("+broker+") not contacted"), lg.String())
	require.False(t, lg.has("->"+broker+": TLS handshake"), lg.String())
}
