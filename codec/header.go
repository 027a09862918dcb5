package codec

import (
	"strconv"

	"github.com/kwire/kwire/codec/internal/read"
	"github.com/kwire/kwire/codec/schema"
)

// RequestHeader is the parsed header of a request: what a proxy or broker
// routes by, named as Frame names them.
type RequestHeader struct {
	APIKey        int16
	Version       int16 // the API version the request is at
	HeaderVersion int16
	CorrelationID int32
	ClientID      *string // nil when null or absent (header v0)
	Size          int     // the header's length in bytes
}

// ParseRequestHeader parses the header at the start of a request frame
// (after its 4-byte size prefix, unless o.NoSizePrefix; o's other fields
// are not used), choosing the header version from the API key and version
// as Kafka does. It reads the header alone, which is quicker than Decode
// when a request is only routed. A header cut short is a *DecodeError
// naming the field (header.requestApiKey, ...) whose cause is
// wire.ErrShort.
func ParseRequestHeader(frame []byte, o Options) (RequestHeader, error) {
	var h RequestHeader
	r := read.Reader{B: frame}
	if !o.NoSizePrefix {
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
	h.Version = r.Int16()
	if r.Err != nil {
		return h, wireDecodeError(r.Err, 0, "header.requestApiVersion")
	}
	h.CorrelationID = r.Int32()
	if r.Err != nil {
		return h, wireDecodeError(r.Err, 0, "header.correlationId")
	}
	h.HeaderVersion = 1
	if api := schema.ByKey(h.APIKey); api != nil {
		h.HeaderVersion = api.Request.HeaderVersion(min(h.Version, api.Request.Valid.Hi))
	}
	if h.HeaderVersion >= 1 {
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
	if h.HeaderVersion >= 2 {
		count := r.Uvarint()
		for i := uint32(0); i < count && r.Err == nil; i++ {
			r.Uvarint()
			r.Span(int(r.Uvarint()), "tagged field")
		}
		if r.Err != nil {
			return h, wireDecodeError(r.Err, 0, "header._tagged")
		}
	}
	h.Size = r.Off - start
	return h, nil
}
