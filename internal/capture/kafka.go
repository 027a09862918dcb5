package capture

import (
	"encoding/binary"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
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
const (
	newerAPIs     = 16
	newerVersions = 8
)

// maxKnownKey is the highest API key in the tables.
var maxKnownKey = func() int16 {
	var k int16
	for _, a := range schema.APIs() {
		k = max(k, a.Key)
	}
	return k
}()

// produceAPI is the Produce API in the tables.
var produceAPI = schema.ByKey(schema.KeyProduce)

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
// far as b (which starts at the size prefix) goes.
func plausibleAPI(b []byte) bool {
	if len(b) < 6 {
		return true
	}
	key := int16(binary.BigEndian.Uint16(b[4:]))
	if !plausibleKey(key) {
		return false
	}
	return len(b) < 8 || plausibleVersion(key, int16(binary.BigEndian.Uint16(b[6:])))
}

// layoutVersion is the version whose layout and header version the tables
// give for version v of m: v itself, or m's newest for a newer v.
func layoutVersion(m *schema.Message, v int16) int16 {
	return min(v, m.Valid.Hi)
}

// skipFields advances r over the fields of l present at version v, up to
// (not including) the field named stop, or over all of them and the
// tagged-field section when stop is "". It reports false when a field is
// of a kind it cannot skip or the bytes end.
func skipFields(r *wire.Reader, l *schema.Layout, v int16, flex bool, stop string) bool {
	for i := range l.Fields {
		f := &l.Fields[i]
		if f.Name == stop {
			return r.Err == nil
		}
		if !f.Versions.Contains(v) || f.IsTagged(v) {
			continue
		}
		switch {
		case f.Kind.FixedSize() > 0:
			r.Span(f.Kind.FixedSize(), f.Name)
		case f.Kind == schema.String || f.Kind == schema.Bytes:
			var n int
			switch {
			case f.CompactAt(v, flex):
				n = int(r.Uvarint()) - 1
			case f.Kind == schema.String:
				n = int(r.Int16())
			default:
				n = int(r.Int32())
			}
			if n > 0 {
				r.Span(n, f.Name)
			}
		default:
			return false
		}
		if r.Err != nil {
			return false
		}
	}
	if stop != "" {
		return false
	}
	if flex {
		skipTags(r)
	}
	return r.Err == nil
}

// skipTags advances r over a tagged-field section.
func skipTags(r *wire.Reader) {
	for n := r.Uvarint(); n > 0 && r.Err == nil; n-- {
		r.Uvarint()
		r.Span(int(r.Uvarint()), "tagged field")
	}
}

// skipRequestHeader advances r (at the header) over a request header of
// API key at version ver.
func skipRequestHeader(r *wire.Reader, key, ver int16) bool {
	hv := int16(1)
	if a := schema.ByKey(key); a != nil {
		hv = a.Request.HeaderVersion(layoutVersion(a.Request, ver))
	}
	h := schema.RequestHeader()
	d := h.At(hv)
	if d == nil {
		return false
	}
	return skipFields(r, d.Root, hv, h.Flexible(hv), "")
}

// produceAcks returns the acks field of a Produce request frame (size
// prefix included) at version ver, or -2 if it can't be read.
func produceAcks(b []byte, ver int16) int {
	if produceAPI == nil || ver < 0 {
		return -2
	}
	r := wire.Reader{B: b, Off: 4}
	if !skipRequestHeader(&r, produceAPI.Key, ver) {
		return -2
	}
	m := produceAPI.Request
	lv := layoutVersion(m, ver)
	d := m.At(lv)
	if d == nil || !skipFields(&r, d.Root, lv, m.Flexible(lv), "Acks") {
		return -2
	}
	acks := r.Int16()
	if r.Err != nil {
		return -2
	}
	return int(acks)
}
