package check

import (
	"strconv"

	"github.com/kwire/kwire/codec/jsontext"
)

// Side is which frame of an exchange a finding is about.
type Side uint8

// Sides.
const (
	NoSide Side = iota
	Request
	Response
)

// String names the side as findings write it: "request", "response",
// or "" for NoSide.
func (s Side) String() string {
	switch s {
	case Request:
		return "request"
	case Response:
		return "response"
	}
	return ""
}

// Where places a finding: the connection and exchange (or the frame's
// number in a file), the side, the packet that completed the frame, and
// the byte and value-JSON path inside it.
type Where struct {
	Conn        int   // connection id in a capture; 0 for frames from a file
	Frame       int   // 1-based frame number in a file; 0 in a capture
	Correlation int32 // the exchange's correlation id (HasCorrelation)
	HasCorr     bool
	Side        Side
	Packet      int // 1-based packet index (capture), 0 when unknown
	HasOffset   bool
	Offset      int    // byte offset in buffer Buf (HasOffset)
	Buf         int    // 0: the frame; n: its nth decompressed buffer
	Path        string // value-JSON path, e.g. "body.topics[0].partitions[1].records[0].crc"
}

// AppendText appends w as "conn 2 correlation 7 request (packet 15) at
// byte 63 (body.x)".
func (w Where) AppendText(b []byte) []byte {
	start := len(b)
	sp := func() {
		if len(b) > start {
			b = append(b, ' ')
		}
	}
	if w.Conn > 0 {
		b = append(b, "conn "...)
		b = jsontext.AppendInt(b, int64(w.Conn))
	}
	if w.Frame > 0 {
		sp()
		b = append(b, "frame "...)
		b = jsontext.AppendInt(b, int64(w.Frame))
	}
	if w.HasCorr {
		sp()
		b = append(b, "correlation "...)
		b = jsontext.AppendInt(b, int64(w.Correlation))
	}
	if w.Side != NoSide {
		sp()
		b = append(b, w.Side.String()...)
	}
	if w.Packet > 0 {
		sp()
		b = append(b, "(packet "...)
		b = jsontext.AppendInt(b, int64(w.Packet))
		b = append(b, ')')
	}
	if w.HasOffset {
		sp()
		b = append(b, "at byte "...)
		b = jsontext.AppendInt(b, int64(w.Offset))
		if w.Buf > 0 {
			b = append(b, " of derived buffer "...)
			b = jsontext.AppendInt(b, int64(w.Buf))
		}
	}
	if w.Path != "" {
		sp()
		b = append(b, '(')
		b = append(b, w.Path...)
		b = append(b, ')')
	}
	if len(b) == start {
		b = append(b, "capture"...)
	}
	return b
}

// String is the place as a finding's line writes it (AppendText).
func (w Where) String() string { return string(w.AppendText(nil)) }

// Finding is one rule broken at one place, or (Skipped) a rule that could
// not be judged, said once: what it could not see.
type Finding struct {
	Rule     *Rule
	Severity Severity // the rule's
	Where    Where
	What     string // what happened, in words
	Expected string // what Kafka expects there ("" when What says it all)
	Found    string // what was there
	// Skipped marks a rule not judged (the capture started in the middle
	// of a conversation, a limit cut a frame short...): What says why. A
	// skipped rule has severity 0 and fails no run.
	Skipped bool
	// ConnsClosed, in Checker.End's findings, says that every connection
	// the finding is of had closed (Conn.Closed) when End was called:
	// what it says holds as well for a capture whose reading was cut
	// after they closed (kwire check's Ctrl-C). False in every other
	// finding.
	ConnsClosed bool
}

// AppendText appends the finding's line: "RULE severity where: what,
// expected E, found F" (or "RULE skipped where: why").
func (f *Finding) AppendText(b []byte) []byte {
	b = append(b, f.Rule.ID...)
	b = append(b, ' ')
	if f.Skipped {
		b = append(b, "skipped"...)
	} else {
		b = append(b, f.Severity.String()...)
	}
	b = append(b, ' ')
	b = f.Where.AppendText(b)
	b = append(b, ": "...)
	b = append(b, f.What...)
	if f.Expected != "" {
		b = append(b, ", expected "...)
		b = append(b, f.Expected...)
	}
	if f.Found != "" {
		b = append(b, ", found "...)
		b = append(b, f.Found...)
	}
	return b
}

// String is the finding's line, as AppendText writes it.
func (f *Finding) String() string { return string(f.AppendText(nil)) }

// AppendJSON appends the finding as one JSON object: rule, severity
// ("skipped" for a rule not judged), level, where (conn, frame,
// correlationId, side, packet, offset, buf, path: those known), what,
// expected, found.
func (f *Finding) AppendJSON(b []byte) []byte {
	b = append(b, `{"rule":`...)
	b = jsontext.AppendString(b, []byte(f.Rule.ID))
	b = append(b, `,"severity":"`...)
	if f.Skipped {
		b = append(b, "skipped"...)
	} else {
		b = append(b, f.Severity.String()...)
	}
	b = append(b, `","level":"`...)
	b = append(b, f.Rule.Level.String()...)
	b = append(b, `","where":{`...)
	w := f.Where
	n := 0
	key := func(k string) {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		b = append(b, '"')
		b = append(b, k...)
		b = append(b, `":`...)
	}
	// num writes key k with the number v when the finding has it (ok).
	num := func(k string, v int, ok bool) {
		if ok {
			key(k)
			b = jsontext.AppendInt(b, int64(v))
		}
	}
	num("conn", w.Conn, w.Conn > 0)
	num("frame", w.Frame, w.Frame > 0)
	num("correlationId", int(w.Correlation), w.HasCorr)
	if w.Side != NoSide {
		key("side")
		b = append(b, '"')
		b = append(b, w.Side.String()...)
		b = append(b, '"')
	}
	num("packet", w.Packet, w.Packet > 0)
	num("offset", w.Offset, w.HasOffset)
	num("buf", w.Buf, w.HasOffset && w.Buf > 0)
	if w.Path != "" {
		key("path")
		b = jsontext.AppendString(b, []byte(w.Path))
	}
	b = append(b, `},"what":`...)
	b = jsontext.AppendString(b, []byte(f.What))
	if f.Expected != "" {
		b = append(b, `,"expected":`...)
		b = jsontext.AppendString(b, []byte(f.Expected))
	}
	if f.Found != "" {
		b = append(b, `,"found":`...)
		b = jsontext.AppendString(b, []byte(f.Found))
	}
	return append(b, '}')
}

// RefusedSize is what check says of a client's first frame, in packet of
// connection conn captured from its start, whose size prefix (size) a
// broker refuses: a negative one, or one over socket.request.max.bytes
// (NetworkReceive: "Invalid receive"). The broker closes the connection.
func RefusedSize(conn, packet int, size int64) Finding {
	return Finding{Rule: FrameSize, Severity: FrameSize.Severity, Where: Where{Conn: conn, Packet: packet},
		What:     "the connection's first frame declares a size a broker refuses (a negative one, or one over socket.request.max.bytes, 100 MiB by default); it closes the connection",
		Expected: "a size from 8 to 104857599", Found: strconv.FormatInt(size, 10)}
}

// Unframed is what check says of bytes a capture holds whole, from their
// connection's start (packet in connection conn), that no frame reading
// could take (why): the reader skipped them to resynchronise, so what
// they hold is not judged, and the finding says so (no finding would).
func Unframed(conn, packet int, why string) Finding {
	return Finding{Rule: FrameSize, Where: Where{Conn: conn, Packet: packet}, Skipped: true,
		What: "bytes of a connection captured from its start do not read as a frame (" + why + "): the capture skipped them to resynchronise, and what they hold is not judged"}
}
