package codec

import (
	"math"
	"strconv"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// appendResponseHeader appends the header of the response to a request
// with this API key and version: the correlation id, then, where the
// response is flexible (header v1), an empty tagged-field section.
// ApiVersions responses always have header v0, so that a client that
// asked with a version the broker does not know can still read them; an
// unknown key gets header v0, a version newer than known that of the
// newest.
func appendResponseHeader(dst []byte, apiKey, version int16, correlationID int32) []byte {
	dst = wire.AppendInt32(dst, correlationID)
	if api := schema.ByKey(apiKey); api != nil {
		v := min(max(version, api.Response.Valid.Lo), api.Response.Valid.Hi)
		if api.Response.HeaderVersion(v) >= 1 {
			dst = wire.AppendUvarint(dst, 0)
		}
	}
	return dst
}

// EncodeResponse appends a whole response frame answering the request
// whose header is h, at version: the size prefix, the response header
// with h's correlation id (header v1, with its tag section, where the
// response is flexible; v0 for ApiVersions, as Kafka answers it), and
// body encoded at version (see Encode for the values it may hold; o's
// Lenient and Dropped apply). version is h.Version, or another one a
// broker answers at (the v0 ApiVersions answer to a version it does not
// know). It is what a broker writes back to the connection the request
// came on.
func EncodeResponse(dst []byte, h RequestHeader, version int16, body map[string]any, o EncodeOptions) ([]byte, error) {
	api := schema.ByKey(h.APIKey)
	if api == nil {
		return nil, &EncodeError{Path: "apiKey", Msg: "unknown API key " + strconv.Itoa(int(h.APIKey))}
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = appendResponseHeader(dst, h.APIKey, version, h.CorrelationID)
	report := holdDropped(&o)
	out, err := encodeBody(dst, h.APIKey, version, true, body, o)
	if err != nil {
		return nil, err
	}
	n := len(out) - start - 4
	if n > math.MaxInt32 {
		return nil, &EncodeError{Msg: "response of " + strconv.Itoa(n) + " bytes is too large for a frame"}
	}
	out[start], out[start+1], out[start+2], out[start+3] = byte(n>>24), byte(n>>16), byte(n>>8), byte(n)
	report()
	return out, nil
}
