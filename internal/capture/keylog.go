package capture

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"

	"github.com/kwire/kwire/internal/textfmt"
)

// KeyLog holds TLS session secrets in the NSS key log format, the lines
// that SSLKEYLOGFILE has browsers, curl and OpenSSL write, and Go's
// tls.Config.KeyLogWriter and Python's SSLContext.keylog_filename:
// "CLIENT_RANDOM <random> <master secret>" for TLS 1.2, and for TLS 1.3
// the four traffic secrets (CLIENT_HANDSHAKE_TRAFFIC_SECRET,
// SERVER_HANDSHAKE_TRAFFIC_SECRET, CLIENT_TRAFFIC_SECRET_0,
// SERVER_TRAFFIC_SECRET_0), each keyed by the session's client random. A
// capture read with it (Options.KeyLog) has its TLS connections
// decrypted, as Wireshark does with its tls.keylog_file.
type KeyLog struct {
	m map[[32]byte]*tlsSecrets
}

// tlsSecrets are one session's secrets: TLS 1.2's master secret, or TLS
// 1.3's handshake and first application traffic secrets.
type tlsSecrets struct {
	master             []byte
	clientHS, serverHS []byte
	client0, server0   []byte
}

// maxKeyLogSessions bounds the sessions a capture's own secrets (pcapng
// decryption secrets blocks) may add, so that a file of nothing else
// cannot grow memory past what its bytes hold many times over.
const maxKeyLogSessions = 1 << 16

// ErrKeyLog is returned (wrapped) by ParseKeyLog for a text that holds no
// TLS secret.
var ErrKeyLog = errors.New("no TLS secrets in the key log")

// ParseKeyLog reads a key log. Lines it does not use (comments, other
// labels such as EXPORTER_SECRET, a line cut off by a process that was
// writing it) are passed over, as Wireshark does; a text with no secret at
// all is an error that says what its first line looked like.
func ParseKeyLog(r io.Reader) (*KeyLog, error) {
	k := &KeyLog{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	line, first := 0, ""
	for sc.Scan() {
		line++
		t := bytes.TrimSpace(sc.Bytes())
		if len(t) == 0 || t[0] == '#' {
			continue
		}
		if !k.add(t, 0) && first == "" {
			first = "line " + strconv.Itoa(line) + ": " + quoteStart(t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(k.m) == 0 {
		if first == "" {
			return nil, ErrKeyLog
		}
		return nil, textfmt.Wrap(ErrKeyLog, " (%s; a line is LABEL CLIENT_RANDOM SECRET, in hex)", first)
	}
	return k, nil
}

// quoteStart is the start of line t, quoted, for an error.
func quoteStart(t []byte) string {
	if len(t) > 40 {
		return strconv.Quote(string(t[:40])) + "..."
	}
	return strconv.Quote(string(t))
}

// Sessions is how many TLS sessions k holds secrets for.
func (k *KeyLog) Sessions() int {
	if k == nil {
		return 0
	}
	return len(k.m)
}

// add takes one key log line; false when it holds no secret kwire uses.
// max > 0 bounds the sessions k may hold.
func (k *KeyLog) add(t []byte, max int) bool {
	f := bytes.Fields(t)
	if len(f) != 3 || len(f[1]) != 2*32 || len(f[2])%2 != 0 || len(f[2]) > 2*64 {
		return false
	}
	var cr [32]byte
	if !unhex(cr[:], f[1]) {
		return false
	}
	secret := make([]byte, len(f[2])/2)
	if !unhex(secret, f[2]) {
		return false
	}
	s := k.m[cr]
	if s == nil {
		if max > 0 && len(k.m) >= max {
			return false
		}
		s = &tlsSecrets{}
	}
	slot := s.slot(string(f[0]))
	if slot == nil || slot == &s.master && len(secret) != 48 {
		return false
	}
	*slot = secret
	if k.m == nil {
		k.m = make(map[[32]byte]*tlsSecrets)
	}
	k.m[cr] = s
	return true
}

// slot is where a key log line labelled label keeps its secret; nil for
// a label of no use here (EXPORTER_SECRET, early data's).
func (s *tlsSecrets) slot(label string) *[]byte {
	switch label {
	case "CLIENT_RANDOM": // TLS 1.2's master secret
		return &s.master
	case "CLIENT_HANDSHAKE_TRAFFIC_SECRET":
		return &s.clientHS
	case "SERVER_HANDSHAKE_TRAFFIC_SECRET":
		return &s.serverHS
	case "CLIENT_TRAFFIC_SECRET_0":
		return &s.client0
	case "SERVER_TRAFFIC_SECRET_0":
		return &s.server0
	}
	return nil
}

// addAll takes the lines of a pcapng decryption secrets block; false when
// the sessions' bound cut it short.
func (k *KeyLog) addAll(b []byte) bool {
	whole := true
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			i = len(b)
		}
		t := bytes.TrimSpace(b[:i])
		if len(t) > 0 && t[0] != '#' && !k.add(t, maxKeyLogSessions) && len(k.m) >= maxKeyLogSessions {
			whole = false
		}
		b = b[min(i+1, len(b)):]
	}
	return whole
}

// merge adds o's sessions to k, each a copy (k's later lines change its
// own, not o's); max > 0 bounds the sessions k may hold, as add's does.
func (k *KeyLog) merge(o *KeyLog, max int) {
	if o == nil {
		return
	}
	if k.m == nil {
		k.m = make(map[[32]byte]*tlsSecrets, len(o.m))
	}
	for cr, s := range o.m {
		if max > 0 && len(k.m) >= max && k.m[cr] == nil {
			continue
		}
		c := *s
		k.m[cr] = &c
	}
}

// lookup is the secrets of the session with client random cr.
func (k *KeyLog) lookup(cr [32]byte) *tlsSecrets {
	if k == nil {
		return nil
	}
	return k.m[cr]
}

// unhex decodes src, hex digits of either case, into dst, which is half
// its length: what encoding/hex.Decode does, whose InvalidByteError
// formats with fmt (see internal/textfmt) and would link it into
// capture.wasm.
func unhex(dst, src []byte) bool {
	if len(src) != 2*len(dst) {
		return false
	}
	for i := range dst {
		hi, ok1 := unhexDigit(src[2*i])
		lo, ok2 := unhexDigit(src[2*i+1])
		if !ok1 || !ok2 {
			return false
		}
		dst[i] = hi<<4 | lo
	}
	return true
}

func unhexDigit(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
