package capture

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"hash"
	"strconv"
	"time"
)

// TLS connections decrypted with a key log (Options.KeyLog, or the
// secrets a pcapng file carries): each direction's stream is cut into
// records, the hellos give the session's randoms, version and suite, and
// the records' application data, decrypted, is what the Kafka framer
// reads, at offsets of its own (the plaintext's). What cannot be
// decrypted is said: the whole connection when nothing of it was yet
// (no secrets, a suite kwire does not decrypt), else the rest of one
// direction (bytes lost, a record that does not open).

const (
	tls12 = 0x0303
	tls13 = 0x0304
	// maxHello bounds a hello kept while its records come (a ClientHello
	// with a post-quantum key share is about 1.5 KB).
	maxHello = 1 << 16
)

// hrrRandom is the random of a HelloRetryRequest (RFC 8446, 4.1.3): a
// ServerHello that asks for another ClientHello, the real one to come.
var hrrRandom = [32]byte{0xcf, 0x21, 0xad, 0x74, 0xe5, 0x9a, 0x61, 0x11, 0xbe, 0x1d, 0x8c, 0x02, 0x1e, 0x65, 0xb8, 0x91,
	0xc2, 0xa2, 0x11, 0x16, 0x7a, 0xbb, 0x8c, 0x5e, 0x07, 0x9e, 0x09, 0xe2, 0xc8, 0xa8, 0x33, 0x9c}

// tlsConn is a TLS session being decrypted: what its hellos said, its
// secrets, and (TLS 1.2) its write keys by direction.
type tlsConn struct {
	cr, sr    [32]byte
	haveCR    bool
	clientIdx int // the half that sent the ClientHello
	version   uint16
	suite     *tlsSuite
	sec       *tlsSecrets
	keys12    [2]writeKeys12 // TLS 1.2's keys, by half index
	etm       bool           // the server took encrypt-then-MAC (RFC 7366)
	decrypted bool           // some application data was
	// TLS 1.2 resumption: the session id the client offered and the one
	// the server answered (the same: a resumption), the ticket the client
	// offered (its SHA-256), and the one the server issued (its key in
	// the engine's resumable sessions).
	sid, serverSID []byte
	ticket         [32]byte
	haveTicket     bool
	newTicket      string
	wait           bool // its secrets were not in the key log at its ServerHello: looked for again at its first record
}

// tlsHalf decrypts one direction of a TLS connection.
type tlsHalf struct {
	s        *tlsConn
	idx      int    // the half's index in its connection
	rec      []byte // the record being gathered
	hs       []byte // handshake bytes before the hello is whole
	hello    bool   // this direction's hello is read
	hsSkip   int    // bytes of a handshake message passed over still to come
	enc      bool   // its records are encrypted
	aead     cipher.AEAD
	iv       []byte
	block    cipher.Block // TLS 1.2 CBC suites: the cipher
	cbc      cipher.BlockMode
	mac      hash.Hash // and the HMAC, keyed
	sum      []byte    // the MAC reckoned
	seq      uint64
	phase    int    // TLS 1.3: -1 no keys yet, 0 handshake, 1 first traffic secret, 2 and on after key updates
	secret   []byte // TLS 1.3: phase's secret
	dead     bool   // nothing more of this direction is decrypted
	hunt     int64  // bytes lost before the records looked for (tlsHunt), 0 when in step
	lostFrom int64  // where the record the first loss cut into began
	scan     int    // where in rec the look goes on
	work     int    // bytes of records tried in the look
	off      int64  // ciphertext offset of the next byte
	plain    []byte
	nonce    [12]byte
	aad      [13]byte
}

// tlsStart is called with the first bytes of a direction that begin with
// a TLS record: it reports whether they are decrypted (then taken), the
// connection's ClientHello being there or its session begun.
func (h *half) tlsStart(b []byte, t time.Time, pkt int) bool {
	c := h.c
	if c.tls == nil {
		if !h.e.decrypts() || len(b) < 6 || b[0] != 22 || b[5] != 1 {
			return false
		}
		c.tls = &tlsConn{clientIdx: -1}
	}
	h.tl = &tlsHalf{s: c.tls, idx: h.idx, phase: -1}
	h.tlsData(b, t, pkt)
	return true
}

// decrypts reports whether TLS sessions may be decrypted: a key log was
// given, or the capture carries one, or one may still be written.
func (e *engine) decrypts() bool {
	return e.keys != nil || e.opts.KeyLogUpdate != nil
}

// tlsData takes stream bytes of a TLS direction: each whole record is
// opened, and its application data framed.
func (h *half) tlsData(b []byte, t time.Time, pkt int) {
	x := h.tl
	for len(b) > 0 && !x.dead && !h.released {
		if x.hunt > 0 {
			b = h.tlsHunt(b, t, pkt)
			continue
		}
		if len(x.rec) == 0 {
			if n, ok := tlsRecord(b); ok && len(b) >= n {
				// A whole record in b: read where it is, not copied.
				x.off += int64(n)
				h.tlsRecord(b[:n], t, pkt)
				b = b[n:]
				continue
			}
		}
		need := 5
		if len(x.rec) >= 5 {
			n, ok := tlsRecord(x.rec)
			if !ok {
				h.tlsFail("bytes that are no TLS record header (% x) at stream offset %d", x.rec[:5], x.off-int64(len(x.rec)))
				break
			}
			need = n
		}
		k := min(need-len(x.rec), len(b))
		x.rec = append(x.rec, b[:k]...)
		b = b[k:]
		x.off += int64(k)
		if len(x.rec) == need && need > 5 {
			h.tlsRecord(x.rec, t, pkt)
			x.rec = x.rec[:0]
		}
	}
	if len(b) > 0 && !h.released {
		h.skip(int64(len(b)))
	}
}

// tlsRecord handles the whole record r, the last bytes the direction
// took.
func (h *half) tlsRecord(r []byte, t time.Time, pkt int) {
	x, s := h.tl, h.tl.s
	if !x.enc {
		switch {
		case r[0] == 22:
			h.tlsHandshake(r[5:])
			return
		case r[0] == 20:
			// ChangeCipherSpec: TLS 1.2 encrypts from here on; TLS 1.3
			// sends it for middleboxes (after a HelloRetryRequest too,
			// before its ServerHello), and it changes nothing.
			if s.version == tls12 && h.tlsKeys(true) {
				i := h.idx
				k := &s.keys12[i]
				x.enc, x.aead, x.iv, x.block, x.cbc, x.seq = true, k.aead, k.iv, k.block, nil, 0
				if k.block != nil {
					x.mac = hmac.New(s.suite.macHash(), k.mac)
				}
			}
			return
		case r[0] == 21:
			h.tlsAlert(r[5:])
			return
		case r[0] == 23 && s.version == tls13:
			if !h.tlsKeys(true) {
				return
			}
			x.enc = true
		default:
			h.tlsFail("application data before the handshake made its keys")
			return
		}
	}
	typ, pt, ok := x.open(r)
	if !ok && x.handshakeUnread() {
		return
	}
	if !ok {
		h.tlsFail("a record of %d bytes at stream offset %d that its secrets do not open", len(r), x.off-int64(len(r)))
		return
	}
	h.tlsPlain(typ, pt, t, pkt)
}

// tlsPlain takes a record's decrypted content of type typ.
func (h *half) tlsPlain(typ byte, pt []byte, t time.Time, pkt int) {
	switch typ {
	case 23:
		h.tl.s.decrypted = true
		if len(pt) > 0 {
			h.frameData(pt, t, pkt)
		}
	case 21:
		h.tlsAlert(pt)
	}
	// Handshake messages after the keys (Finished, session tickets, key
	// updates, which open fails over to) frame nothing.
}

// tlsHandshake reads handshake bytes sent in the clear: each direction's
// hello, and, from a TLS 1.2 server, the session ticket it issues (for
// the sessions that resume this one). Other messages (certificates) are
// passed over unkept.
func (h *half) tlsHandshake(b []byte) {
	x, s := h.tl, h.tl.s
	for len(b) > 0 && !h.released {
		if x.hsSkip > 0 {
			k := min(x.hsSkip, len(b))
			x.hsSkip -= k
			b = b[k:]
			continue
		}
		if x.hello && (s.version != tls12 || h.idx == s.clientIdx) {
			x.hs = nil
			return // nothing more is wanted
		}
		x.hs = append(x.hs, b...)
		b = nil
		for len(x.hs) >= 4 && !h.released {
			typ, n := x.hs[0], int(x.hs[1])<<16|int(x.hs[2])<<8|int(x.hs[3])
			if x.hello && typ != 4 {
				if len(x.hs) < 4+n {
					x.hsSkip, x.hs = 4+n-len(x.hs), x.hs[:0]
					break
				}
				x.hs = x.hs[4+n:]
				continue
			}
			if n > maxHello {
				h.tlsFail("a handshake message of %d bytes", n)
				return
			}
			if len(x.hs) < 4+n {
				break
			}
			m := x.hs[4 : 4+n]
			switch typ {
			case 0: // HelloRequest
			case 1:
				h.clientHello(m)
			case 2:
				h.serverHello(m)
			case 4:
				h.sessionTicket(m)
			default:
				h.tlsFail("a handshake that begins with message type %d, not a hello", typ)
				return
			}
			x.hs = x.hs[4+n:]
		}
	}
}

// clientHello reads the ClientHello m (without its header): the client's
// random, and what it offers to resume (a session id, a TLS 1.2 ticket).
func (h *half) clientHello(m []byte) {
	x, s := h.tl, h.tl.s
	if len(m) < 35 || len(m) < 35+int(m[34]) {
		h.tlsFail("a ClientHello of %d bytes", len(m))
		return
	}
	x.hello = true
	if s.haveCR {
		return // the second, after a HelloRetryRequest, is the same client's
	}
	copy(s.cr[:], m[2:34])
	s.haveCR, s.clientIdx = true, h.idx
	p := 35 + int(m[34])
	s.sid = bytes.Clone(m[35:p])
	if len(m) < p+2 {
		return
	}
	p += 2 + int(binary.BigEndian.Uint16(m[p:])) // cipher suites
	if len(m) < p+1 {
		return
	}
	p += 1 + int(m[p]) // compression methods
	for ext := tlsExtensions(m, p); len(ext) >= 4; {
		typ, l := binary.BigEndian.Uint16(ext), int(binary.BigEndian.Uint16(ext[2:]))
		if len(ext) < 4+l {
			break
		}
		if typ == 35 && l > 0 { // session_ticket: one to resume
			s.ticket = sha256.Sum256(ext[4 : 4+l])
			s.haveTicket = true
		}
		ext = ext[4+l:]
	}
}

// tlsExtensions is the extensions of hello m whose length is at p.
func tlsExtensions(m []byte, p int) []byte {
	if len(m) < p+2 {
		return nil
	}
	return m[p+2 : min(len(m), p+2+int(binary.BigEndian.Uint16(m[p:])))]
}

// sessionTicket reads a TLS 1.2 NewSessionTicket m: a session that offers
// it later resumes this one, with its master secret.
func (h *half) sessionTicket(m []byte) {
	s := h.tl.s
	if len(m) < 6 {
		return
	}
	n := int(binary.BigEndian.Uint16(m[4:])) // lifetime (4 bytes), then the ticket
	if len(m) < 6+n {
		return
	}
	sum := sha256.Sum256(m[6 : 6+n])
	s.newTicket = "t:" + string(sum[:])
	if s.sec != nil {
		h.e.remember(s.newTicket, s.sec.master)
	}
}

// serverHello reads the ServerHello m (without its header): the server's
// random, the version and the suite; then the session is ready.
func (h *half) serverHello(m []byte) {
	x, s := h.tl, h.tl.s
	if len(m) < 38 {
		h.tlsFail("a ServerHello of %d bytes", len(m))
		return
	}
	var sr [32]byte
	copy(sr[:], m[2:34])
	if sr == hrrRandom {
		return // a HelloRetryRequest: the ServerHello comes after the client's second hello
	}
	x.hello = true
	version := binary.BigEndian.Uint16(m)
	p := 35 + int(m[34])
	if len(m) < p+3 {
		h.tlsFail("a ServerHello of %d bytes", len(m))
		return
	}
	s.serverSID = bytes.Clone(m[35 : 35+int(m[34])])
	id := binary.BigEndian.Uint16(m[p:])
	p += 3
	if len(m) >= p+2 {
		ext := tlsExtensions(m, p)
		for len(ext) >= 4 {
			typ, l := binary.BigEndian.Uint16(ext), int(binary.BigEndian.Uint16(ext[2:]))
			if len(ext) < 4+l {
				break
			}
			switch {
			case typ == 43 && l == 2: // supported_versions: the version chosen
				version = binary.BigEndian.Uint16(ext[4:])
			case typ == 22: // encrypt_then_mac
				s.etm = true
			}
			ext = ext[4+l:]
		}
	}
	s.sr, s.version = sr, version
	s.suite = suiteByID(id)
	h.tlsReady(id)
}

// tlsReady finds the session's secrets once its hellos are read, or
// drops the connection, saying why it is not decrypted.
func (h *half) tlsReady(id uint16) {
	s := h.tl.s
	name := tlsVersionName(s.version)
	switch {
	case !s.haveCR:
		h.tlsDrop("TLS: its ClientHello is not in the capture, so no secret is known for it: encrypted, not decoded")
		return
	case s.version != tls12 && s.version != tls13:
		h.tlsDrop("TLS: %s, which kwire does not decrypt (TLS 1.2 and 1.3 it does): encrypted, not decoded", name)
		return
	case s.suite == nil:
		h.tlsDrop("TLS: %s with cipher suite %s, which kwire does not decrypt (it decrypts the AES-GCM, ChaCha20-Poly1305 and TLS 1.2 AES-CBC suites): encrypted, not decoded", name, suiteName(id))
		return
	case s.suite.mac > 0 && s.etm:
		h.tlsDrop("TLS: %s with cipher suite %s and encrypt-then-MAC (RFC 7366), which kwire does not decrypt (it decrypts CBC suites that MAC, then encrypt, as Java and Go do): encrypted, not decoded", name, suiteName(id))
		return
	}
	h.tlsKeys(false)
}

// tlsKeys finds the session's secrets and makes its keys. With a key log
// that may grow (Options.KeyLogUpdate: a live capture whose client is
// still writing it), secrets not there at the ServerHello are looked for
// again when the first record needs them (late); else, or then, the
// connection is dropped, said. It reports whether the keys are made.
func (h *half) tlsKeys(late bool) bool {
	s, c := h.tl.s, h.c
	if s.sec != nil {
		return true
	}
	sec := h.e.sessionSecrets(s.cr, s.version, late)
	if sec == nil && s.version == tls12 {
		sec = h.e.resumedSecrets(s)
	}
	if sec == nil {
		if !late && h.e.opts.KeyLogUpdate != nil {
			s.wait = true
			return false
		}
		h.tlsDrop("TLS: %s; the key log has no %s for its client random %x: encrypted, not decoded", tlsVersionName(s.version), h.e.missingSecrets(s.cr, s.version), s.cr[:])
		return false
	}
	s.sec, s.wait = sec, false
	if s.version == tls12 {
		ci, si := s.clientIdx, 1-s.clientIdx
		s.keys12[ci], s.keys12[si] = s.suite.keys12(sec.master, s.cr, s.sr)
		// The sessions that resume this one have no line of their own in
		// a key log (Go's client writes none): they are known by its id
		// and its ticket.
		if len(s.serverSID) > 0 {
			h.e.remember("id:"+string(s.serverSID), sec.master)
		}
		if s.newTicket != "" {
			h.e.remember(s.newTicket, sec.master)
		}
	}
	c.TLS = tlsVersionName(s.version) + " " + s.suite.name
	h.e.res.TLSDecrypted++
	return true
}

// maxResumable bounds the TLS 1.2 sessions kept for others to resume.
const maxResumable = 1 << 14

// remember keeps a TLS 1.2 session's master secret under key (its id, or
// its ticket's hash), for the sessions that resume it.
func (e *engine) remember(key string, master []byte) {
	if e.resumable == nil {
		e.resumable = make(map[string][]byte)
	}
	if len(e.resumable) < maxResumable || e.resumable[key] != nil {
		e.resumable[key] = master
	}
}

// resumedSecrets is the master secret of the session s resumes, when it
// resumes one decrypted before: the server echoed the session id the
// client offered (RFC 5246, 7.4.1.3; with a ticket, RFC 5077, 3.4).
func (e *engine) resumedSecrets(s *tlsConn) *tlsSecrets {
	if len(s.sid) == 0 || !bytes.Equal(s.sid, s.serverSID) {
		return nil
	}
	m := e.resumable["id:"+string(s.sid)]
	if m == nil && s.haveTicket {
		m = e.resumable["t:"+string(s.ticket[:])]
	}
	if m == nil {
		return nil
	}
	return &tlsSecrets{master: m}
}

// sessionSecrets is what the key log holds for the session with client
// random cr at version v, nil when not all it needs; with update, the key
// log is read again (Options.KeyLogUpdate) before it says so.
func (e *engine) sessionSecrets(cr [32]byte, v uint16, update bool) *tlsSecrets {
	whole := func(sec *tlsSecrets) bool {
		return sec != nil && (v == tls12 && sec.master != nil || v == tls13 && sec.client0 != nil && sec.server0 != nil)
	}
	if sec := e.keys.lookup(cr); whole(sec) {
		return sec
	}
	if !update || e.opts.KeyLogUpdate == nil {
		return nil
	}
	k := e.opts.KeyLogUpdate()
	if k == nil {
		return nil
	}
	if e.keys == nil || e.keys == e.opts.KeyLog {
		e.keys = k
	} else {
		e.keys.merge(k, maxKeyLogSessions) // beside the capture's own secrets
	}
	if sec := e.keys.lookup(cr); whole(sec) {
		return sec
	}
	return nil
}

// missingSecrets names what the key log lacks of the session with client
// random cr at version v: a TLS 1.3 session with one of its two traffic
// secrets logged lacks the other (a client that logs only its own).
func (e *engine) missingSecrets(cr [32]byte, v uint16) string {
	if sec := e.keys.lookup(cr); v == tls13 && sec != nil {
		switch {
		case sec.client0 != nil && sec.server0 == nil:
			return "SERVER_TRAFFIC_SECRET_0 (it has the client's, CLIENT_TRAFFIC_SECRET_0; both are needed)"
		case sec.client0 == nil && sec.server0 != nil:
			return "CLIENT_TRAFFIC_SECRET_0 (it has the server's, SERVER_TRAFFIC_SECRET_0; both are needed)"
		}
	}
	return secretName(v)
}

func secretName(v uint16) string {
	if v == tls12 {
		return "master secret (CLIENT_RANDOM)"
	}
	return "traffic secrets (CLIENT_TRAFFIC_SECRET_0 and SERVER_TRAFFIC_SECRET_0)"
}

func tlsVersionName(v uint16) string {
	switch v {
	case 0x0300:
		return "SSL 3.0"
	case 0x0301, 0x0302, tls12, tls13:
		return "TLS 1." + strconv.Itoa(int(v-0x0301))
	}
	return "TLS version " + hex4(v)
}

// tlsAlert says a fatal alert (a close_notify, or a warning, is the
// connection's business).
func (h *half) tlsAlert(b []byte) {
	if len(b) >= 2 && b[0] == 2 {
		h.e.note(h.c, "TLS: %s sent a fatal alert (description %d)", h.name(), b[1])
	}
}

// tlsDrop leaves a TLS connection encrypted, before anything of it was
// framed: it is said, and dropped as not Kafka, as one without a key log.
func (h *half) tlsDrop(format string, args ...any) {
	c := h.c
	h.e.res.TLS++
	h.e.note(c, format, args...)
	if n := len(h.e.res.Notes); n > 0 && h.e.res.Notes[n-1].Conn == c {
		h.e.res.Notes[n-1].TLS = true
	}
	if c.TLS != "" {
		c.TLS = ""
		h.e.res.TLSDecrypted--
	}
	c.nonKafka = true
	h.e.res.Frames -= len(c.pending)
	c.pending, c.pendingBytes = nil, 0
	c.half[0].release()
	c.half[1].release()
}

// tlsFail ends the decryption of h's direction: the whole connection's,
// while none of it was decrypted yet.
func (h *half) tlsFail(format string, args ...any) {
	if !h.tl.s.decrypted {
		h.tlsDrop("TLS: "+format+": encrypted, not decoded", args...)
		return
	}
	h.tl.dead = true
	h.e.note(h.c, "TLS: "+format+": the rest of "+h.stream()+" is not decrypted", args...)
}

// tlsLost is a gap of n bytes in a TLS direction. Once its keys are in
// use, the records after it are looked for (tlsHunt); before, or when
// none is found, the direction is not decrypted further. The framer is
// told of the loss.
func (h *half) tlsLost(n int64) {
	x := h.tl
	if x.dead {
		h.skip(n)
		return
	}
	at := x.off
	x.off += n
	if !x.s.decrypted || !x.enc || x.aead == nil {
		// (A CBC suite's records, padded, tell no plaintext length to
		// look for them by: its direction ends here too.)
		h.tlsFailLost(n, "%d bytes lost at stream offset %d", n, at)
		return
	}
	h.e.note(h.c, "TLS: %d bytes lost at stream offset %d: looking for the next record of %s", n, at, h.stream())
	if x.hunt == 0 {
		x.lostFrom = at - int64(len(x.rec))
	}
	h.skip(int64(len(x.rec)))
	x.hunt += n + int64(len(x.rec))
	x.rec, x.scan = x.rec[:0], 0
	// The framer is told how much was lost when the records are found
	// again, from the bytes and records between.
}

// overhead is what a record adds to its plaintext: header, tag, and TLS
// 1.2 GCM's explicit nonce or TLS 1.3's content type (padding, which no
// client or broker adds, is not counted).
func (x *tlsHalf) overhead() int64 {
	switch {
	case x.s.version == tls13:
		return 5 + 16 + 1
	case x.s.suite.chacha:
		return 5 + 16
	}
	return 5 + 8 + 16
}

// tlsFailLost is tlsFail for n bytes lost (a gap, or what a look for the
// records after one passed over in vain), which the framer is told.
func (h *half) tlsFailLost(n int64, format string, args ...any) {
	h.tlsFail(format, args...)
	if !h.released {
		h.frameGap(n)
	}
}

// maxHuntRecords bounds the records a loss may have held for the records
// after it to be found again: a lost segment or a few (64 KB of full
// records, 5 KB of the smallest), while a crafted capture's record
// headers cost at most that many tries each (a few microseconds: bytes
// cost at most about 1 ms a kilobyte in all). maxHuntWork bounds the
// bytes tried in one look (each try reads its record through): about 10
// ms whatever a capture holds.
const (
	maxHuntRecords = 256
	maxHuntWork    = 16 << 20
)

// tlsHunt looks, in the bytes after a gap, for a record that opens with
// one of the sequence numbers the lost bytes could have held (a record
// is 22 bytes at least; maxHuntRecords are tried at most); found, the stream goes on from it, and the bytes
// after it are returned for reading as records again.
func (h *half) tlsHunt(b []byte, t time.Time, pkt int) []byte {
	x := h.tl
	x.rec = append(x.rec, b...)
	x.off += int64(len(b))
	for ; x.scan+5 <= len(x.rec); x.scan++ {
		r := x.rec[x.scan:]
		n, ok := tlsRecord(r)
		if !ok || r[0] == 20 || x.s.version == tls13 && r[0] != 23 {
			continue
		}
		if len(r) < n {
			return nil // its rest is to come
		}
		last := x.seq + uint64(min(x.hunt/22+2, maxHuntRecords))
		for q := x.seq; q <= last; q++ {
			if x.work += n; x.work > maxHuntWork {
				h.tlsFailLost(x.hunt, "no record found in the %d bytes after %d lost", len(x.rec), x.hunt)
				return nil
			}
			typ, pt, ok := x.openAt(r[:n], q)
			if !ok {
				continue
			}
			h.skip(int64(x.scan))
			rest := bytes.Clone(r[n:])
			at := x.off - int64(len(x.rec)-x.scan)
			h.e.note(h.c, "TLS: records of %s found again at stream offset %d, %d records on", h.stream(), at, q-x.seq)
			// The records from the one the gap cut into to this one
			// held this much plaintext.
			h.frameGap(max(at-x.lostFrom-int64(q-x.seq)*x.overhead(), 0))
			x.off -= int64(len(rest))
			x.seq, x.hunt, x.work = q+1, 0, 0
			x.rec, x.scan = x.rec[:0], 0
			if !h.released {
				h.tlsPlain(typ, pt, t, pkt)
			}
			return rest
		}
	}
	if x.scan > 1<<15 {
		// What was passed over goes; memory stays a record or two.
		h.skip(int64(x.scan))
		x.rec = x.rec[:copy(x.rec, x.rec[x.scan:])]
		x.scan = 0
	}
	return nil
}

// open decrypts record r, the next of its direction: its content type
// and plaintext.
func (x *tlsHalf) open(r []byte) (byte, []byte, bool) {
	if x.s.version != tls13 {
		typ, pt, ok := x.openAt(r, x.seq)
		x.seq++
		return typ, pt, ok
	}
	// A record that does not open with this phase's keys may be the
	// first of the next: the first traffic secret's after the
	// handshake's, the next one's after a key update. One that opens with
	// none leaves the keys as they were.
	phase, secret, aead, iv, seq := x.phase, x.secret, x.aead, x.iv, x.seq
	for try := 0; try < 3; try++ {
		if (x.aead == nil || try > 0) && !x.nextPhase() {
			break
		}
		if typ, pt, ok := x.openAt(r, x.seq); ok {
			x.seq++
			return typ, pt, true
		}
	}
	x.phase, x.secret, x.aead, x.iv, x.seq = phase, secret, aead, iv, seq
	return 0, nil, false
}

// handshakeUnread reports whether a TLS 1.3 record that opens with no
// key is one of the handshake's whose secret the key log lacks (some key
// logs hold only the traffic secrets): nothing of the direction was read
// yet, so it is passed over.
func (x *tlsHalf) handshakeUnread() bool {
	if x.s.version != tls13 || x.phase > 0 {
		return false
	}
	if x.idx == x.s.clientIdx {
		return x.s.sec.clientHS == nil
	}
	return x.s.sec.serverHS == nil
}

// openAt decrypts record r as the one numbered seq.
func (x *tlsHalf) openAt(r []byte, seq uint64) (byte, []byte, bool) {
	if x.block != nil {
		return x.openCBC(r, seq)
	}
	if x.aead == nil {
		return 0, nil, false
	}
	if x.s.version == tls13 {
		pt, err := x.aead.Open(x.plain[:0], x.seqNonce(seq), r[5:], r[:5])
		if err != nil {
			return 0, nil, false
		}
		x.plain = pt
		for len(pt) > 0 && pt[len(pt)-1] == 0 {
			pt = pt[:len(pt)-1] // padding
		}
		if len(pt) == 0 {
			return 0, nil, false
		}
		return pt[len(pt)-1], pt[:len(pt)-1], true
	}
	body := r[5:]
	var nonce []byte
	if x.s.suite.chacha {
		nonce = x.seqNonce(seq)
	} else {
		if len(body) < 8 {
			return 0, nil, false
		}
		nonce = append(append(x.nonce[:0], x.iv...), body[:8]...)
		body = body[8:]
	}
	if len(body) < 16 {
		return 0, nil, false
	}
	aad := binary.BigEndian.AppendUint64(x.aad[:0], seq)
	aad = append(aad, r[:3]...)
	aad = binary.BigEndian.AppendUint16(aad, uint16(len(body)-16))
	pt, err := x.aead.Open(x.plain[:0], nonce, body, aad)
	if err != nil {
		return 0, nil, false
	}
	x.plain = pt
	return r[0], pt, true
}

// openCBC decrypts TLS 1.2 CBC record r as the one numbered seq (RFC
// 5246, 6.2.3.2): its IV, then the content, its MAC and padding,
// encrypted. The padding and the MAC (over the sequence number, the
// header and the content) are checked: a record that does not open is
// not read.
func (x *tlsHalf) openCBC(r []byte, seq uint64) (byte, []byte, bool) {
	body, ml := r[5:], x.s.suite.mac
	if len(body)%aes.BlockSize != 0 || len(body) < aes.BlockSize+ml+1 {
		return 0, nil, false
	}
	pt := append(x.plain[:0], body[aes.BlockSize:]...)
	iv := body[:aes.BlockSize]
	if s, ok := x.cbc.(interface{ SetIV([]byte) }); ok {
		s.SetIV(iv) // the decrypter is made once, not once a record
	} else {
		x.cbc = cipher.NewCBCDecrypter(x.block, iv)
	}
	x.cbc.CryptBlocks(pt, pt)
	x.plain = pt
	pad := int(pt[len(pt)-1])
	if pad+1+ml > len(pt) {
		return 0, nil, false
	}
	for _, b := range pt[len(pt)-1-pad:] {
		if int(b) != pad {
			return 0, nil, false
		}
	}
	pt = pt[:len(pt)-1-pad]
	content, mac := pt[:len(pt)-ml], pt[len(pt)-ml:]
	hdr := binary.BigEndian.AppendUint64(x.aad[:0], seq)
	hdr = append(hdr, r[:3]...)
	hdr = binary.BigEndian.AppendUint16(hdr, uint16(len(content)))
	x.mac.Reset()
	x.mac.Write(hdr)
	x.mac.Write(content)
	x.sum = x.mac.Sum(x.sum[:0])
	if !hmac.Equal(x.sum, mac) {
		return 0, nil, false
	}
	return r[0], content, true
}

// seqNonce is the IV with the record's sequence number XORed into its
// last 8 bytes (TLS 1.3, and ChaCha20-Poly1305 in TLS 1.2).
func (x *tlsHalf) seqNonce(seq uint64) []byte {
	n := x.nonce[:]
	copy(n, x.iv)
	var q [8]byte
	binary.BigEndian.PutUint64(q[:], seq)
	for i, b := range q {
		n[4+i] ^= b
	}
	return n
}

// nextPhase moves a TLS 1.3 direction to its next keys: the handshake
// secret's (passed over when the key log lacks it), the first traffic
// secret's, then each key update's. False when the key log has none.
func (x *tlsHalf) nextPhase() bool {
	sec, client := x.s.sec, x.idx == x.s.clientIdx
	for {
		x.phase++
		switch x.phase {
		case 0:
			x.secret = sec.serverHS
			if client {
				x.secret = sec.clientHS
			}
		case 1:
			x.secret = sec.server0
			if client {
				x.secret = sec.client0
			}
		default:
			if x.secret == nil {
				return false
			}
			x.secret = x.s.suite.expandLabel(x.secret, "traffic upd", x.s.suite.hash()().Size())
		}
		if x.secret != nil {
			break
		}
		if x.phase > 0 {
			return false
		}
	}
	x.aead, x.iv = x.s.suite.trafficKeys(x.secret)
	x.seq = 0
	return true
}
