package input

import (
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// HasSizePrefix reports whether b starts with a 4-byte big-endian int32
// equal to len(b)-4, i.e. whether b is exactly one size-prefixed Kafka frame.
func HasSizePrefix(b []byte) bool {
	n, ok := wire.SizePrefix(b)
	return ok && n >= 0 && int64(n) == int64(len(b))-4
}

// SplitFrames splits back-to-back size-prefixed frames (a TCP stream's
// worth). It returns the frames, each INCLUDING its 4-byte prefix, and any
// bytes at the end that do not form a whole frame. A size prefix that is
// negative, larger than what remains, or larger than maxFrame (when
// maxFrame > 0) ends the split; the rest is returned as rest.
//
// The frames and rest share b's memory; each frame's capacity is capped at
// its length, so appending to one does not overwrite the next.
func SplitFrames(b []byte, maxFrame int) (frames [][]byte, rest []byte) {
	for {
		f, r, ok := wire.SplitFrame(b, maxFrame)
		if !ok {
			break
		}
		frames, b = append(frames, f), r
	}
	if len(b) == 0 {
		return frames, nil
	}
	return frames, b
}

// LooksSizePrefixed decides whether one frame starts with its 4-byte size
// prefix when the user did not say: yes when the size matches the bytes
// that follow (HasSizePrefix), and yes when it exceeds them the way a
// truncated frame's would (8 bytes to 64 KiB), so that the decode error
// can say how much is missing; and yes when it falls short of them by 1
// to 3 bytes, too few to start another frame: a frame with a few bytes
// after it, which its decoding reports. Without a prefix a request starts with its
// API key and version, which read as a size of a few million for keys
// above 0 and a few bytes for Produce.
//
// It is also yes for an int32 no unprefixed frame starts with: negative,
// or 2^24 and more (a request's API key is below 256; a response's
// correlation id that large is rare). Such a frame fails with an error at
// "size" instead of being guessed at; a size switch of "no" reads it
// otherwise. And it is yes for a size past the bytes of any amount when a
// request header as clients send it follows (a known API at one of its
// versions, a printable client id): a request cut short, however big
// (a Produce of megabytes cut by a snap length). The CLI, the API and the
// playground all decide with this.
func LooksSizePrefixed(b []byte) bool {
	if HasSizePrefix(b) {
		return true
	}
	size, ok := wire.SizePrefix(b)
	n := int(size)
	tail := len(b) - 4 - n
	if !ok {
		return false
	}
	if n > len(b)-4 && n >= 8 && n < 1<<16 || n < 0 || n >= 1<<24 || tail > 0 && tail < 4 {
		return true
	}
	_, headed := RequestHeader(b, true)
	if !headed {
		return false
	}
	// A size that does not fit the bytes (too small: a size that lies,
	// or more frames after it) but a request header as clients send it
	// after it, where the bytes read without a size make no such header
	// (the size's bytes as an API key and version none has): the size
	// is the frame's, and the decoder says at byte 0 that it lies,
	// rather than reading an API version no Kafka has.
	_, bare := RequestHeader(b, false)
	return n > len(b)-4 || !bare
}

// RequestHeader is the header b starts with (after its size prefix when
// sized) when it is a request header as clients send it: a known API at
// one of its versions and a client id of printable text. ok is false for
// anything else.
func RequestHeader(b []byte, sized bool) (h codec.RequestHeader, ok bool) {
	h, err := codec.ParseRequestHeader(b, codec.Options{NoSizePrefix: !sized})
	if err != nil || h.ClientID == nil || *h.ClientID == "" || !utf8.ValidString(*h.ClientID) {
		return h, false
	}
	if api := schema.ByKey(h.APIKey); api == nil || !api.Request.Valid.Contains(h.Version) {
		return h, false
	}
	for _, c := range *h.ClientID {
		if c < 0x20 || c == 0x7f {
			return h, false
		}
	}
	return h, true
}

// SizeMode says whether a frame carries its 4-byte size prefix: as the
// user said (SizeYes, SizeNo), or SizeAuto, decided from the bytes.
type SizeMode uint8

// The size prefix modes ParseSizeMode returns.
const (
	SizeAuto SizeMode = iota
	SizeYes
	SizeNo
)

// ParseSizeMode parses the size prefix switch of the CLI (--size), the API
// (?sizePrefix=) and the playground: "auto" (or ""), "yes" ("true", "1")
// or "no" ("false", "0"). Case and surrounding space are ignored. An
// unknown word is an error, with SizeAuto.
func ParseSizeMode(s string) (SizeMode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "auto":
		return SizeAuto, nil
	case "yes", "true", "1":
		return SizeYes, nil
	case "no", "false", "0":
		return SizeNo, nil
	}
	return SizeAuto, &Error{Offset: -1, Err: ErrMode,
		Msg: "unknown size prefix mode " + strconv.Quote(s) + " (want auto, yes or no)"}
}

// SizedTrying is Sized with one more test for SizeAuto, for bytes read
// as one frame: bytes that split into whole frames and more (a stream's
// worth, or one cut short), which LooksSizePrefixed leaves unsized, are
// read with their size prefix when the first frame DecodesClean as o
// says; the first frame is then read, the bytes after it reported.
func (m SizeMode) SizedTrying(b []byte, o codec.Options) bool {
	if m != SizeAuto || LooksSizePrefixed(b) {
		return m.Sized(b)
	}
	fr, _, ok := wire.SplitFrame(b, 0)
	var dec codec.Decoder
	return ok && DecodesClean(&dec, fr, o)
}

// DecodesClean says whether the frame fr, read with its size prefix and
// otherwise as o says, decodes without an error, a warning or a guess. It
// tells whole frames followed by more bytes from an unsized frame whose
// first bytes happen to read as sizes: such a chance frame fails, or is
// read only by guessing (any few bytes read as some response).
func DecodesClean(dec *codec.Decoder, fr []byte, o codec.Options) bool {
	o.NoSizePrefix = false
	info, err := dec.WriteJSON(io.Discard, fr, o)
	return err == nil && len(info.Warnings) == 0 && info.Guess == nil
}

// Sized says whether the one frame b starts with its size prefix: as m
// says, or for SizeAuto as LooksSizePrefixed decides.
func (m SizeMode) Sized(b []byte) bool {
	switch m {
	case SizeYes:
		return true
	case SizeNo:
		return false
	}
	return LooksSizePrefixed(b)
}
