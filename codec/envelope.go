package codec

import (
	"strconv"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/jsontext"
)

// appendEnvelopeTail ends a value-JSON envelope: "guess" when the frame
// was read as a guessed response, "warnings" when there are any, then the
// closing brace.
func appendEnvelopeTail(dst []byte, g *Guess, ws []Warning) []byte {
	if g != nil {
		dst = append(dst, `,"guess":`...)
		dst = appendGuess(dst, g)
	}
	if len(ws) > 0 {
		dst = append(dst, `,"warnings":`...)
		dst = AppendWarnings(dst, ws)
	}
	return append(dst, '}')
}

// appendGuess writes how a response was guessed: the confidence, the
// readings tried, whether the work limit cut the search, the other
// versions that read the same, and up to four runners-up.
func appendGuess(dst []byte, g *Guess) []byte {
	dst = append(dst, `{"confidence":`...)
	dst = strconv.AppendFloat(dst, g.Confidence, 'f', 3, 64)
	dst = append(dst, `,"tried":`...)
	dst = strconv.AppendInt(dst, int64(g.Tried), 10)
	dst = append(dst, `,"cut":`...)
	dst = strconv.AppendBool(dst, g.Cut)
	if len(g.Candidates) > 0 && len(g.Candidates[0].Versions) > 0 {
		dst = append(dst, `,"sameAs":[`...)
		for i, v := range g.Candidates[0].Versions {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = strconv.AppendInt(dst, int64(v), 10)
		}
		dst = append(dst, ']')
	}
	if len(g.Candidates) > 1 {
		dst = append(dst, `,"runnersUp":[`...)
		for i, c := range g.Candidates[1:min(len(g.Candidates), 5)] {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = append(dst, `{"apiKey":`...)
			dst = strconv.AppendInt(dst, int64(c.APIKey), 10)
			if api := schema.ByKey(c.APIKey); api != nil {
				dst = append(dst, `,"apiName":`...)
				dst = jsontext.AppendString(dst, []byte(api.Name))
			}
			dst = append(dst, `,"apiVersion":`...)
			dst = strconv.AppendInt(dst, int64(c.Version), 10)
			dst = append(dst, `,"confidence":`...)
			dst = strconv.AppendFloat(dst, c.Confidence, 'f', 3, 64)
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

// AppendWarnings writes warnings as a JSON array of
// {"offset","buf" (when > 0),"path","message","limit" (when true)}.
func AppendWarnings(dst []byte, ws []Warning) []byte {
	dst = append(dst, '[')
	for i, w := range ws {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"offset":`...)
		dst = strconv.AppendInt(dst, int64(w.Offset), 10)
		if w.Buf > 0 {
			dst = append(dst, `,"buf":`...)
			dst = strconv.AppendInt(dst, int64(w.Buf), 10)
		}
		dst = append(dst, `,"path":`...)
		dst = jsontext.AppendString(dst, []byte(w.Path))
		dst = append(dst, `,"message":`...)
		dst = jsontext.AppendString(dst, []byte(w.Message))
		if w.Limit {
			dst = append(dst, `,"limit":true`...)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']')
}
