package codec

import (
	"strconv"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
)

// appendGuess writes how a response was guessed: the confidence, the
// readings tried, whether the work limit cut the search, the other
// versions that read the same, and up to four runners-up.
func appendGuess(dst []byte, g *Guess) []byte {
	dst = appendNum(append(dst, `{"confidence":`...), g.Confidence)
	dst = jsontext.AppendInt(append(dst, `,"tried":`...), int64(g.Tried))
	dst = strconv.AppendBool(append(dst, `,"cut":`...), g.Cut)
	if len(g.Candidates) > 0 && len(g.Candidates[0].Versions) > 0 {
		dst = append(dst, `,"sameAs":`...)
		dst = appendVersions(dst, g.Candidates[0].Versions)
	}
	if len(g.Candidates) > 1 {
		dst = append(dst, `,"runnersUp":[`...)
		for i, c := range g.Candidates[1:min(len(g.Candidates), 5)] {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = jsontext.AppendInt(append(dst, `{"apiKey":`...), int64(c.APIKey))
			if api := schema.ByKey(c.APIKey); api != nil {
				dst = jsontext.AppendString(append(dst, `,"apiName":`...), []byte(api.Name))
			}
			dst = jsontext.AppendInt(append(dst, `,"apiVersion":`...), int64(c.Version))
			dst = append(appendNum(append(dst, `,"confidence":`...), c.Confidence), '}')
		}
		dst = append(dst, ']')
	}
	return append(dst, '}')
}

func appendNum(dst []byte, x float64) []byte { return strconv.AppendFloat(dst, x, 'f', 3, 64) }

func appendVersions(dst []byte, vs []int16) []byte {
	dst = append(dst, '[')
	for i, v := range vs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsontext.AppendInt(dst, int64(v))
	}
	return append(dst, ']')
}

// appendWarning writes one warning as JSON: {"offset","buf" (when > 0),
// "path","message","limit" (when true)}.
func appendWarning(dst []byte, w *Warning) []byte {
	dst = jsontext.AppendInt(append(dst, `{"offset":`...), int64(w.Offset))
	if w.Buf > 0 {
		dst = jsontext.AppendInt(append(dst, `,"buf":`...), int64(w.Buf))
	}
	dst = jsontext.AppendString(append(dst, `,"path":`...), []byte(w.Path))
	dst = jsontext.AppendString(append(dst, `,"message":`...), []byte(w.Message))
	if w.Limit {
		dst = append(dst, `,"limit":true`...)
	}
	return append(dst, '}')
}
