package hostile

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// A TLS 1.3 session written from RFC 8446 (not through the capture
// reader): fixed randoms and traffic secrets, TLS_AES_128_GCM_SHA256, the
// secrets carried in a pcapng decryption secrets block, so that kwire
// pcap decrypts it with no key log given.
var (
	tlsClientRandom = bytes.Repeat([]byte{0x11}, 32)
	tlsServerRandom = bytes.Repeat([]byte{0x22}, 32)
	tlsClientSecret = bytes.Repeat([]byte{0x33}, 32)
	tlsServerSecret = bytes.Repeat([]byte{0x44}, 32)
)

// tlsKeyLog is the session's key log, as SSLKEYLOGFILE writes it.
func tlsKeyLog() []byte {
	cr := hex.EncodeToString(tlsClientRandom)
	return []byte("CLIENT_TRAFFIC_SECRET_0 " + cr + " " + hex.EncodeToString(tlsClientSecret) + "\n" +
		"SERVER_TRAFFIC_SECRET_0 " + cr + " " + hex.EncodeToString(tlsServerSecret) + "\n")
}

// ngSecrets is a decryption secrets block holding a TLS key log.
func ngSecrets(keyLog []byte) []byte {
	body := binary.LittleEndian.AppendUint32(nil, 0x544c534b) // "TLSK"
	body = binary.LittleEndian.AppendUint32(body, uint32(len(keyLog)))
	return ngBlock(10, append(body, keyLog...))
}

// tlsHandshakeRecord is a handshake record holding one message.
func tlsHandshakeRecord(typ byte, body []byte) []byte {
	m := append([]byte{typ, 0}, binary.BigEndian.AppendUint16(nil, uint16(len(body)))...)
	m = append(m, body...)
	r := append([]byte{22, 3, 1}, binary.BigEndian.AppendUint16(nil, uint16(len(m)))...)
	return append(r, m...)
}

// tlsHellos are the session's ClientHello and ServerHello records (only
// what a reader of the session needs: randoms, suite, version).
func tlsHellos() (client, server []byte) {
	ch := append([]byte{3, 3}, tlsClientRandom...)
	ch = append(ch, 0, 0, 2, 0x13, 0x01, 1, 0) // no session id, the suite, no compression
	sh := append([]byte{3, 3}, tlsServerRandom...)
	sh = append(sh, 0, 0x13, 0x01, 0)        // no session id, the suite, no compression
	sh = append(sh, 0, 6, 0, 43, 0, 2, 3, 4) // supported_versions: TLS 1.3
	return tlsHandshakeRecord(1, ch), tlsHandshakeRecord(2, sh)
}

// tlsSealer writes one direction's application data records.
type tlsSealer struct {
	aead cipher.AEAD
	iv   []byte
	seq  uint64
}

func newTLSSealer(secret []byte) *tlsSealer {
	b, _ := aes.NewCipher(expandLabel(secret, "key", 16))
	a, _ := cipher.NewGCM(b)
	return &tlsSealer{aead: a, iv: expandLabel(secret, "iv", 12)}
}

// expandLabel is HKDF-Expand-Label with an empty context, SHA-256.
func expandLabel(secret []byte, label string, n int) []byte {
	info := binary.BigEndian.AppendUint16(nil, uint16(n))
	info = append(info, byte(6+len(label)))
	info = append(info, "tls13 "+label...)
	info = append(info, 0)
	out, _ := hkdf.Expand(sha256.New, secret, string(info), n)
	return out
}

// seal is data as the direction's next application data record.
func (s *tlsSealer) seal(data []byte) []byte {
	nonce := bytes.Clone(s.iv)
	for i := 0; i < 8; i++ {
		nonce[4+i] ^= byte(s.seq >> (56 - 8*i))
	}
	s.seq++
	inner := append(bytes.Clone(data), 23)
	hdr := append([]byte{23, 3, 3}, binary.BigEndian.AppendUint16(nil, uint16(len(inner)+16))...)
	return s.aead.Seal(hdr, nonce, inner, hdr)
}

// tlsHunt is a capture of one TLS connection, decrypted from its secrets
// block: an exchange, then bytes lost, then n record headers (22 bytes
// each, nothing that opens) for the reader to try each with the sequence
// numbers the loss could have held.
func tlsHunt(n int) []byte {
	req, resp := kafkaExchange()
	ch, sh := tlsHellos()
	c, s := newTLSSealer(tlsClientSecret), newTLSSealer(tlsServerSecret)
	creq, cresp := c.seal(req[54:]), s.seal(resp[54:])
	fake := bytes.Repeat(append([]byte{23, 3, 3, 0, 17}, make([]byte, 17)...), n)
	cseq := uint32(1 + len(ch) + len(creq) + 6000) // 6,000 bytes lost
	var pkts [][]byte
	pkts = append(pkts, tcp(false, 1, tcpPSHACK, ch), tcp(true, 1, tcpPSHACK, sh),
		tcp(false, uint32(1+len(ch)), tcpPSHACK, creq), tcp(true, uint32(1+len(sh)), tcpPSHACK, cresp))
	for len(fake) > 0 {
		k := min(len(fake), 1452) // 66 headers a segment
		pkts = append(pkts, tcp(false, cseq, tcpPSHACK, fake[:k]))
		cseq += uint32(k)
		fake = fake[k:]
	}
	out := concat(ngSection(-1), ngSecrets(tlsKeyLog()), ngInterface(65535))
	for i, p := range pkts {
		out = append(out, ngPacket(uint32(i), p)...)
	}
	return out
}
