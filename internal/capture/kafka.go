package capture

import (
	"encoding/binary"
	"sync"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/tree"
)

// What the capture layer knows of Kafka beyond framing comes from the
// generated tables: which API keys and versions exist (to judge whether
// bytes look like a request header), the request header's layout and the
// fields of a Produce request before acks (to tell acks=0 requests, which
// are never answered).

// A newer Kafka than the tables knows adds APIs and versions; requests
// using them must still frame. So a request header is plausible when its
// key is at most newerAPIs past the highest key known and its version at
// most newerVersions past the API's newest (or past 0 for an unknown key).
// This is a policy, not a protocol fact: a wider margin lets more garbage
// pass as a frame start while resynchronising.
//
// A version further past an API's newest (v99 of Metadata: a client far
// newer than kwire, or one probing) is taken only on stronger evidence,
// so that the margin keeps out what it kept out: the API key must be
// one the tables know, and the header must carry a client id of at
// least farClientID printable ASCII characters, wholly within the frame
// its size declares (farVersion). Kafka's clients send one ("rdkafka",
// "kgo", "producer-1"); random bytes rarely read so, and a response's
// body, whose first bytes a request's client id length would be, rarely
// does: its lengths and counts start with a zero byte. Resynchronising
// asks more of such a frame (reqCandidate). A request at such a version
// with a null, short (1 or 2 bytes) or binary client id is taken for one
// only when the same client's next request vouches for it: the frame
// after it, resynchronising (farChained), or the one before it, in sync
// (follows), with the same client id and a correlation id a little
// before, as a client numbers its requests; random bytes, mostly zeros
// or not, do not read so (TestFarVersionChainsRandomBytes). Not with an
// empty client id, which is what zeros read as.
const (
	newerAPIs     = 16
	newerVersions = 8
	farClientID   = 3
)

// maxKnownKey is the highest API key in the tables.
var maxKnownKey = func() int16 {
	var k int16
	for _, a := range schema.APIs() {
		k = max(k, a.Key)
	}
	return k
}()

// plausibleKey reports whether key can be an API key of a request.
func plausibleKey(key int16) bool {
	return key >= 0 && key <= maxKnownKey+newerAPIs
}

// plausibleVersion reports whether ver can be a version of API key (a
// plausible key).
func plausibleVersion(key, ver int16) bool {
	hi := int16(0)
	if a := schema.ByKey(key); a != nil {
		hi = a.Request.Valid.Hi
	}
	return ver >= 0 && int(ver) <= int(hi)+newerVersions
}

// plausibleAPI checks the apiKey and apiVersion of a request header as
// far as b (which starts at the size prefix) goes: for a version past
// plausibleVersion's margin, the evidence farVersion asks for, as far as
// b goes.
func plausibleAPI(b []byte) bool {
	if len(b) < 6 {
		return true
	}
	key := int16(binary.BigEndian.Uint16(b[4:]))
	if !plausibleKey(key) {
		return false
	}
	if len(b) < 8 {
		return true
	}
	ver := int16(binary.BigEndian.Uint16(b[6:]))
	return plausibleVersion(key, ver) || farVersion(b, key, ver, false)
}

// isFarVersion reports whether the request header at b (8 bytes or more)
// names an API the tables know at a version past plausibleVersion's
// margin: one that only farVersion's evidence makes a request.
func isFarVersion(b []byte) bool {
	key, ver := int16(binary.BigEndian.Uint16(b[4:])), int16(binary.BigEndian.Uint16(b[6:]))
	return ver >= 0 && schema.ByKey(key) != nil && !plausibleVersion(key, ver)
}

// farVersion reports whether the request header at b (8 bytes or more),
// of API key at version ver past plausibleVersion's margin, carries the
// evidence such a version needs (see newerVersions): the key one the
// tables know, a client id of farClientID printable ASCII characters or
// more, within the frame its size declares. As far as b goes, unless
// whole: then the client id must be all there.
func farVersion(b []byte, key, ver int16, whole bool) bool {
	if ver < 0 || schema.ByKey(key) == nil {
		return false
	}
	if len(b) < 14 {
		return !whole
	}
	size := int64(binary.BigEndian.Uint32(b))
	cl := int(int16(binary.BigEndian.Uint16(b[12:])))
	if cl < farClientID || int64(cl) > size-10 || whole && len(b) < 14+cl {
		return false
	}
	for _, ch := range b[14:min(len(b), 14+cl)] {
		if ch < 0x20 || ch > 0x7e {
			return false
		}
	}
	return true
}

// produceAcks returns the acks field of a Produce request frame (size
// prefix included), or -2 if it can't be read. The codec reads as far as
// acks (its node limit stops it soon after, records are left as bytes).
func produceAcks(b []byte, ver int16) int {
	dec := acksDecoders.Get().(*codec.Decoder)
	defer acksDecoders.Put(dec)
	f, _ := dec.Decode(b, codec.Options{Records: codec.RecordsSize, Limits: codec.Limits{MaxNodes: 64}})
	if f.APIKey != schema.KeyProduce || f.Version != ver {
		return -2
	}
	if n := f.Body.Get("acks"); n != nil && n.Flags&tree.Broken == 0 {
		return int(n.Int)
	}
	return -2
}

var acksDecoders = sync.Pool{New: func() any { return new(codec.Decoder) }}
