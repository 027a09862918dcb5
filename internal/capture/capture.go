// Package capture reads pcap and pcapng files and turns the TCP traffic in
// them into Kafka conversations: per connection, a list of request/response
// frame pairs matched by correlation id. Kafka bodies are not decoded; each
// Frame carries the raw bytes of one size-prefixed Kafka frame (prefix
// included) for a codec to decode later.
//
// The file formats (pcapfile.go) and the link, IP and TCP headers
// (packet.go) are read by hand, without libpcap or cgo, so the package
// builds for GOOS=js GOARCH=wasm and stays small there.
//
// Bytes a peer acknowledged that the capture has not shown (yet) are
// waited for a while (256 packets of the capture): captures from several
// queues or interfaces show some segments after the ACK that covers
// them. Meanwhile the peer's frames are held, so that its answer is
// paired once the request is whole; bytes that do not come are declared
// lost, as a gap.
//
// The package never panics on malformed input and bounds its memory: the
// out-of-order data of one TCP direction is capped by
// Options.MaxStreamBuffer (and so are the frames a connection holds while
// it waits for acknowledged bytes, at most 1024: past that, the oldest
// holes are declared lost, as many as that takes), a single frame by
// Options.MaxFrame, what all connections hold for frames not yet whole
// (their bytes so far, out-of-order segments, frames waiting for a
// connection's broker side, responses held in case their request is
// framed late) by Options.MaxBuffered, and the
// requests waiting for their response by Options.MaxWaiting and
// MaxWaitingBytes. A frame being gathered costs about its size (past 1
// MiB, in chunks that are never copied until it is whole), and segments
// out of order O(log n) each, whatever order they come in. ReadFunc hands exchanges out as they complete and
// forgets closed connections, so its memory follows the open connections,
// the waiting requests and the unpaired responses held in case their
// request is framed late (at most 16 a connection and 1,024 or
// MaxWaitingBytes in all, within MaxBuffered), not the size of the
// capture.
package capture

import (
	"bufio"
	"errors"
	"io"
	"net/netip"
	"sort"
	"strconv"
	"time"

	"github.com/kwire/kwire/internal/textfmt"
)

// Options control Read and ReadFunc. The zero value is usable.
type Options struct {
	// BrokerPorts are the TCP ports Kafka brokers listen on. A connection
	// with one of these ports on one side has its broker on that side.
	// Connections where neither port is listed are inspected and kept if
	// one side sends frames that parse as Kafka requests. Default {9092}.
	BrokerPorts []uint16
	// MaxFrame is the largest acceptable value of a frame's 4-byte size
	// prefix (exclusive). Larger sizes are treated as garbage and cause a
	// resynchronisation. Default 100 MiB.
	MaxFrame int
	// MaxStreamBuffer caps the out-of-order bytes buffered per TCP
	// direction; when exceeded, the missing bytes are declared lost (a gap)
	// and the stream resynchronises. Default 16 MiB.
	MaxStreamBuffer int
	// MaxBuffered caps the bytes held over all connections for what is
	// not framed or paired yet: the frames being gathered (their bytes so far),
	// out-of-order segments, frames waiting for their connection's
	// broker side to be known, and responses held in case their request
	// is framed late (see ReadFunc). Past it, those responses go first,
	// handed out unpaired, the oldest first (no bytes are lost, only
	// their late pairing); then the connection whose packet took the
	// total past it gives way: its out-of-order bytes are declared lost
	// (gaps, as past MaxStreamBuffer), the frame it is gathering is
	// skipped, not held (its bytes so far dropped, the rest streamed past
	// as they come: a gap of the connection, Conn.Gaps), and its waiting
	// frames are placed. A note says each (Note.Limit). Default 256 MiB.
	MaxBuffered int
	// MaxWaiting and MaxWaitingBytes bound the requests, over all
	// connections, that wait for their response: their number and the
	// bytes of their frames. When either is exceeded the request that has
	// waited longest is given up on: handed out unanswered with Evicted
	// set and counted in Result.Evicted (a response that comes for it
	// later is an unpaired response). Defaults 65536 and 128 MiB.
	MaxWaiting      int
	MaxWaitingBytes int
	// KeepDamaged hands on a frame a gap (bytes lost, or cut by the snap
	// length) cut into, with what was captured of it before the gap
	// (Frame.Missing says how much was not), when that holds its header:
	// a request's API key, version and correlation id, a response's
	// correlation id. A request so kept pairs with its answer, which
	// then reads as the API and version the request names, rather than
	// answering nothing. Unset, such a frame is dropped (a note says so).
	// A reader that sets it sees frames that do not decode whole: their
	// bytes end early, not the sender's encoding.
	KeepDamaged bool
	// KeyLog, when set, decrypts the TLS connections whose secrets it
	// holds (TLS 1.2 and 1.3, AEAD cipher suites), from their ClientHello
	// on; a pcapng file's decryption secrets blocks add to it. A TLS
	// connection it cannot decrypt is said in a note, as without it.
	KeyLog *KeyLog
	// KeyLogUpdate, when set, is called when a TLS session's secrets are
	// not in the key log: it returns the key log read again, or nil when
	// nothing changed. In a live capture the client writes its secrets as
	// its handshake goes, so a session's are looked for again when its
	// first encrypted record comes, and KeyLogUpdate may wait a moment for
	// them (kwire pcap -, a quarter of a second at most).
	KeyLogUpdate func() *KeyLog
	// Buffer, when set, gives the slice (length 0, capacity at least n)
	// a frame's n bytes are copied into, so that a reader done with an
	// exchange's frames can hand their buffers out again (kwire pcap
	// does): the copies then cost no allocation, and no garbage
	// collection. Unset, each frame has a slice of its own.
	Buffer func(n int) []byte
	// ConnDone, when set, is called with each Kafka connection once it
	// ended (or the capture did), in ReadFunc's streaming, whose Result
	// holds no Conns: a caller keeps those it needs (the playground keeps
	// a bounded number, as Read would list them).
	ConnDone func(*Conn)
}

// Defaults used for zero Options fields.
const (
	DefaultBrokerPort      = 9092
	DefaultMaxFrame        = 100 << 20
	DefaultMaxStreamBuffer = 16 << 20
	DefaultMaxBuffered     = 256 << 20
	DefaultMaxWaiting      = 1 << 16
	DefaultMaxWaitingBytes = 128 << 20
)

// Endpoint is one side of a TCP connection.
type Endpoint struct {
	IP   netip.Addr
	Port uint16
}

func (e Endpoint) String() string {
	return netip.AddrPortFrom(e.IP, e.Port).String()
}

// Conn is one TCP connection carrying Kafka traffic.
type Conn struct {
	// ID numbers connections in order of first appearance, starting at 1.
	// Connections found not to carry Kafka are dropped from Result.Conns,
	// so IDs may have holes.
	ID     int
	Client Endpoint
	Broker Endpoint
	// BrokerByPort is true when the broker side was chosen by
	// Options.BrokerPorts, false when it was inferred from the traffic.
	BrokerByPort bool
	// SYN is true when the connection's SYN was captured (the streams start
	// at a known frame boundary).
	SYN bool
	// Closed is true when a FIN or RST was seen.
	Closed    bool
	FirstTime time.Time
	LastTime  time.Time
	// Packets counts the packets of this connection (including empty ACKs).
	Packets   int
	Requests  int // frames sent by the client
	Responses int // frames sent by the broker
	// Gaps counts lost-segment gaps (bytes missing from the capture), and
	// frames skipped past Options.MaxBuffered.
	Gaps int
	// SkippedBytes counts stream bytes discarded while resynchronising or
	// because they belonged to frames damaged by a gap.
	SkippedBytes int64
	// TLS names the TLS version and cipher suite of a connection decrypted
	// with a key log ("TLS 1.3 TLS_AES_128_GCM_SHA256"); "" for one in the
	// clear. Its frames' StreamOffset counts the decrypted bytes.
	TLS string

	ep        [2]Endpoint // ep[0] < ep[1]
	half      [2]*half    // half[i]: data sent by ep[i]
	clientIdx int
	decided   bool
	bySYN     bool // clientIdx was set by a SYN (the handshake was seen)
	copied    bool // its SYN was seen again after it ended (said once)
	nonKafka  bool
	tls       *tlsConn // the TLS session being decrypted
	finished  bool
	// finishLater: the connection ended while a stream of it was read
	// (half.busy): it is finished when that is done.
	finishLater bool
	retired     bool
	key         connKey

	pending      []*Frame // frames seen before the broker side was known
	pendingBytes int
	counted      int         // what it holds of what Options.MaxBuffered bounds, as last counted
	held         []heldFrame // frames held while the other side holds (half.holding)
	heldBytes    int
	heldN        [2]int // held frames by the side that sent them
	releasing    bool

	early       map[int32]*Exchange // recent unpaired responses, held (engine.holdEarly)
	earlyBytes  int                 // their bytes, counted toward Options.MaxBuffered
	outstanding []*Exchange         // requests awaiting a response, in order
	outHead     int
	outCorr     map[int32]int
	// saslRaw: a SaslHandshake v0 was sent, after which both sides send
	// raw SASL tokens until the client's next request; saslWait is the
	// client's last token, waiting for the broker's.
	saslRaw  bool
	saslWait *Exchange
	// gen counts the frames placed, the requests waited on and the
	// decision of the sides: what can make bytes read as an answer
	// (half.answers) that did not before.
	gen uint32
}

func (c *Conn) String() string {
	return textfmt.Sprintf("conn %d %s->%s", c.ID, c.Client, c.Broker)
}

// Frame is one Kafka frame: the 4-byte big-endian size prefix and the
// size bytes that follow.
type Frame struct {
	Conn       *Conn
	FromClient bool
	// Time is the timestamp of the packet that completed the frame,
	// FirstTime that of the packet carrying its first byte.
	Time      time.Time
	FirstTime time.Time
	// StreamOffset is the offset of the frame's first byte in its TCP
	// direction (0 = first byte after the SYN, or the first byte captured
	// when the SYN was not).
	StreamOffset int64
	// Bytes is the whole frame including the size prefix.
	Bytes []byte
	// PacketIndex is the 1-based index in the file of the packet that
	// completed the frame (as Wireshark numbers frames).
	PacketIndex int
	// Missing counts the bytes of the frame that Bytes lacks: a gap
	// (bytes lost, or cut by the snap length) began inside it, and it was
	// kept (Options.KeepDamaged). Bytes then holds what was captured
	// before the gap, its size prefix still saying the whole frame's
	// size, so the frame decodes in part only; its header (a request's
	// API key, version and correlation id, a response's correlation id)
	// is there, and pairs it. 0 for a whole frame.
	Missing int64
	// SASLToken marks a raw SASL token, which a client and broker send
	// each other after a SaslHandshake v0: a size and the token, no
	// Kafka header (codec.Options{Data: "sasl"} reads it).
	SASLToken bool
	// chained: a request at a version past the margin for a newer Kafka
	// whose client id does not vouch for it, which the same client's
	// request before or after does (farChained, follows): a request,
	// though looksLikeRequest says no (isRequest). (Beside SASLToken,
	// in the padding before Gaps.)
	chained bool
	// Gaps counts the gaps of the frame's direction before its end (one
	// inside it too): where in its stream bytes were lost. Conn.Gaps
	// counts both directions' as the capture finds them, so an exchange
	// handed over after a gap counts it, though its frames came before.
	Gaps int

	dir      int // index of the sending endpoint in Conn.ep
	firstPkt int // packet index of the first byte
}

// Exchange is a request and its response. Unpaired frames are kept as
// exchanges with one side nil.
type Exchange struct {
	Conn     *Conn
	Request  *Frame // nil for a response whose request was not captured
	Response *Frame // nil for an unanswered request
	// SASLToken marks a client's raw SASL token and the broker's answer
	// to it (Frame.SASLToken), or one side alone: no API, version or
	// correlation id (-1).
	SASLToken bool
	// APIKey and APIVersion come from the request header; -1 when there is
	// no request (or it is too short).
	APIKey        int16
	APIVersion    int16
	CorrelationID int32
	// Latency is Response.Time - Request.Time for paired exchanges.
	Latency time.Duration
	// NoResponseExpected is set for Produce requests with acks=0, which
	// brokers never answer.
	NoResponseExpected bool
	// Evicted is set for a request given up on because too many requests
	// were waiting for their response (Options.MaxWaiting).
	Evicted bool
	// ConnClosed is set for a request still waiting when its connection
	// closed (FIN or RST): a client that closes with a request in flight
	// (a heartbeat as it leaves its group, a fetch long poll) never gets
	// the answer.
	ConnClosed bool
	// Overtook counts the requests sent before this one on its connection
	// that were still waiting when its response came: Kafka answers a
	// connection's requests in order, so a non-zero count is a response
	// out of order (paired all the same, by correlation id).
	Overtook int
	// Overtaken counts the responses to later requests of its connection
	// that came while this one waited, the first of them answering
	// correlation id OvertakenBy. A request overtaken more than a few
	// times is given up on (handed out unanswered).
	Overtaken   int
	OvertakenBy int32
	// ReusedCorrelation is set for a request whose correlation id is that
	// of an earlier request of its connection still waiting: its response
	// pairs with the oldest of them.
	ReusedCorrelation bool

	seq     int
	merged  bool // an unpaired response later paired with its request
	early   bool // an unpaired response held in Conn.early (engine.holdEarly)
	heldAt  int  // its connection's Packets when it was held
	waiting bool // in the engine's window of requests awaiting a response
}

// Paired reports whether both request and response are present.
func (x *Exchange) Paired() bool { return x.Request != nil && x.Response != nil }

// Millis is a latency in milliseconds, rounded to the microsecond: the
// precision a pcap timestamp has (a pcapng one may have more). kwire pcap,
// kwire proxy and the playground's capture module all say a latency so
// (1,234,567 ns is 1.235 ms, not 1.234).
func Millis(d time.Duration) float64 {
	return float64(d.Round(time.Microsecond).Microseconds()) / 1000
}

// Note is a non-fatal problem found while reading.
type Note struct {
	Packet  int   // 1-based packet index, 0 when not tied to a packet
	Conn    *Conn // nil when not tied to a connection
	Message string
	// TLS marks the note that says a connection carries TLS.
	TLS bool
	// Unframed marks the note that says where bytes of a stream followed
	// from its SYN, none lost before them, could not be read as a frame
	// (the reader skipped them to resynchronise): the capture holds them,
	// and no frame in them is judged.
	Unframed bool
	// Refused marks an unframed note at the very start of a client's
	// stream whose size prefix, Size, a broker refuses (negative, or
	// MaxFrame or more: Kafka's socket.request.max.bytes is 100 MiB by
	// default): it closes the connection.
	Refused bool
	Size    int64
	// Folded, in an Unframed note, counts the streams it stands for (the
	// connections, for a Refused one): the first 10 of each kind are said
	// each in a note of their own (Folded 0), the rest counted in one
	// note at the capture's end, said at the last of them (Size is its),
	// First at the first. Like those, kept whatever the cap on notes.
	Folded int
	First  *Note
	// Limit marks the notes that say frames were skipped, not held, or
	// responses held in case their request came late handed out
	// unpaired, past Options.MaxBuffered: kwire check, which shows a
	// capture's notes only when they bear on its findings, says them too.
	Limit bool
}

func (n Note) String() string {
	s := ""
	if n.Packet > 0 {
		s = "packet " + strconv.Itoa(n.Packet) + ": "
	}
	if n.Conn != nil {
		s += n.Conn.String() + ": "
	}
	return s + n.Message
}

// Result is what Read returns.
type Result struct {
	// Conns are the Kafka connections, in order of first appearance.
	// Always nil when returned by ReadFunc; Connections counts them.
	Conns       []*Conn
	Connections int
	// Exchanges are in request order (unpaired responses at the time of
	// the response). Always nil when returned by ReadFunc.
	Exchanges []*Exchange
	// Notes are non-fatal problems (capped at MaxNotes, then summarised).
	Notes []Note
	// Packets is the number of packets read; NonKafka how many of them
	// were not Kafka traffic (other protocols, other TCP connections).
	Packets  int
	NonKafka int
	// TLS counts the connections found to carry TLS (a TLS record header
	// where their first frame would be) that were not decrypted (no key
	// log, or none of its secrets for them): encrypted, not decoded, each
	// said in a note, and left out of Conns and Connections (their packets
	// count in NonKafka).
	TLS int
	// TLSDecrypted counts the TLS connections decrypted with the key log;
	// they are in Conns, with Conn.TLS set.
	TLSDecrypted int
	// Fragments counts IP fragments, which are skipped.
	Fragments int
	// Gaps counts the gaps (bytes missing from the capture: lost, or cut
	// by the snap length; and frames skipped past Options.MaxBuffered) over
	// all connections.
	Gaps int
	// LostBytes counts the stream bytes the gaps lacked (lost, or cut by
	// the snap length: SnapBytes of them), frames skipped past
	// Options.MaxBuffered aside (their bytes were captured).
	LostBytes int64
	SnapBytes int64
	// Frames counts Kafka frames found; SkippedBytes the stream bytes
	// discarded while resynchronising (all connections).
	Frames       int
	SkippedBytes int64
	// Evicted counts requests given up on while waiting for their response
	// (see Options.MaxWaiting).
	Evicted int
	// Truncation is set when the file ended in the middle of a packet or
	// was corrupt after some point (what was read before is returned): the
	// note that says after which packet and why (in Notes too, kept there
	// whatever their cap), for a reader that reports the file's state apart
	// from its other notes.
	Truncation *Note
	// Stopped is set when the reader stopped the reading with ErrStopped
	// before the input's end: Packets says how far it went.
	Stopped bool
}

// ErrStopped is the error a reader given to Read or ReadFunc returns
// (wrapped, or as it is) to stop the reading before the input's end: the
// packet being read is dropped, the capture ends there as at the file's
// end (frames and exchanges in flight handed out as then), and
// Result.Stopped is set. Returned by Read and ReadFunc only when it came
// before the file's header was read.
var ErrStopped = errors.New("capture: reading stopped")

// stopReader notes a read that returned ErrStopped, which the file
// formats' readers may say as a packet cut short.
type stopReader struct {
	r       io.Reader
	stopped bool
}

func (s *stopReader) Read(b []byte) (int, error) {
	n, err := s.r.Read(b)
	if err != nil && errors.Is(err, ErrStopped) {
		s.stopped = true
	}
	return n, err
}

// Truncated reports whether the file ended in the middle of a packet or
// was corrupt after some point (Truncation says where).
func (r *Result) Truncated() bool { return r.Truncation != nil }

// MaxNotes is the maximum number of notes kept in a Result.
const MaxNotes = 1000

// ErrFormat is returned (wrapped) when the input is not a pcap or pcapng file.
var ErrFormat = errors.New("capture: not a pcap or pcapng file")

// Read reads a whole pcap or pcapng file (classic pcap may be gzipped) and
// returns its Kafka exchanges. The error is non-nil only if the file can't
// be read at all (unknown magic, unreadable header); problems later in the
// file are reported as Notes with what was read so far.
func Read(r io.Reader, opts Options) (*Result, error) {
	e := newEngine(opts, nil)
	err := e.run(r)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(e.res.Exchanges, func(i, j int) bool { return e.res.Exchanges[i].Before(e.res.Exchanges[j]) })
	return e.res, nil
}

// Before reports whether x comes before y in Read's order: by the packet
// of the request (of the response when there is none), then in the order
// the exchanges were created. A caller of ReadFunc keeps Read's order
// with it (the playground lists the first exchanges of a capture so).
func (x *Exchange) Before(y *Exchange) bool {
	if a, b := x.sortKey(), y.sortKey(); a != b {
		return a < b
	}
	return x.seq < y.seq
}

// ReadFunc is the streaming form of Read: fn is called for each exchange
// as soon as it is complete (a response arrived, or the request was given
// up on after more than a few later requests of its connection were
// answered first, or it was evicted from the window of waiting requests, or the connection
// or file ended), so exchanges need not all be held in memory. Calls are
// therefore in completion order, not request order. The returned Result
// has no Exchanges and no Conns. fn may keep the exchange; the engine does
// not touch it again, but its Conn goes on changing until the connection
// ends. fn is called while the packet that completed the exchange is read:
// for one held while acknowledged bytes were waited for, the packet that
// ended the wait (the first past it, or the one that brought what was
// held past its limit, or the end of the capture), though the notes of the
// bytes then declared lost are said at the packet whose ACK showed them.
//
// A response that answers no waiting request is held in case its request
// is framed late (a client stream resynchronising frames a request only
// once what follows it vouches for it, by which time its answer may have
// come): it is handed out paired when its request is framed, and alone
// as soon as its request can no longer come (a request of its connection
// numbered after it is answered: a client numbers its requests in order,
// and its stream is framed in order), when more than 16 are held on its
// connection (all of them then), when another response with its
// correlation id comes, after 256 packets of its connection, when more
// than 1,024 or Options.MaxWaitingBytes of their bytes are held in all,
// or what all connections hold passes Options.MaxBuffered (the oldest
// first), or when the connection ends.
// Read pairs by the same rules, so both give the same exchanges.
func ReadFunc(r io.Reader, opts Options, fn func(*Exchange)) (*Result, error) {
	if fn == nil {
		fn = func(*Exchange) {}
	}
	e := newEngine(opts, fn)
	if err := e.run(r); err != nil {
		return nil, err
	}
	return e.res, nil
}

func (x *Exchange) sortKey() int {
	if x.Request != nil {
		return x.Request.PacketIndex
	}
	if x.Response != nil {
		return x.Response.PacketIndex
	}
	return 0
}

// maxPacket bounds the size of one captured packet we accept.
const maxPacket = 1 << 20

// readBuffer is the size of the buffer a capture is read through: 64 KiB,
// or less when r says how many bytes it holds (a bytes.Reader: the
// playground's capture, a test's or a fuzzer's input), so that a capture
// of a few hundred bytes is not read through 64 KiB allocated and cleared
// for it.
func readBuffer(r io.Reader) int {
	const most = 64 << 10
	if l, ok := r.(interface{ Len() int }); ok {
		return min(most, max(l.Len(), 16)) // bufio's least
	}
	return most
}

func (e *engine) run(r io.Reader) error {
	sr := &stopReader{r: r}
	src, err := openFile(bufio.NewReaderSize(sr, readBuffer(r)))
	if sr.stopped {
		return ErrStopped
	}
	if err != nil {
		return textfmt.Wrap(ErrFormat, ": %v", err)
	}
	if ng := src.ng; ng != nil {
		ng.secrets = e.addSecrets
	}
	for {
		data, ts, link, rerr := src.next()
		if rerr != nil {
			if sr.stopped {
				// Stopped by the reader's caller (kwire's Ctrl-C): the
				// capture ends here, as at the file's end, with what was
				// read; not a file cut short.
				e.res.Stopped = true
			} else if rerr != io.EOF {
				// Past the cap too: that the file is not whole is worth
				// more than any note about a connection.
				n := Note{Packet: e.pkt, Message: textfmt.Sprintf("file truncated or corrupt after packet %d: %v", e.res.Packets, rerr)}
				e.res.Truncation = &n
				e.res.Notes = append(e.res.Notes, n)
			}
			break
		}
		e.packet(data, ts, link)
		if e.onPacket != nil {
			e.onPacket()
		}
	}
	e.finish()
	return nil
}

// addSecrets takes the TLS key log a pcapng file carries (a decryption
// secrets block), beside Options.KeyLog, which it leaves as it is.
func (e *engine) addSecrets(b []byte) {
	if e.keys == nil || e.keys == e.opts.KeyLog {
		k := &KeyLog{}
		k.merge(e.opts.KeyLog, 0)
		e.keys = k
	}
	if !e.keys.addAll(b) && !e.keysFull {
		e.keysFull = true
		e.note(nil, "the capture's TLS secrets hold more than %d sessions: the rest are not used", maxKeyLogSessions)
	}
}
