// Package sasl reads and writes the SASL messages Kafka carries in
// SaslAuthenticate's authBytes: PLAIN (RFC 4616), the four messages of
// SCRAM (RFC 5802, as SCRAM-SHA-256 and SCRAM-SHA-512 send them, Kafka's
// "tokenauth=true" extension included), OAUTHBEARER (RFC 7628: the
// client's initial response, the server's error and the client's
// acknowledgement of it) and the first tokens of GSSAPI (Kerberos).
//
// A message is read into named parts, each a span of its bytes, only when
// writing those parts back (Append) gives the same bytes: the codec shows
// a message decoded exactly when its JSON encodes back to it. Anything
// else stays bytes.
package sasl

import (
	"bytes"
	"errors"
	"strconv"
	"unicode/utf8"
)

// Mechanisms and the messages they send.
const (
	Plain       = "PLAIN"
	Scram       = "SCRAM"
	OAuthBearer = "OAUTHBEARER"
	GSSAPI      = "GSSAPI"
)

// Part is one named piece of a message: its bytes b[Start:End] (the value
// alone, without an attribute's "n=" before it), a number when Num.
type Part struct {
	Name       string
	Start, End int
	Num        bool
	Bytes      bool // binary: written as base64
}

// Message is a message read: its mechanism, which of the mechanism's
// messages it is, and its parts in the order of their bytes.
type Message struct {
	Mechanism, Kind string
	Parts           []Part
}

// The names of the parts (and of the JSON members a message is written
// back from).
const (
	cbind      = "channelBindingFlag"
	authzid    = "authzid"
	username   = "username"
	password   = "password"
	nonce      = "nonce"
	salt       = "salt"
	iterations = "iterations"
	cbinding   = "channelBinding"
	proof      = "proof"
	verifier   = "verifier"
	serverErr  = "error"
	extensions = "extensions"
	auth       = "auth"
	token      = "token"
)

// Parse reads b as a SASL message into m (its Parts reused), reporting
// whether it is one that Append writes back byte for byte.
func Parse(b []byte, m *Message) bool {
	*m = Message{Parts: m.Parts[:0]}
	switch {
	case len(b) == 0:
		return false
	case b[0] == 0x60:
		return gssapi(b, m)
	case !utf8.Valid(b):
		return false
	case len(b) == 1 && b[0] == 1:
		m.Mechanism, m.Kind = OAuthBearer, "error-acknowledgement"
	case bytes.IndexByte(b, 0) >= 0:
		if !readPlain(b, m) {
			return false
		}
	case b[0] == '{':
		if !bytes.Contains(b, []byte(`"status"`)) || b[len(b)-1] != '}' {
			return false
		}
		m.Mechanism, m.Kind = OAuthBearer, "server-error"
		m.add(serverErr, 0, len(b))
	case bytes.IndexByte(b, 1) >= 0:
		if !readOAuth(b, m) {
			return false
		}
	default:
		if !readScram(b, m) {
			return false
		}
	}
	// Written back from its parts, the message must be b again.
	out, err := Append(nil, m.Mechanism, m.Kind, func(name string) (string, bool) {
		for _, p := range m.Parts {
			if p.Name == name {
				return string(b[p.Start:p.End]), true
			}
		}
		return "", false
	})
	return err == nil && bytes.Equal(out, b)
}

func (m *Message) add(name string, start, end int) {
	m.Parts = append(m.Parts, Part{Name: name, Start: start, End: end})
}

// printable reports whether b holds no control characters: SASL's text
// has none but OAUTHBEARER's separator (0x01), which callers split on.
func printable(b []byte) bool {
	for _, c := range b {
		if c < 0x20 || c == 0x7f {
			return false
		}
	}
	return true
}

// readPlain reads authzid NUL username NUL password.
func readPlain(b []byte, m *Message) bool {
	i := bytes.IndexByte(b, 0)
	j := i + 1 + bytes.IndexByte(b[i+1:], 0)
	if j <= i || j == i+1 || j == len(b)-1 || bytes.IndexByte(b[j+1:], 0) >= 0 {
		return false // a username and a password, never empty
	}
	if !printable(b[:i]) || !printable(b[i+1:j]) || !printable(b[j+1:]) {
		return false
	}
	m.Mechanism, m.Kind = Plain, "client-initial"
	m.add(authzid, 0, i)
	m.add(username, i+1, j)
	m.add(password, j+1, len(b))
	return true
}

// gs2 reads a GS2 header (RFC 5801) at the start of b: the channel
// binding flag ("n", "y" or "p=name"), then an optional "a=authzid";
// where the header ends, or -1.
func gs2(b []byte, m *Message) int {
	i := bytes.IndexByte(b, ',')
	if i < 1 || !(i == 1 && (b[0] == 'n' || b[0] == 'y') || bytes.HasPrefix(b, []byte("p="))) {
		return -1
	}
	j := i + 1 + bytes.IndexByte(b[i+1:], ',')
	if j <= i {
		return -1
	}
	m.add(cbind, 0, i)
	switch {
	case j == i+1:
	case bytes.HasPrefix(b[i+1:], []byte("a=")):
		m.add(authzid, i+3, j)
	default:
		return -1
	}
	return j + 1
}

// attrs splits b[at:] into SCRAM attributes (a letter, '=', a value),
// calling fn with each letter and its value's span until fn says no; it
// returns where the ones fn took end.
func attrs(b []byte, at int, fn func(letter byte, start, end int) bool) int {
	for at < len(b) {
		end := at + bytes.IndexByte(b[at:], ',')
		if end < at {
			end = len(b)
		}
		if end-at < 2 || b[at+1] != '=' || !fn(b[at], at+2, end) {
			return at
		}
		at = end + 1
	}
	return len(b)
}

// scramNames names SCRAM's attributes by their letters.
var scramNames = [128]string{'n': username, 'r': nonce, 's': salt, 'i': iterations, 'c': cbinding, 'v': verifier, 'e': serverErr}

// readScram reads one of SCRAM's four messages, known by its first attribute
// (after the GS2 header of the client's first).
func readScram(b []byte, m *Message) bool {
	if !printable(b) {
		return false
	}
	m.Mechanism = Scram
	at := 0
	var want []byte // the attributes the message has, in order
	switch {
	case bytes.HasPrefix(b, []byte("r=")):
		m.Kind, want = "server-first", []byte("rsi")
	case bytes.HasPrefix(b, []byte("c=")):
		m.Kind, want = "client-final", []byte("cr")
	case bytes.HasPrefix(b, []byte("v=")):
		m.Kind, want = "server-final", []byte("v")
	case bytes.HasPrefix(b, []byte("e=")):
		m.Kind, want = "server-final", []byte("e")
	default:
		if at = gs2(b, m); at < 0 {
			return false
		}
		m.Kind, want = "client-first", []byte("nr")
	}
	k := 0
	at = attrs(b, at, func(letter byte, start, end int) bool {
		if k == len(want) || letter != want[k] {
			return false
		}
		if letter == 'i' {
			// A count written as JSON writes it: no sign, no zeros before it.
			n, err := strconv.ParseUint(string(b[start:end]), 10, 31)
			if err != nil || strconv.FormatUint(n, 10) != string(b[start:end]) {
				return false
			}
		}
		k++
		m.add(scramNames[letter], start, end)
		m.Parts[len(m.Parts)-1].Num = letter == 'i'
		return true
	})
	if k < len(want) {
		return false
	}
	ext, pr := len(b), -1
	if m.Kind == "client-final" {
		// The proof comes last, after any extensions.
		if ext = bytes.LastIndex(b, []byte(",p=")); ext < at-1 {
			return false
		}
		pr = ext + 3
	}
	switch {
	case at < ext:
		m.add(extensions, at, ext)
	case at > ext+1 && pr >= 0:
		return false
	}
	if pr >= 0 {
		m.add(proof, pr, len(b))
	}
	return true
}

// readOAuth reads OAUTHBEARER's initial response: a GS2 header, then
// key=value pairs each ended by 0x01, the first auth=, then 0x01.
func readOAuth(b []byte, m *Message) bool {
	at := gs2(b, m)
	if at < 0 || at >= len(b) || b[at] != 1 || !bytes.HasSuffix(b, []byte{1, 1}) {
		return false
	}
	at++
	const key = "auth="
	end := at + bytes.IndexByte(b[at:], 1)
	if !bytes.HasPrefix(b[at:], []byte(key)) || end < at+len(key) {
		return false
	}
	m.Mechanism, m.Kind = OAuthBearer, "client-initial"
	if !printable(b[at:end]) {
		return false
	}
	m.add(auth, at+len(key), end)
	if end+1 < len(b)-1 {
		m.add(extensions, end+1, len(b)-2) // key=value pairs, 0x01 between them
	}
	return true
}

// krb5 is GSSAPI's Kerberos V5 mechanism OID (1.2.840.113554.1.2.2) as
// DER writes it.
var krb5 = []byte{0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x12, 0x01, 0x02, 0x02}

// gssapi reads the framing of a GSSAPI initial context token (RFC 2743)
// for Kerberos: its token id names the message; the token stays bytes.
func gssapi(b []byte, m *Message) bool {
	// 0x60, a DER length (one byte, or 0x81-0x84 and that many), the OID.
	at := 2
	if len(b) > 1 && b[1] > 0x80 {
		at += int(b[1] & 0x7f)
	}
	if len(b) < at+len(krb5)+2 || !bytes.HasPrefix(b[at:], krb5) {
		return false
	}
	id := b[at+len(krb5) : at+len(krb5)+2]
	switch {
	case id[0] == 1 && id[1] == 0:
		m.Kind = "AP-REQ"
	case id[0] == 2 && id[1] == 0:
		m.Kind = "AP-REP"
	case id[0] == 3 && id[1] == 0:
		m.Kind = "KRB-ERROR"
	default:
		return false
	}
	m.Mechanism = GSSAPI
	m.Parts = append(m.Parts, Part{Name: token, Start: 0, End: len(b), Bytes: true})
	return true
}

// Names lists the parts a message of mechanism and kind may have, in
// their order; nil for a mechanism or kind unknown.
func Names(mechanism, kind string) []string {
	switch mechanism + " " + kind {
	case "PLAIN client-initial":
		return []string{authzid, username, password}
	case "SCRAM client-first":
		return []string{cbind, authzid, username, nonce, extensions}
	case "SCRAM server-first":
		return []string{nonce, salt, iterations, extensions}
	case "SCRAM client-final":
		return []string{cbinding, nonce, extensions, proof}
	case "SCRAM server-final":
		return []string{verifier, serverErr, extensions}
	case "OAUTHBEARER client-initial":
		return []string{cbind, authzid, auth, extensions}
	case "OAUTHBEARER server-error":
		return []string{serverErr}
	case "OAUTHBEARER error-acknowledgement":
		return []string{}
	case "GSSAPI AP-REQ", "GSSAPI AP-REP", "GSSAPI KRB-ERROR":
		return []string{token}
	}
	return nil
}

// Append writes the message of mechanism and kind whose parts get gives
// (a part's text, and whether it is there) to dst. A GSSAPI token is
// given as its bytes; iterations as decimal digits.
func Append(dst []byte, mechanism, kind string, get func(name string) (string, bool)) ([]byte, error) {
	need := func(name string) (string, error) {
		if v, ok := get(name); ok {
			return v, nil
		}
		return "", errors.New(mechanism + " " + kind + " needs " + name)
	}
	opt := func(sep, name string) {
		if v, ok := get(name); ok {
			dst = append(append(dst, sep...), v...)
		}
	}
	var err error
	var v string
	attr := func(sep, name string) {
		if err == nil {
			if v, err = need(name); err == nil {
				dst = append(append(dst, sep...), v...)
			}
		}
	}
	header := func() {
		attr("", cbind)
		dst = append(dst, ',')
		opt("a=", authzid)
		dst = append(dst, ',')
	}
	switch mechanism + " " + kind {
	case "PLAIN client-initial":
		opt("", authzid)
		attr("\x00", username)
		attr("\x00", password)
	case "SCRAM client-first":
		header()
		attr("n=", username)
		attr(",r=", nonce)
		opt(",", extensions)
	case "SCRAM server-first":
		attr("r=", nonce)
		attr(",s=", salt)
		attr(",i=", iterations)
		if _, e := strconv.ParseUint(v, 10, 31); err == nil && e != nil {
			err = errors.New("SCRAM iterations must be a count, not " + strconv.Quote(v))
		}
		opt(",", extensions)
	case "SCRAM client-final":
		attr("c=", cbinding)
		attr(",r=", nonce)
		opt(",", extensions)
		attr(",p=", proof)
	case "SCRAM server-final":
		if _, ok := get(serverErr); ok {
			attr("e=", serverErr)
		} else {
			attr("v=", verifier)
		}
		opt(",", extensions)
	case "OAUTHBEARER client-initial":
		header()
		attr("\x01auth=", auth)
		if _, ok := get(extensions); ok {
			opt("\x01", extensions)
		}
		dst = append(dst, 1, 1)
	case "OAUTHBEARER server-error":
		attr("", serverErr)
	case "OAUTHBEARER error-acknowledgement":
		dst = append(dst, 1)
	case "GSSAPI AP-REQ", "GSSAPI AP-REP", "GSSAPI KRB-ERROR":
		attr("", token)
	default:
		return dst, errors.New("no SASL message " + strconv.Quote(mechanism) + " " + strconv.Quote(kind))
	}
	return dst, err
}
