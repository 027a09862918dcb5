package codec

import (
	"strconv"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// RequestHeader is the parsed header of a request.
type RequestHeader struct {
	APIKey        int16
	APIVersion    int16
	CorrelationID int32
	ClientID      *string // nil when null or absent (header v0)
	Version       int16   // the header version
	Len           int     // header length in bytes
}

// ParseRequestHeader parses the header at the start of a request frame
// (after its 4-byte size prefix, unless noSizePrefix says the frame starts
// at the header, as Options.NoSizePrefix does), choosing the header
// version from the API key and version as Kafka does. A header cut short is
// a *DecodeError naming the field (header.requestApiKey, ...) whose cause
// is wire.ErrShort.
func ParseRequestHeader(frame []byte, noSizePrefix bool) (RequestHeader, error) {
	var h RequestHeader
	r := wire.Reader{B: frame}
	if !noSizePrefix {
		r.Int32()
		if r.Err != nil {
			return h, wireDecodeError(r.Err, 0, "size")
		}
	}
	start := r.Off
	h.APIKey = r.Int16()
	if r.Err != nil {
		return h, wireDecodeError(r.Err, 0, "header.requestApiKey")
	}
	h.APIVersion = r.Int16()
	if r.Err != nil {
		return h, wireDecodeError(r.Err, 0, "header.requestApiVersion")
	}
	h.CorrelationID = r.Int32()
	if r.Err != nil {
		return h, wireDecodeError(r.Err, 0, "header.correlationId")
	}
	h.Version = 1
	if api := schema.ByKey(h.APIKey); api != nil {
		v := h.APIVersion
		if v > api.Request.Valid.Hi {
			v = api.Request.Valid.Hi
		}
		h.Version = api.Request.HeaderVersion(v)
	}
	if h.Version >= 1 {
		off := r.Off
		n := int(r.Int16())
		switch {
		case r.Err != nil:
		case n < -1:
			return h, newDecodeError(off, 0, "header.clientId", "a length of -1 or more", strconv.Itoa(n), nil)
		case n >= 0:
			b := r.Span(n, "clientId")
			if r.Err == nil {
				s := string(b)
				h.ClientID = &s
			}
		}
		if r.Err != nil {
			return h, wireDecodeError(r.Err, 0, "header.clientId")
		}
	}
	if h.Version >= 2 {
		count := r.Uvarint()
		for i := uint32(0); i < count && r.Err == nil; i++ {
			r.Uvarint()
			r.Span(int(r.Uvarint()), "tagged field")
		}
		if r.Err != nil {
			return h, wireDecodeError(r.Err, 0, "header._tagged")
		}
	}
	h.Len = r.Off - start
	return h, nil
}
