package capture

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/binary"
	"hash"
	"strconv"

	"golang.org/x/crypto/chacha20poly1305"
)

// tlsSuite is a cipher suite kwire decrypts: the AEAD ones, which are
// what TLS 1.3 allows and what TLS 1.2 clients and brokers negotiate
// today, and TLS 1.2's AES-CBC ones (MAC, then encrypt), which older
// configurations and Java's lists still offer.
type tlsSuite struct {
	id     uint16
	name   string
	key    int  // key bytes
	sha384 bool // the PRF's or HKDF's hash is SHA-384, else SHA-256
	chacha bool // ChaCha20-Poly1305, else AES-GCM
	mac    int  // a CBC suite's HMAC: SHA-1 (20), SHA-256 (32) or SHA-384 (48); 0 for an AEAD suite
}

// The MAC sizes of the CBC suites, which name their hashes.
const (
	macSHA1   = 20
	macSHA256 = 32
	macSHA384 = 48
)

var tlsSuites = [...]tlsSuite{
	{0x1301, "TLS_AES_128_GCM_SHA256", 16, false, false, 0},
	{0x1302, "TLS_AES_256_GCM_SHA384", 32, true, false, 0},
	{0x1303, "TLS_CHACHA20_POLY1305_SHA256", 32, false, true, 0},
	{0xc02b, "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", 16, false, false, 0},
	{0xc02f, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", 16, false, false, 0},
	{0xc02c, "TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384", 32, true, false, 0},
	{0xc030, "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384", 32, true, false, 0},
	{0x009c, "TLS_RSA_WITH_AES_128_GCM_SHA256", 16, false, false, 0},
	{0x009d, "TLS_RSA_WITH_AES_256_GCM_SHA384", 32, true, false, 0},
	{0x009e, "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", 16, false, false, 0},
	{0x009f, "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384", 32, true, false, 0},
	{0xcca8, "TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256", 32, false, true, 0},
	{0xcca9, "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256", 32, false, true, 0},
	{0xccaa, "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256", 32, false, true, 0},
	{0xc009, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA", 16, false, false, macSHA1},
	{0xc00a, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA", 32, false, false, macSHA1},
	{0xc013, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", 16, false, false, macSHA1},
	{0xc014, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA", 32, false, false, macSHA1},
	{0xc023, "TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256", 16, false, false, macSHA256},
	{0xc024, "TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384", 32, true, false, macSHA384},
	{0xc027, "TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256", 16, false, false, macSHA256},
	{0xc028, "TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384", 32, true, false, macSHA384},
	{0x002f, "TLS_RSA_WITH_AES_128_CBC_SHA", 16, false, false, macSHA1},
	{0x0035, "TLS_RSA_WITH_AES_256_CBC_SHA", 32, false, false, macSHA1},
	{0x003c, "TLS_RSA_WITH_AES_128_CBC_SHA256", 16, false, false, macSHA256},
	{0x003d, "TLS_RSA_WITH_AES_256_CBC_SHA256", 32, false, false, macSHA256},
	{0x0033, "TLS_DHE_RSA_WITH_AES_128_CBC_SHA", 16, false, false, macSHA1},
	{0x0039, "TLS_DHE_RSA_WITH_AES_256_CBC_SHA", 32, false, false, macSHA1},
	{0x0067, "TLS_DHE_RSA_WITH_AES_128_CBC_SHA256", 16, false, false, macSHA256},
	{0x006b, "TLS_DHE_RSA_WITH_AES_256_CBC_SHA256", 32, false, false, macSHA256},
}

// suiteByID is the suite numbered id, nil for one kwire does not decrypt.
func suiteByID(id uint16) *tlsSuite {
	for i := range tlsSuites {
		if tlsSuites[i].id == id {
			return &tlsSuites[i]
		}
	}
	return nil
}

// suiteName names suite id as the IANA registry does, or by its number.
func suiteName(id uint16) string {
	if s := suiteByID(id); s != nil {
		return s.name
	}
	return hex4(id)
}

// hex4 is v as 0x and four hex digits.
func hex4(v uint16) string {
	return "0x" + strconv.FormatUint(uint64(v)|0x10000, 16)[1:]
}

func (s *tlsSuite) hash() func() hash.Hash {
	if s.sha384 {
		return sha512.New384
	}
	return sha256.New
}

// macHash is a CBC suite's HMAC hash.
func (s *tlsSuite) macHash() func() hash.Hash {
	switch s.mac {
	case macSHA1:
		return sha1.New
	case macSHA384:
		return sha512.New384
	}
	return sha256.New
}

// aead makes the suite's cipher with key.
func (s *tlsSuite) aead(key []byte) cipher.AEAD {
	if s.chacha {
		a, _ := chacha20poly1305.New(key) // the key's size is the suite's
		return a
	}
	b, _ := aes.NewCipher(key)
	a, _ := cipher.NewGCM(b)
	return a
}

// expandLabel is TLS 1.3's HKDF-Expand-Label with an empty context (RFC
// 8446, 7.1).
func (s *tlsSuite) expandLabel(secret []byte, label string, n int) []byte {
	info := make([]byte, 0, 4+6+len(label))
	info = binary.BigEndian.AppendUint16(info, uint16(n))
	info = append(info, byte(6+len(label)))
	info = append(info, "tls13 "...)
	info = append(info, label...)
	info = append(info, 0)
	out, _ := hkdf.Expand(s.hash(), secret, string(info), n)
	return out
}

// trafficKeys are a TLS 1.3 traffic secret's key and IV (RFC 8446, 7.3).
func (s *tlsSuite) trafficKeys(secret []byte) (cipher.AEAD, []byte) {
	return s.aead(s.expandLabel(secret, "key", s.key)), s.expandLabel(secret, "iv", 12)
}

// prf12 is TLS 1.2's PRF (RFC 5246, 5): P_hash of the suite's hash.
// crypto/tls keeps its own unexported, so it is written here; it is the
// HMAC chain the RFC gives, a dozen lines.
func (s *tlsSuite) prf12(secret []byte, label string, seed []byte, n int) []byte {
	ls := append([]byte(label), seed...)
	mac := hmac.New(s.hash(), secret)
	mac.Write(ls)
	a := mac.Sum(nil) // A(1)
	out := make([]byte, 0, n+64)
	for len(out) < n {
		mac.Reset()
		mac.Write(a)
		mac.Write(ls)
		out = mac.Sum(out)
		mac.Reset()
		mac.Write(a)
		a = mac.Sum(a[:0])
	}
	return out[:n]
}

// writeKeys12 is one direction's TLS 1.2 write keys: an AEAD suite's
// cipher and IV, or a CBC suite's block cipher and MAC key.
type writeKeys12 struct {
	aead  cipher.AEAD
	iv    []byte
	block cipher.Block
	mac   []byte
}

// keys12 are a TLS 1.2 session's write keys, the client's and the
// server's, from its master secret and the hellos' randoms (RFC 5246,
// 6.3: the MAC keys first, then the keys, then the IVs; AEAD suites have
// no MAC keys; GCM's IV is the 4-byte salt, RFC 5288; ChaCha20-Poly1305's
// the 12-byte one, RFC 7905; a CBC record carries its own IV, 6.2.3.2).
func (s *tlsSuite) keys12(master []byte, cr, sr [32]byte) (c, sv writeKeys12) {
	seed := append(sr[:], cr[:]...)
	if s.mac > 0 {
		kb := s.prf12(master, "key expansion", seed, 2*s.mac+2*s.key)
		kb, c.mac, sv.mac = kb[2*s.mac:], kb[:s.mac], kb[s.mac:2*s.mac]
		c.block, _ = aes.NewCipher(kb[:s.key]) // the key's size is the suite's
		sv.block, _ = aes.NewCipher(kb[s.key : 2*s.key])
		return c, sv
	}
	ivLen := 4
	if s.chacha {
		ivLen = 12
	}
	kb := s.prf12(master, "key expansion", seed, 2*s.key+2*ivLen)
	c.aead, sv.aead = s.aead(kb[:s.key]), s.aead(kb[s.key:2*s.key])
	c.iv, sv.iv = kb[2*s.key:2*s.key+ivLen], kb[2*s.key+ivLen:]
	return c, sv
}
