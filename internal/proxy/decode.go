package proxy

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// Decoded is an exchange decoded: each side's frame (partial after an
// error) and error, the ranked readings of a response that answered no
// request, and the secrets blanked.
type Decoded struct {
	APIKey, APIVersion      int16
	Request, Response       *codec.Frame
	RequestErr, ResponseErr error
	Guessed                 []codec.Candidate
	// Redacted lists the value-JSON paths ("request.body.authBytes") of
	// the secrets whose bytes were blanked, in the exchange's frames too.
	Redacted []string
}

// Decoder decodes exchanges, reusing its memory from one to the next: the
// frames of a Decoded are valid until the next call. One per goroutine.
type Decoder struct {
	// Options are the codec's options for both sides (limits); Response,
	// APIKey and Version are set per frame.
	Options codec.Options
	// ShowSecrets leaves secrets as they are.
	ShowSecrets bool

	req, rsp     codec.Decoder
	zero         codec.Decoder // ZeroSecrets' and ZeroTokens': the frames shown stay the decoders' above
	reqJS, rspJS []byte
}

// Decode decodes both sides of x. Unless ShowSecrets is set, the bytes of
// every secret (SASL authentication bytes, raw SASL tokens whole,
// delegation-token HMACs, SCRAM salts and salted passwords, and
// configuration values that are or may be passwords: see configSecret)
// are zeroed in x's frames before anything is written from them, so
// neither the value JSON nor the raw bytes show them; Redacted says where
// they were. Raw SASL tokens (Exchange.SASLToken) are read as the SASL
// messages they hold (codec's Data "sasl").
func (d *Decoder) Decode(x *Exchange) Decoded {
	out := Decoded{APIKey: x.APIKey, APIVersion: x.APIVersion}
	if x.SASLToken {
		out.Redacted = d.redactToken(x)
		o := tokenOptions(d.Options)
		if x.Request != nil {
			out.Request, out.RequestErr = d.req.Decode(x.Request, o)
		}
		if x.Response != nil {
			out.Response, out.ResponseErr = d.rsp.Decode(x.Response, o)
		}
		return out
	}
	if x.Request != nil {
		o := d.Options
		o.Response = false
		if !d.ShowSecrets {
			out.Redacted = ZeroSecrets(&d.zero, x.Request, o, x.APIKey, x.APIVersion, "request", out.Redacted)
		}
		out.Request, out.RequestErr = d.req.Decode(x.Request, o)
		if out.Request != nil && out.RequestErr == nil {
			out.APIKey, out.APIVersion = out.Request.APIKey, out.Request.Version
		}
	}
	if x.Response == nil {
		return out
	}
	o := d.Options
	o.Response, o.APIKey, o.Version = true, x.APIKey, x.APIVersion
	if x.Request != nil {
		if !d.ShowSecrets {
			out.Redacted = ZeroSecrets(&d.zero, x.Response, o, x.APIKey, x.APIVersion, "response", out.Redacted)
		}
		// Perhaps the broker's UNSUPPORTED_VERSION answer, at v0.
		out.Response, out.ResponseErr = d.rsp.Decode(x.Response, o)
		return out
	}
	o.APIKey, o.Version = codec.Any, codec.Any
	f, _ := d.rsp.Decode(x.Response, o)
	if f.Guess == nil || len(f.Guess.Candidates) == 0 {
		out.ResponseErr = errors.New("a response that answers no request and fits no API")
		return out
	}
	out.APIKey, out.APIVersion = f.APIKey, f.Version
	out.Guessed = f.Guess.Candidates
	if !d.ShowSecrets {
		var made *codec.Guess
		if out.Redacted, made = ZeroGuessed(&d.zero, x.Response, o, f, out.Redacted); made != nil {
			out.Guessed = made.Candidates
			f, out.ResponseErr = d.rsp.Decode(x.Response, o)
		}
	}
	out.Response = f
	return out
}

// Side is one side of an exchange as value JSON.
type Side struct {
	JSON []byte // its value JSON (partial after an error); nil when there is nothing to show
	Err  error
	Info *codec.Frame // what decoding it learnt (no tree): warnings, the guess, error codes
}

// DecodedJSON is an exchange as value JSON written straight from the
// bytes (codec's tree-less path): each side, and the secrets blanked.
type DecodedJSON struct {
	APIKey, APIVersion int16
	Request, Response  Side
	Redacted           []string // as Decoded's
}

// DecodeJSON writes both sides of x as value JSON (in the form d.Options
// say), without a tree (a tree is decoded only to find secrets to zero,
// for the few APIs that carry them). What it returns is valid until the
// next call. Secrets are zeroed in x's frames as Decode does, before any
// JSON is written.
func (d *Decoder) DecodeJSON(x *Exchange) DecodedJSON {
	out := DecodedJSON{APIKey: x.APIKey, APIVersion: x.APIVersion}
	if x.SASLToken {
		out.Redacted = d.redactToken(x)
		o := tokenOptions(d.Options)
		if x.Request != nil {
			d.reqJS, out.Request.Info, out.Request.Err = d.req.AppendJSON(d.reqJS[:0], x.Request, o)
			out.Request.JSON = d.reqJS
		}
		if x.Response != nil {
			d.rspJS, out.Response.Info, out.Response.Err = d.rsp.AppendJSON(d.rspJS[:0], x.Response, o)
			out.Response.JSON = d.rspJS
		}
		return out
	}
	if x.Request != nil {
		o := d.Options
		o.Response = false
		if !d.ShowSecrets {
			out.Redacted = ZeroSecrets(&d.zero, x.Request, o, x.APIKey, x.APIVersion, "request", out.Redacted)
		}
		var s Side
		d.reqJS, s.Info, s.Err = d.req.AppendJSON(d.reqJS[:0], x.Request, o)
		s.JSON = d.reqJS
		if s.Err == nil {
			out.APIKey, out.APIVersion = s.Info.APIKey, s.Info.Version
		}
		out.Request = s
	}
	if x.Response == nil {
		return out
	}
	o := d.Options
	o.Response, o.APIKey, o.Version = true, x.APIKey, x.APIVersion
	if x.Request == nil {
		o.APIKey, o.Version = codec.Any, codec.Any // guessed
	} else if !d.ShowSecrets {
		out.Redacted = ZeroSecrets(&d.zero, x.Response, o, x.APIKey, x.APIVersion, "response", out.Redacted)
	}
	var s Side
	// Perhaps the broker's UNSUPPORTED_VERSION answer, at v0.
	d.rspJS, s.Info, s.Err = d.rsp.AppendJSON(d.rspJS[:0], x.Response, o)
	if x.Request == nil {
		if g := s.Info.Guess; g == nil || len(g.Candidates) == 0 {
			out.Response = Side{Err: errors.New("a response that answers no request and fits no API")}
			return out
		}
		out.APIKey, out.APIVersion = s.Info.APIKey, s.Info.Version
		if !d.ShowSecrets {
			var made *codec.Guess
			if out.Redacted, made = ZeroGuessed(&d.zero, x.Response, o, s.Info, out.Redacted); made != nil {
				d.rspJS, s.Info, s.Err = d.rsp.AppendJSON(d.rspJS[:0], x.Response, o)
				if s.Info.Guess == nil || len(s.Info.Guess.Candidates) == 0 {
					s.Info.Guess = made
				}
			}
		}
	}
	s.JSON = d.rspJS
	out.Response = s
	return out
}

// tokenOptions is o for raw SASL tokens: each side its size, then the
// SASL message it holds (codec's Data "sasl").
func tokenOptions(o codec.Options) codec.Options {
	o.Response, o.APIKey, o.Version = false, 0, 0
	o.Data = "sasl"
	return o
}

// redactToken hides the secrets of x's raw SASL tokens (ZeroTokens),
// unless ShowSecrets, and returns the value-JSON paths of what it hid.
func (d *Decoder) redactToken(x *Exchange) []string {
	if d.ShowSecrets {
		return nil
	}
	return ZeroTokens(&d.zero, d.Options, x.Request, x.Response)
}

// ZeroTokens hides the secrets of a raw SASL token and its answer (nil:
// none), decoded with dec as o says but for the SASL message each holds
// after its size: in a message kwire reads, the secret parts are masked
// (maskSASL); a token that is no such message (a Kerberos ticket) is
// zeroed whole after its size. It returns the value-JSON paths of what
// it hid ("request.value.password", "response.value"). An empty token
// holds nothing to hide.
func ZeroTokens(dec *codec.Decoder, o codec.Options, req, rsp []byte) []string {
	o = tokenOptions(o)
	o.Kafka, o.NoSizePrefix = false, false
	var paths []string
	for _, side := range [...]struct {
		b    []byte
		name string
	}{{req, "request"}, {rsp, "response"}} {
		if len(side.b) <= 4 {
			continue
		}
		f, err := dec.Decode(side.b, o)
		var ok bool
		if err == nil && f.Body != nil {
			paths, ok = maskSASL(f.Body, side.b, side.name+".value", paths)
		}
		if !ok {
			clear(side.b[4:])
			paths = append(paths, side.name+".value")
		}
	}
	return paths
}

// maskSASL masks the secret parts of the SASL message read into n (from
// b): each byte of PLAIN's password, SCRAM's proof and the server's
// verifier, a JWT's signature, and a bearer token that is no JWT (after
// its scheme) becomes '*', so that the message still reads as one and its
// parts that hold no secret stay in sight (user names, nonces, salts,
// iteration counts, a JWT's header and claims: who, and until when). It
// appends the masked parts' paths under path, and reports whether n is a
// message read (false: it is bytes, which the caller zeroes whole).
func maskSASL(n *tree.Node, b []byte, path string, paths []string) ([]string, bool) {
	if len(n.Children) == 0 {
		return paths, false
	}
	for _, c := range n.Children {
		if !saslSecret(c.Name) || c.Buf != 0 || c.End <= c.Start {
			continue
		}
		start := c.Start
		if c.Name == "auth" && len(c.Raw) > 7 && strings.EqualFold(string(c.Raw[:7]), "bearer ") {
			start += 7
		}
		for i := start; i < c.End; i++ {
			b[i] = '*'
		}
		paths = append(paths, path+"."+c.Name)
	}
	return paths, true
}

// ZeroSecrets zeroes the secrets of frame b, a request of API key at
// version ver, or its response when o.Response (o as for dec.Decode), and
// appends their value-JSON paths to paths ("request.body.authBytes": side
// is the first step). It decodes b only when it may hold a secret, and
// then with everything nested read through Kafka's own schemas, whatever
// form o asks the JSON in: a password in a __cluster_metadata record is
// zeroed when the records are shown as bytes too. What is written from b
// afterwards shows zeros where the secrets were.
func ZeroSecrets(dec *codec.Decoder, b []byte, o codec.Options, key, ver int16, side string, paths []string) []string {
	if !HasSecrets(key, ver) && !carriesMetadata(key, ver, b) {
		return paths
	}
	o.Kafka, o.Records, o.InternalTopicsAsBytes, o.Payload = false, codec.RecordsDecoded, false, nil
	f, err := dec.Decode(b, o)
	return redact(f, err, b, side, paths)
}

// ZeroGuessed is ZeroSecrets for a response read by guessing: f, read
// from b with o (APIKey and Version Any) by another decoder than dec,
// zeroed as its guess reads it. When it hid anything the caller reads b
// again, and it returns the guess made (a copy: f is its decoder's, which
// the reading again reuses), which the zeroed bytes may no longer give (a
// body zeroed whole); nil when nothing was hidden.
func ZeroGuessed(dec *codec.Decoder, b []byte, o codec.Options, f *codec.Frame, paths []string) ([]string, *codec.Guess) {
	n := len(paths)
	o.APIKey, o.Version = f.APIKey, f.Version
	if paths = ZeroSecrets(dec, b, o, f.APIKey, f.Version, "response", paths); len(paths) == n {
		return paths, nil
	}
	g := *f.Guess
	g.Candidates = slices.Clone(g.Candidates)
	return paths, &g
}

// redact zeroes the bytes of every secret field in f (decoded from b) and
// appends their paths. When decoding failed, the whole body is zeroed:
// what could not be read cannot be shown to hold no secret.
func redact(f *codec.Frame, err error, b []byte, side string, paths []string) []string {
	if err != nil || f == nil || f.Body == nil {
		start := min(len(b), 4)
		if f != nil && f.Body != nil {
			start = f.Body.Start
		} else if f != nil && f.Header != nil {
			start = f.Header.End
		}
		clear(b[start:])
		return append(paths, side+".body")
	}
	var walk func(n *tree.Node, path string)
	walk = func(n *tree.Node, path string) {
		if v := configSecret(n); v != nil {
			clear(b[v.DataStart():v.End])
			paths = append(paths, path+"."+v.Field.JSON)
		}
		for _, c := range n.Children {
			p := path
			switch {
			case c.Role == tree.RoleTags:
				walk(c, path)
				continue
			case c.Role == tree.RoleElement:
				p += "[" + strconv.Itoa(c.Index) + "]"
			case c.Field != nil:
				p += "." + c.Field.JSON
			default:
				continue
			}
			if c.Kind == schema.Records && !c.Null && c.Buf == 0 {
				paths = redactRecords(c, b, p, paths)
				continue
			}
			if c.Field != nil && isSecret(c.Field) && c.Buf == 0 && !c.Null {
				if c.DataStart() == c.End {
					continue // empty: nothing to hide
				}
				var read bool
				if paths, read = maskSASL(c, b, p, paths); !read {
					clear(b[c.DataStart():c.End])
					paths = append(paths, p)
				}
				continue
			}
			if c.Kind == schema.Struct || c.Kind == schema.Array || c.Role == tree.RoleElement {
				walk(c, p)
			}
		}
	}
	walk(f.Body, side+".body")
	return paths
}

// configSecret returns the Value of a configuration entry n whose value
// may be a secret: the entry says it is sensitive (IsSensitive, or a
// ConfigType of PASSWORD), or its name does (sensitiveConfig). Nil when n
// is no such entry, or its value is null.
func configSecret(n *tree.Node) *tree.Node {
	if v := configEntrySecret(n); v != nil && v.Buf == 0 {
		return v
	}
	return nil
}

// configEntrySecret is configSecret in any buffer (decompressed bytes too).
func configEntrySecret(n *tree.Node) *tree.Node {
	v := n.Get("value")
	if v == nil || v.Field == nil || v.Kind != schema.String || v.Null {
		return nil
	}
	name := n.Get("name")
	if name == nil {
		name = n.Get("key")
	}
	if name == nil || name.Kind != schema.String {
		return nil
	}
	if s := n.Get("isSensitive"); s != nil && s.Kind == schema.Bool && s.Int != 0 {
		return v
	}
	if t := n.Get("configType"); t != nil && t.Kind == schema.Int8 && t.Int == configTypePassword {
		return v
	}
	if sensitiveConfig(string(name.Raw)) {
		return v
	}
	return nil
}

// metadataTopicID is __cluster_metadata's id in every cluster (Kafka's
// Uuid.METADATA_TOPIC_ID).
var metadataTopicID = []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}

// carriesMetadata reports whether frame b of apiKey at version ver may
// carry records of __cluster_metadata, which the codec decodes through
// Kafka's schemas: ConfigRecord values of sensitive configs and SCRAM
// credentials among them. Only KRaft's nodes fetch that log (Fetch, from
// the versions that name topics by id by the topic's fixed id) and its
// snapshots (FetchSnapshot), and their requests and responses name that
// one topic, first: the name or id is looked for the way the version
// names topics, in the frame's first metadataWindow bytes. (Searching
// whole frames for both took kwire pcap 8% longer on a capture of
// Fetch and Produce frames; the id, whose first bytes are zeros, is the
// slower search.) A frame that names neither is not decoded twice.
func carriesMetadata(apiKey, ver int16, b []byte) bool {
	switch apiKey {
	case schema.KeyProduce, schema.KeyFetch, schema.KeyFetchSnapshot:
		b = b[:min(len(b), metadataWindow)]
		if at(builtTables.byID[apiKey], ver) {
			return bytes.Contains(b, metadataTopicID)
		}
		return bytes.Contains(b, []byte("__cluster_metadata"))
	}
	return false
}

// metadataWindow is how far into a frame carriesMetadata looks for the
// topic: past the header (its client id), to the first topic's name or id.
const metadataWindow = 1024

// redactRecords zeroes the secrets the codec decoded in the records field
// r (from b): configuration values that may be passwords (ConfigRecord),
// and SCRAM salts and keys (UserScramCredentialRecord). The path of r is
// appended once when any was found. A secret in decompressed bytes
// cannot be zeroed where it lies: the compressed bytes it came from are
// (the batch's records section, or a wrapper message's value), so the
// batch reads as one that does not decompress.
func redactRecords(r *tree.Node, b []byte, path string, paths []string) []string {
	found := false
	var walk func(n, holder *tree.Node)
	walk = func(n, holder *tree.Node) {
		v := configEntrySecret(n)
		if v == nil && n.Field != nil && isSecret(n.Field) && !n.Null {
			v = n
		}
		if v != nil {
			found = true
			if v.Buf == 0 {
				clear(b[v.DataStart():v.End])
			} else if holder != nil {
				clear(b[holder.DataStart():holder.End])
			}
		}
		for _, c := range n.Children {
			h := holder
			if n.Buf == 0 && c.Buf != 0 {
				h = n // the frame's bytes c was decompressed from
			}
			walk(c, h)
		}
	}
	walk(r, nil)
	if !found {
		return paths
	}
	return append(paths, path)
}
