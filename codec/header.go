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
// (after its size prefix when sizePrefix is true), choosing the header
// version from the API key and version as Kafka does.
func ParseRequestHeader(frame []byte, sizePrefix bool) (RequestHeader, error) {
	var h RequestHeader
	r := wire.Reader{B: frame}
	if sizePrefix {
		r.Int32()
	}
	start := r.Off
	h.APIKey, h.APIVersion, h.CorrelationID = r.Int16(), r.Int16(), r.Int32()
	if r.Err != nil {
		return h, &DecodeError{Offset: r.Err.Offset, Path: "header", Expected: r.Err.Expected, Found: r.Err.Found}
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
			return h, &DecodeError{Offset: off, Path: "header.clientId", Expected: "a length of -1 or more", Found: strconv.Itoa(n)}
		case n >= 0:
			b := r.Span(n, "clientId")
			if r.Err == nil {
				s := string(b)
				h.ClientID = &s
			}
		}
	}
	if h.Version >= 2 {
		count := r.Uvarint()
		for i := uint32(0); i < count && r.Err == nil; i++ {
			r.Uvarint()
			r.Span(int(r.Uvarint()), "tagged field")
		}
	}
	if r.Err != nil {
		return h, &DecodeError{Offset: r.Err.Offset, Path: "header", Expected: r.Err.Expected, Found: r.Err.Found}
	}
	h.Len = r.Off - start
	return h, nil
}
