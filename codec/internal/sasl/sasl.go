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
// back to it. Anything else stays bytes. The other way round, Append
// writes only parts that Parse reads back as themselves, and names the
// part it refuses (an *Error), so an edited message never goes out as
// bytes the broker reads as another.
package sasl

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
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

// Error is why a message cannot be written: Part is the member at fault
// (a part's name, "mechanism" or "message"; "" the object as a whole),
// Msg what is wrong with it.
type Error struct{ Part, Msg string }

func (e *Error) Error() string {
	if e.Part == "" {
		return e.Msg
	}
	return e.Part + ": " + e.Msg
}

// find is the layout of mechanism and kind whose parts get has: of
// several, the first whose parts are all there, else the one with the
// most of its parts there (the last of those).
func find(mechanism, kind string, get func(name string) (string, bool)) *layout {
	var best *layout
	most := -1
	for i := range layouts {
		l := &layouts[i]
		if l.mechanism != mechanism || l.kind != kind {
			continue
		}
		whole, n := true, 0
		for _, s := range l.steps {
			if s.name == "" {
				continue
			}
			if _, ok := get(s.name); ok {
				n++
			} else if !s.opt {
				whole = false
			}
		}
		if whole {
			return l
		}
		if n >= most {
			best, most = l, n
		}
	}
	return best
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
// decimal digits. It writes only what reads back (Parse) as that message
// with those very parts; anything else is an *Error naming the part that
// cannot be written so, and why.
func Append(dst []byte, mechanism, kind string, get func(name string) (string, bool)) ([]byte, error) {
	l := find(mechanism, kind, get)
	if l == nil {
		return dst, &Error{Msg: "no SASL message " + strconv.Quote(mechanism) + " " + strconv.Quote(kind)}
	}
	if l.mechanism == Plain {
		// PLAIN's authzid left out is written as empty, and read so.
		given := get
		get = func(name string) (string, bool) { v, ok := given(name); return v, ok || name == authzid }
	}
	if err := l.check(get); err != nil {
		return dst, err
	}
	at := len(dst)
	dst, err := l.write(dst, get)
	if err == nil {
		err = l.readsBack(dst[at:], get)
	}
	if err != nil {
		return dst[:at], err
	}
	return dst, nil
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
			return dst, &Error{s.name, "missing: " + l.a() + " message has " + members(l.mechanism, l.kind)}
		}
	}
	if l.kind == "server-final" {
		// A verifier or an error, not both, nor none.
		_, e := get(serverErr)
		_, v := get(verifier)
		if e && v {
			return dst, &Error{verifier, "given with an error: a SCRAM server-final message has a verifier or an error, not both"}
		} else if !e && !v {
			return dst, &Error{verifier, "missing: a SCRAM server-final message has a verifier or an error"}
		}
	}
	return dst, nil
}

// a is "a" or "an" and l's mechanism and kind.
func (l *layout) a() string {
	if l.mechanism == OAuthBearer {
		return "an " + l.mechanism + " " + l.kind
	}
	return "a " + l.mechanism + " " + l.kind
}

// check says what keeps a part get gives from being written as a part
// of l's message and read back as itself: text no reading takes as that
// part (read's tests, and a message's guard, part by part), a part
// missing.
func (l *layout) check(get func(name string) (string, bool)) error {
	for _, s := range l.steps {
		if s.name == "" {
			continue
		}
		v, ok := get(s.name)
		if !ok {
			if !s.opt {
				return &Error{s.name, "missing: " + l.a() + " message has " + members(l.mechanism, l.kind)}
			}
			continue
		}
		if why := l.why(s, v); why != "" {
			return &Error{s.name, why}
		}
	}
	return nil
}

// why says why v cannot be the text of s's part ("" when it can): what
// the part's reading (read, text) or the message's guard refuses.
func (l *layout) why(s step, v string) string {
	switch {
	case s.name == iterations:
		if !l.text([]byte(v), iterations) {
			return "expected a count, 0 to 2147483647, found " + clip(v)
		}
		return ""
	case l.mechanism == Plain && (s.name == username || s.name == password) && v == "":
		return "empty: PLAIN's username and password are never empty (RFC 4616)"
	case s.name == cbind && !cbindFlag([]byte(v+",")):
		return `expected "n", "y" or "p=" and a channel binding's name (RFC 5801's GS2 header), found ` + clip(v)
	case s.b64 && (len(v) < 2 || v[0] != '{' || v[len(v)-1] != '}'):
		return "expected a JSON object, as a JWT's header and claims are (RFC 7519), found " + clip(v)
	case l.guard != nil && l.kind == "server-error" && !(v != "" && l.guard([]byte(v))):
		return `expected a JSON object with a "status", OAUTHBEARER's error (RFC 7628), found ` + clip(v)
	}
	if !utf8.ValidString(v) {
		return "not UTF-8 text"
	}
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == 0 && l.mechanism == Plain:
			return "holds a NUL (\\u0000), the byte PLAIN puts between authzid, username and password (RFC 4616): the broker would read another message"
		case c == 1 && l.mechanism == OAuthBearer && s.name != extensions:
			return "holds \\u0001, the byte OAUTHBEARER puts between its key=value pairs (RFC 7628)"
		case c == ',' && l.end == ',' && s.name != extensions && (s.name == username || s.name == authzid):
			return "holds ',', which a SCRAM name writes as =2C, as it writes '=' as =3D (RFC 5802)"
		case c == ',' && l.end == ',' && s.name != extensions:
			return "holds ',', which ends each of SCRAM's attributes (RFC 5802)"
		case c < 0x20 && !(c == 1 && s.name == extensions) || c == 0x7f:
			return "holds the control character " + hexChar(c) + ", which kwire reads in no part of a SASL message: the bytes would not decode back as this message"
		}
	}
	return ""
}

// readsBack says what keeps out, written by l from the parts get gives,
// from reading back (Parse) as those very parts: a part holding what its
// reading takes for a later piece's start, an optional part read as
// absent, parts that make the bytes another message's.
func (l *layout) readsBack(out []byte, get func(name string) (string, bool)) error {
	var m Message
	ok := Parse(out, &m)
	if ok && m.Mechanism == l.mechanism && m.Kind == l.kind && l.differs(out, &m, get) == "" {
		return nil
	}
	// Where each piece went: its sep at sep, its text [start, end).
	type span struct{ i, sep, start, end int }
	var spans []span
	at := 0
	for i, s := range l.steps {
		v, there := "", s.name == ""
		if !there {
			v, there = get(s.name)
		}
		if !there {
			continue
		}
		n := len(v)
		if s.b64 {
			n = base64.RawURLEncoding.EncodedLen(n)
		}
		spans = append(spans, span{i, at, at + len(s.sep), at + len(s.sep) + n})
		at += len(s.sep) + n
	}
	// read's steps, each where the part was written.
	for k, sp := range spans {
		s := l.steps[sp.i]
		if s.opt && s.sep != "" && sp.i+1 < len(l.steps) {
			if next := l.steps[sp.i+1]; next.sep != "" && hasAt(out, sp.sep, next.sep) {
				if sp.start == sp.end {
					return &Error{s.name, "empty, which reads as no " + s.name + ": leave it out"}
				}
				return &Error{s.name, "starts with " + clip(strings.TrimPrefix(next.sep, s.sep)) + ", which reads as " + l.where(sp.i+1) + " and no " + s.name}
			}
		}
		if s.name == "" {
			continue
		}
		for j := sp.i + 1; j < len(l.steps); j++ {
			t := l.steps[j]
			if p := bytes.Index(out[sp.start:], []byte(t.sep)); t.sep != "" && p >= 0 {
				if p += sp.start; p != sp.end {
					// The part whose text the sep starts in, or last
					// before it.
					c := sp
					for _, o := range spans[k:] {
						if o.start <= p && l.steps[o.i].name != "" {
							c = o
						}
					}
					if p+len(t.sep) <= c.end {
						return &Error{l.steps[c.i].name, "holds " + clip(t.sep) + ", which reads as " + l.where(j)}
					}
					return &Error{l.steps[c.i].name, "ends with " + clip(string(out[p:c.end])) + ", which with what follows reads as " + l.where(j)}
				}
				break
			}
			if !t.opt {
				break
			}
		}
	}
	if ok {
		if name := l.differs(out, &m, get); name != "" {
			var other []string
			for _, p := range m.Parts {
				if _, given := get(p.Name); !given {
					other = append(other, p.Name)
				}
			}
			if m.Mechanism == l.mechanism && m.Kind == l.kind && len(other) > 0 {
				return &Error{name, "reads back as " + strings.Join(other, ", ") + " instead: give those for it"}
			}
			return &Error{name, "makes the bytes read back as " + (&layout{mechanism: m.Mechanism, kind: m.Kind}).a() + " message"}
		}
	}
	return &Error{Msg: "these parts would not read back as " + l.a() + " message"}
}

// differs is the first of l's parts whose text get gives and m, read from
// out, differ on, or that one of them has and the other not; "" when
// none.
func (l *layout) differs(out []byte, m *Message, get func(name string) (string, bool)) string {
	for _, s := range l.steps {
		if s.name == "" {
			continue
		}
		v, ok := get(s.name)
		pv, pok := "", false
		for _, p := range m.Parts {
			if p.Name == s.name {
				pv, pok = string(out[p.Start:p.End]), true
				if p.Value != nil {
					pv = string(p.Value)
				}
			}
		}
		if ok != pok || v != pv {
			return s.name
		}
	}
	for _, p := range m.Parts {
		if _, ok := get(p.Name); !ok {
			return p.Name
		}
	}
	return ""
}

// where names what the sep of step j starts.
func (l *layout) where(j int) string {
	switch {
	case l.steps[j].name != "":
		return "the start of " + l.steps[j].name
	case j == len(l.steps)-1:
		return "the message's end"
	}
	return "the end of the GS2 header"
}

// clip is v quoted, its middle left out when long.
func clip(v string) string {
	if len(v) > 60 {
		v = v[:40] + "..." + v[len(v)-12:]
	}
	return strconv.Quote(v)
}

// hexChar is c as JSON escapes it: \u0009.
func hexChar(c byte) string {
	const hex = "0123456789abcdef"
	return `\u00` + string([]byte{hex[c>>4], hex[c&15]})
}

// members says what parts a message of mechanism and kind has: those it
// needs, then "optional" and those it may have; of several layouts, the
// parts of one, then "(or ...)" and what another has instead.
func members(mechanism, kind string) string {
	var need, opt, alt []string
	first := true
	for i := range layouts {
		l := &layouts[i]
		if l.mechanism != mechanism || l.kind != kind {
			continue
		}
		var own []string
		for _, s := range l.steps {
			switch {
			case s.name == "":
			case s.opt && (l.kind != "server-final" || s.name == extensions):
				if !slices.Contains(opt, s.name) {
					opt = append(opt, s.name)
				}
			case first:
				need = append(need, s.name)
			default:
				own = append(own, s.name)
			}
		}
		if !first {
			// What this layout needs that the first does not, and the
			// first's that this one does not, are alternatives.
			var mine []string
			for _, n := range need {
				if !slices.Contains(own, n) {
					mine = append(mine, n)
				}
			}
			var theirs []string
			for _, n := range own {
				if !slices.Contains(need, n) {
					theirs = append(theirs, n)
				}
			}
			// Shown as: theirs (or mine), theirs being the simpler.
			need = slices.DeleteFunc(need, func(n string) bool { return slices.Contains(mine, n) })
			alt = append(alt, strings.Join(theirs, ", ")+" (or "+strings.Join(mine, ", ")+")")
		}
		first = false
	}
	if kind == "server-final" {
		need = []string{verifier + " or " + serverErr}
	}
	out := strings.Join(append(need, alt...), ", ")
	if len(opt) > 0 {
		if out != "" {
			out += ", "
		}
		out += "optional " + strings.Join(opt, ", ")
	}
	if out == "" {
		return "no parts"
	}
	return out
}

// messages lists mechanism's messages, each with its members; every
// mechanism's, each named, when mechanism is "".
func messages(mechanism string) string {
	var out []string
	for i := range layouts {
		l := &layouts[i]
		if mechanism != "" && l.mechanism != mechanism || i > 0 && layouts[i-1].mechanism == l.mechanism && layouts[i-1].kind == l.kind {
			continue
		}
		m := l.kind + " (" + members(l.mechanism, l.kind) + ")"
		if mechanism == "" {
			m = l.mechanism + " " + m
		}
		out = append(out, m)
	}
	return strings.Join(out, "; ")
}

// Unknown is the error for obj, an object given for a SASL message whose
// mechanism and message are no message here (Names gave nil): what is
// missing or wrong, and what is valid there. kindOf says what a JSON value
// is ("a number").
func Unknown(obj map[string]any, kindOf func(any) string) *Error {
	found := func(v any) string {
		if s, ok := v.(string); ok {
			return strconv.Quote(s)
		}
		return kindOf(v)
	}
	mech, kind := obj["mechanism"], obj["message"]
	switch {
	case mech == nil && kind == nil:
		what := "an empty object"
		if len(obj) > 0 {
			keys := make([]string, 0, len(obj))
			for k := range obj {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			what = "an object with " + strings.Join(keys, ", ")
		}
		return &Error{Msg: `expected base64 text, or a SASL message object: {"mechanism":...,"message":...} and the message's parts, for one of ` + messages("") + "; found " + what}
	case mech == nil:
		return &Error{"mechanism", "missing: a SASL message object names its mechanism and message, one of " + messages("")}
	}
	m, _ := mech.(string)
	if m != Plain && m != Scram && m != OAuthBearer {
		msg := "expected PLAIN, SCRAM or OAUTHBEARER, found " + found(mech)
		if _, ok := mech.(string); ok {
			msg += " (other mechanisms' bytes, GSSAPI's among them, are written as base64 text)"
		}
		return &Error{"mechanism", msg + "; the messages: " + messages("")}
	}
	valid := m + "'s message, " + messages(m)
	if m != Plain {
		valid = "one of " + m + "'s messages: " + messages(m)
	}
	if kind == nil {
		return &Error{"message", "missing: expected " + valid}
	}
	return &Error{"message", "expected " + valid + "; found " + found(kind)}
}
