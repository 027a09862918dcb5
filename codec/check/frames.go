package check

// FromFrames pairs frames read from a file (each whole, its size prefix
// included) as one connection's conversation, in order: a frame whose
// correlation id answers a request still waiting, and which does not read
// cleanly as a request itself, is that request's response (paired even
// out of order, as a capture pairs them); any other frame that may be a
// request is one, unless it does not read as one but reads cleanly as a
// response of some API and version (tried for the first maxGuessed such
// frames), which is read as that response; a frame cut short (its size
// says more bytes follow than there are) that answers no request and does
// not start as a client's request is said to be cut, and judged as nothing
// else; the rest are responses to no request seen, not decoded. A file of responses alone, read so, is not a
// conversation from its start: none of them is a stray for answering no
// request.
func FromFrames(frames [][]byte) []Exchange { return FromFramesLimits(frames, Limits{}) }

// FromFramesLimits is FromFrames decoding each frame within limits.
func FromFramesLimits(frames [][]byte, limits Limits) []Exchange {
	r := reader{limits: limits}
	conn := &Conn{FromStart: true, Closed: true} // a file holds a whole conversation
	type waiting struct {
		x        Exchange
		corr     int32
		key, ver int16
	}
	var wait []*waiting
	var out []Exchange
	guessed, requests, responses := 0, false, false
	for i, f := range frames {
		n := i + 1
		corr := int32(-1)
		if len(f) >= 8 {
			corr = int32(uint32(f[4])<<24 | uint32(f[5])<<16 | uint32(f[6])<<8 | uint32(f[7]))
		}
		j := -1
		for k, w := range wait {
			if w.corr == corr {
				j = k
				break
			}
		}
		isResponse := false
		if j >= 0 {
			// Both readings are tried: a response's bytes can read as a
			// request too (a correlation id 2 looks like Produce v2).
			w := wait[j]
			isResponse = r.asResponse(f, w.key, w.ver) || !r.cleanRequest(f)
		}
		if isResponse {
			w := wait[j]
			for _, o := range wait[:j] {
				if o.x.Overtaken == 0 {
					o.x.OvertakenBy = corr
				}
				o.x.Overtaken++
			}
			w.x.Overtook = j
			w.x.Response, w.x.ResponseFrame = f, n
			out = append(out, w.x)
			wait = append(wait[:j], wait[j+1:]...)
			continue
		}
		if cutShort(f) && !r.cutRequest(f) {
			// Cut short and not a client's request: most likely a
			// response, whose API a guess cannot tell from part of its
			// bytes (its correlation id 7 reads as Produce v7).
			out = append(out, Exchange{Conn: conn, Response: f, ResponseFrame: n, cut: true})
			continue
		}
		if len(f) >= 12 && plausibleKey(f) && guessed < maxGuessed {
			lonely, tried := r.lonelyResponse(f)
			if tried {
				guessed++
			}
			if lonely {
				responses = true
				out = append(out, Exchange{Conn: conn, Response: f, ResponseFrame: n, GuessResponse: true})
				continue
			}
		}
		if len(f) >= 12 && plausibleKey(f) {
			rc := int32(uint32(f[8])<<24 | uint32(f[9])<<16 | uint32(f[10])<<8 | uint32(f[11]))
			requests = true
			x := Exchange{Conn: conn, Request: f, RequestFrame: n, NoResponseExpected: r.acksZero(f)}
			if x.NoResponseExpected {
				out = append(out, x)
				continue
			}
			for _, w := range wait {
				if w.corr == rc {
					x.ReusedCorrelation = true
				}
			}
			key := int16(uint16(f[4])<<8 | uint16(f[5]))
			ver := int16(uint16(f[6])<<8 | uint16(f[7]))
			wait = append(wait, &waiting{x: x, corr: rc, key: key, ver: ver})
			continue
		}
		out = append(out, Exchange{Conn: conn, Response: f, ResponseFrame: n})
	}
	for _, w := range wait {
		out = append(out, w.x)
	}
	if responses && !requests {
		// Responses alone: frames cut from a conversation, not one from
		// its start, so none is a stray for answering no request.
		conn.FromStart = false
	}
	return out
}

// cutShort reports whether frame f's size prefix says more bytes follow
// than there are.
func cutShort(f []byte) bool {
	return len(f) >= 4 && int64(int32(uint32(f[0])<<24|uint32(f[1])<<16|uint32(f[2])<<8|uint32(f[3]))) > int64(len(f)-4)
}

// plausibleKey reports whether a frame's header names an API key from 0
// to a little past the newest Kafka defines (a newer Kafka's requests are
// requests too).
func plausibleKey(f []byte) bool {
	key := int16(uint16(f[4])<<8 | uint16(f[5]))
	return key >= 0 && key <= maxKey()+16
}

// maxGuessed bounds the frames of a file that do not read as requests whose
// reading as a response is guessed: a guess reads a frame hundreds of
// times.
const maxGuessed = 256
