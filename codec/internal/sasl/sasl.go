// Package sasl reads and writes the SASL messages Kafka carries in
// SaslAuthenticate's authBytes: PLAIN (RFC 4616), the four messages of
// SCRAM (RFC 5802, as SCRAM-SHA-256 and SCRAM-SHA-512 send them, Kafka's
// "tokenauth=true" extension included) and OAUTHBEARER (RFC 7628: the
// client's initial response, the server's error and the client's
// acknowledgement of it). GSSAPI's Kerberos tokens are binary and stay
// bytes (reading their kind cost kwire.wasm 2 KB of its budget).
//
// One table (layouts) lays out every message piece by piece, for reading
// and writing alike. A message is read into named parts, each a span of
// its bytes, only when writing those parts back (Append) gives the same
// bytes: the codec shows a message decoded exactly when its JSON encodes
// back to it. Anything else stays bytes.
package sasl

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strconv"
	"unicode/utf8"
)

// Mechanisms and the messages they send.
const (
	Plain       = "PLAIN"
	Scram       = "SCRAM"
	OAuthBearer = "OAUTHBEARER"
)

// Part is one named piece of a message: its bytes b[Start:End] (the value
// alone, without an attribute's "n=" before it), a number when Num.
type Part struct {
	Name       string
	Start, End int
	Num        bool
	Value      []byte // what the bytes decode to (a JWT's header or claims); nil: the bytes themselves
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
	// A bearer token that is a JWT (RFC 7519): its header and claims
	// (base64url, shown decoded), and its signature.
	jwtHeader    = "jwtHeader"
	jwtClaims    = "jwtClaims"
	jwtSignature = "jwtSignature"
)

// step is one piece of a message: sep, then the part name's text (no
// part when name is empty); opt when it may be absent; b64 when the text
// is base64url (unpadded) and the part what it decodes to.
type step struct {
	sep, name string
	opt, b64  bool
}

// layout is one message of a mechanism: its pieces in order, the byte
// that ends a part (none holds it, extensions aside), and what the bytes
// must show before they are read as it.
type layout struct {
	mechanism, kind string
	end             byte
	guard           func(b []byte) bool
	steps           []step
}

var layouts = []layout{
	{Plain, "client-initial", 0, plainUser, []step{{"", authzid, true, false}, {"\x00", username, false, false}, {"\x00", password, false, false}}},
	// SCRAM's first message and OAUTHBEARER's open with a GS2 header (RFC
	// 5801): the channel binding flag, then an authorization id when one
	// is asked for.
	{Scram, "client-first", ',', cbindFlag, []step{{"", cbind, false, false}, {",", "", false, false}, {"a=", authzid, true, false},
		{",n=", username, false, false}, {",r=", nonce, false, false}, {",", extensions, true, false}}},
	{Scram, "server-first", ',', nil, []step{{"r=", nonce, false, false}, {",s=", salt, false, false}, {",i=", iterations, false, false}, {",", extensions, true, false}}},
	{Scram, "client-final", ',', nil, []step{{"c=", cbinding, false, false}, {",r=", nonce, false, false}, {",", extensions, true, false}, {",p=", proof, false, false}}},
	{Scram, "server-final", ',', nil, []step{{"e=", serverErr, true, false}, {"v=", verifier, true, false}, {",", extensions, true, false}}},
	// A bearer token that is a JWT, read into its parts, before any other.
	{OAuthBearer, "client-initial", 1, cbindFlag, []step{{"", cbind, false, false}, {",", "", false, false}, {"a=", authzid, true, false},
		{",\x01auth=Bearer ", jwtHeader, false, true}, {".", jwtClaims, false, true}, {".", jwtSignature, false, false},
		{"\x01", extensions, true, false}, {"\x01\x01", "", false, false}}},
	{OAuthBearer, "client-initial", 1, cbindFlag, []step{{"", cbind, false, false}, {",", "", false, false}, {"a=", authzid, true, false},
		{",\x01auth=", auth, false, false}, {"\x01", extensions, true, false}, {"\x01\x01", "", false, false}}},
	{OAuthBearer, "server-error", 0, jsonError, []step{{"", serverErr, false, false}}},
	{OAuthBearer, "error-acknowledgement", 0, nil, []step{{"\x01", "", false, false}}},
}

// plainUser: PLAIN's user and password (after the first and the last
// NUL) are never empty (RFC 4616).
func plainUser(b []byte) bool {
	i, j := bytes.IndexByte(b, 0), bytes.LastIndexByte(b, 0)
	return i >= 0 && j > i+1 && j < len(b)-1
}

// cbindFlag: a GS2 header's channel binding flag, "n", "y" or "p=name".
func cbindFlag(b []byte) bool {
	return len(b) > 1 && (b[0] == 'n' || b[0] == 'y') && b[1] == ',' || len(b) > 2 && b[0] == 'p' && b[1] == '='
}

// jsonError: OAUTHBEARER's error, a JSON object with a status.
func jsonError(b []byte) bool {
	return b[0] == '{' && b[len(b)-1] == '}' && bytes.Contains(b, []byte(`"status"`))
}

// Parse reads b as a SASL message into m (its Parts reused), reporting
// whether it is one that Append writes back byte for byte.
func Parse(b []byte, m *Message) bool {
	if len(b) == 0 {
		return false
	}
	for i := range layouts {
		l := &layouts[i]
		*m = Message{Mechanism: l.mechanism, Kind: l.kind, Parts: m.Parts[:0]}
		if (l.guard == nil || l.guard(b)) && l.read(b, m) && l.writesBack(b, m) {
			return true
		}
	}
	*m = Message{Parts: m.Parts[:0]}
	return false
}

// read reads b as l's pieces into m.
func (l *layout) read(b []byte, m *Message) bool {
	at := 0
	for i, s := range l.steps {
		next := ""
		if i+1 < len(l.steps) {
			next = l.steps[i+1].sep
		}
		if !hasAt(b, at, s.sep) || s.opt && s.sep != "" && next != "" && hasAt(b, at, next) {
			// Absent; an optional piece whose sep the next piece's
			// starts with is there only when the next is not.
			if !s.opt {
				return false
			}
			continue
		}
		at += len(s.sep)
		if s.name == "" {
			continue
		}
		end := l.partEnd(b, at, i)
		if end < 0 {
			return false
		}
		p := Part{Name: s.name, Start: at, End: end, Num: s.name == iterations}
		v := b[at:end]
		if s.b64 {
			// A JWT's header or claims: a JSON object.
			var err error
			if v, err = base64.RawURLEncoding.DecodeString(string(v)); err != nil || len(v) < 2 || v[0] != '{' || v[len(v)-1] != '}' {
				return false
			}
			p.Value = v
		}
		if !l.text(v, s.name) {
			return false
		}
		m.Parts = append(m.Parts, p)
		at = end
	}
	return at == len(b)
}

// partEnd is where the part of step i, starting at at, ends: where the
// next piece that can be there starts, or the end of b; -1 when a piece
// that must follow is not there.
func (l *layout) partEnd(b []byte, at, i int) int {
	for _, s := range l.steps[i+1:] {
		if k := bytes.Index(b[at:], []byte(s.sep)); s.sep != "" && k >= 0 {
			return at + k
		}
		if !s.opt {
			return -1
		}
	}
	return len(b)
}

// text reports whether v may be the text of part name: no control
// characters nor the byte that ends a part (extensions keep their
// separators), an iteration count as JSON writes a number.
func (l *layout) text(v []byte, name string) bool {
	switch name {
	case iterations:
		n, err := strconv.ParseUint(string(v), 10, 31)
		return err == nil && strconv.FormatUint(n, 10) == string(v)
	}
	for _, c := range v {
		if c == l.end && name != extensions || c < 0x20 && !(c == 1 && name == extensions) || c == 0x7f {
			return false
		}
	}
	return utf8.Valid(v)
}

func hasAt(b []byte, at int, sep string) bool {
	return len(b)-at >= len(sep) && string(b[at:at+len(sep)]) == sep
}

// writesBack reports whether l writes m's parts, read from b, back as b.
func (l *layout) writesBack(b []byte, m *Message) bool {
	out, err := l.write(nil, func(name string) (string, bool) {
		for _, p := range m.Parts {
			if p.Name == name && p.Value != nil {
				return string(p.Value), true
			} else if p.Name == name {
				return string(b[p.Start:p.End]), true
			}
		}
		return "", false
	})
	return err == nil && bytes.Equal(out, b)
}

// find is the layout of mechanism and kind whose parts get has (of
// several, the first whose parts are all there, else the last).
func find(mechanism, kind string, get func(name string) (string, bool)) *layout {
	var last *layout
	for i := range layouts {
		l := &layouts[i]
		if l.mechanism != mechanism || l.kind != kind {
			continue
		}
		last = l
		whole := true
		for _, s := range l.steps {
			if _, ok := get(s.name); s.name != "" && !s.opt && !ok {
				whole = false
			}
		}
		if whole {
			return l
		}
	}
	return last
}

// Names lists the parts a message of mechanism and kind may have, in
// their order (for a message with several layouts, the one whose parts get
// has); nil for a mechanism or kind unknown.
func Names(mechanism, kind string, get func(name string) (string, bool)) []string {
	l := find(mechanism, kind, get)
	if l == nil {
		return nil
	}
	names := make([]string, 0, len(l.steps))
	for _, s := range l.steps {
		if s.name != "" {
			names = append(names, s.name)
		}
	}
	return names
}

// Append writes the message of mechanism and kind whose parts get gives
// (a part's text, and whether it is there) to dst; iterations as
// decimal digits.
func Append(dst []byte, mechanism, kind string, get func(name string) (string, bool)) ([]byte, error) {
	l := find(mechanism, kind, get)
	if l == nil {
		return dst, errors.New("no SASL message " + strconv.Quote(mechanism) + " " + strconv.Quote(kind))
	}
	return l.write(dst, get)
}

// write appends l's message whose parts get gives to dst.
func (l *layout) write(dst []byte, get func(name string) (string, bool)) ([]byte, error) {
	for _, s := range l.steps {
		v, ok := "", s.name == ""
		if !ok {
			v, ok = get(s.name)
		}
		switch {
		case ok && s.b64:
			dst = base64.RawURLEncoding.AppendEncode(append(dst, s.sep...), []byte(v))
		case ok:
			dst = append(append(dst, s.sep...), v...)
		case !s.opt:
			return dst, errors.New(l.mechanism + " " + l.kind + " needs " + s.name)
		}
		if s.name == iterations && !l.text([]byte(v), iterations) {
			return dst, errors.New("SCRAM iterations must be a count, not " + strconv.Quote(v))
		}
	}
	if l.kind == "server-final" {
		// A verifier or an error, not both, nor none.
		_, e := get(serverErr)
		_, v := get(verifier)
		if e == v {
			return dst, errors.New("SCRAM server-final needs a verifier or an error")
		}
	}
	return dst, nil
}
