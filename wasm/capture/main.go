//go:build js && wasm

// Command capture is the playground's second WebAssembly module, loaded
// only when a pcap or pcapng file is opened. It sets a global object
// kwireCapture with one function:
//
//	kwireCapture.read(bytes) -> {summary: JSON text, frames: [Uint8Array|null], dump?} | {error, notDump}
//
// The summary lists connections and exchanges (API, version, correlation
// id, packet numbers, times in milliseconds since 1970, sizes, latency,
// and the protocol rules of kwire check each breaks: "findings", with
// "checkEnd" for those judged once the capture ended); "saslToken" marks
// a client's raw SASL token and the broker's answer after a SaslHandshake
// v0 (no Kafka header: API key, version and correlation id are -1);
// frames[2*i] and
// frames[2*i+1] are the request and response bytes of exchange i (size
// prefix included), which the page then decodes with the main module.
//
// A frame the capture holds only in part (bytes lost, or cut by the snap
// length, inside it) is kept, as kwire pcap and kwire check keep it, when
// what was captured holds its header: its bytes are those captured (its
// size prefix still says the whole frame's size, so it decodes as far as
// they go), its exchange says how many are missing ("requestMissing",
// "responseMissing"; "requestBytes" and "responseBytes" count those
// captured), and kwire check's rules leave it unjudged, as kwire check
// does.
//
// bytes may also be a text of several packets' hex dumps (tshark -x of a
// capture, tcpdump -X, Wireshark's Copy as Hex Dump of several packets),
// read as the capture it was printed from, as kwire pcap and kwire check
// read it (input.ParsePackets, capture.DumpPcapng): "dump" then says so,
// {packets, name, times}, times being what the times are where the dump
// gave none or no date ("" where it gave them); an error says notDump
// for bytes that are neither a capture nor such a text (the page then
// shows why they are no frame either).
package main

import (
	"bytes"
	"errors"
	"strconv"
	"syscall/js"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/capture"
	"github.com/kwire/kwire/internal/input"
	"github.com/kwire/kwire/wasm/internal/glue"
)

func main() {
	glue.Serve("kwireCapture", glue.Funcs{"read": readCapture})
}

// capture(bytes) reads a pcap or pcapng file: a summary of its Kafka
// exchanges as JSON, and the frames' bytes (request then response of each
// exchange, null where missing) in frames[2*i] and frames[2*i+1].
func readCapture(this js.Value, args []js.Value) any {
	b := glue.Bytes(glue.Arg(args, 0))
	var dump map[string]any
	notDump := false // neither a capture's magic nor a text of packets' dumps
	if !captureMagic(b) {
		// A text of packets' dumps is the capture it was printed from; any
		// other bytes are left to the capture reader to say what they are not.
		d, err := input.ParsePackets(b)
		switch {
		case err == nil:
			b = capture.DumpPcapng(d)
			dump = map[string]any{"packets": len(d.Packets), "name": d.Name(), "times": d.TimesNote()}
		case !errors.Is(err, input.ErrNoPackets):
			return map[string]any{"error": err.Error()} // a dump of packets, malformed: where, and why
		default:
			notDump = true
		}
	}
	// A TLS key log given beside the capture (the page's dropped key log
	// file) decrypts the connections it holds secrets for; one that is
	// none is said with the capture's notes.
	opts := capture.Options{KeepDamaged: true}
	var keyNote string
	if k := glue.Arg(args, 1); k.Truthy() {
		kl, err := capture.ParseKeyLog(bytes.NewReader(glue.Bytes(k)))
		if err != nil {
			keyNote = "the key log given: " + err.Error()
		}
		opts.KeyLog = kl
	}
	// The exchanges stream by; the first are listed (listing), the rest
	// counted.
	var l listing
	opts.ConnDone = l.connDone
	res, err := capture.ReadFunc(bytes.NewReader(b), opts, l.add)
	if err != nil {
		return map[string]any{"error": err.Error(), "notDump": notDump}
	}
	res.Exchanges = l.exchanges()
	res.Conns = l.connections()
	if keyNote != "" {
		res.Notes = append([]capture.Note{{Message: keyNote}}, res.Notes...)
	}
	if res.TLS > 0 && opts.KeyLog == nil {
		msg := " TLS connections left encrypted: open or drop the key log their clients wrote (SSLKEYLOGFILE, Go's tls.Config.KeyLogWriter) to decrypt them"
		if res.TLS == 1 {
			msg = " TLS connection left encrypted: open or drop the key log its client wrote (SSLKEYLOGFILE, Go's tls.Config.KeyLogWriter) to decrypt it"
		}
		res.Notes = append(res.Notes, capture.Note{Message: strconv.Itoa(res.TLS) + msg})
	}
	frames := js.Global().Get("Array").New()
	for _, x := range res.Exchanges {
		for _, fr := range []*capture.Frame{x.Request, x.Response} {
			if fr == nil {
				frames.Call("push", js.Null())
				continue
			}
			frames.Call("push", glue.Uint8Array(fr.Bytes))
		}
	}
	findings, checkEnd, checkNote := checkCapture(res)
	// What the page was not given, said first (the page shows 50 notes).
	var cut []capture.Note
	if l.unlisted > 0 {
		cut = append(cut, capture.Note{Message: strconv.Itoa(l.unlisted) + " of the capture's " + strconv.Itoa(l.unlisted+len(res.Exchanges)) +
			" exchanges are not listed or checked (" + l.byAPI.String() + "): the page lists the first " + strconv.Itoa(maxListed) +
			" (by their first packet), their frames at most " + strconv.Itoa(maxListedBytes>>20) + " MiB; the per-API summary counts them all, but for errors and expected codes; kwire pcap and kwire check read them all"})
	}
	if checkNote != "" {
		cut = append(cut, capture.Note{Message: checkNote})
	}
	res.Notes = append(cut, res.Notes...)
	out := map[string]any{"summary": string(summaryJSON(res, findings, checkEnd, &l)), "frames": frames}
	if dump != nil {
		out["dump"] = dump
	}
	return out
}

// captureMagic says whether b starts as a pcap (either byte order, µs or
// ns), a pcapng or a gzip file does: no text of packets' dumps does.
func captureMagic(b []byte) bool {
	if len(b) < 4 {
		return false
	}
	switch string(b[:4]) {
	case "\xa1\xb2\xc3\xd4", "\xd4\xc3\xb2\xa1", "\xa1\xb2\x3c\x4d", "\x4d\x3c\xb2\xa1", "\x0a\x0d\x0d\x0a":
		return true
	}
	return b[0] == 0x1f && b[1] == 0x8b
}

// summaryJSON writes the summary: the connections, the exchanges with
// their findings (JSON array elements, one run per exchange), those
// judged at the end, and the reader's notes. When l left exchanges
// unlisted, "apis" is the per-API figures of every exchange
// (apiStats.appendJSON), whose counts add up to the capture's; l may be
// nil.
func summaryJSON(res *capture.Result, findings [][]byte, checkEnd []byte, l *listing) []byte {
	var w jsontext.Writer
	ms := func(key string, v float64) { // milliseconds, to the microsecond
		w.Key(key)
		w.Value()
		w.B = strconv.AppendFloat(w.B, v, 'f', 3, 64)
	}
	elements := func(key string, els []byte) { // an array of elements written elsewhere
		w.Key(key)
		w.Value()
		w.B = append(append(append(w.B, '['), els...), ']')
	}
	w.BeginObject()
	w.Key("packets")
	w.Int(int64(res.Packets))
	w.Key("conns")
	w.BeginArray()
	for _, c := range res.Conns {
		w.BeginObject()
		w.Key("id")
		w.Int(int64(c.ID))
		w.Key("client")
		w.HTMLSafe(c.Client.String())
		w.Key("broker")
		w.HTMLSafe(c.Broker.String())
		if c.TLS != "" {
			w.Key("tls")
			w.HTMLSafe(c.TLS)
		}
		w.EndObject()
	}
	w.EndArray()
	w.Key("exchanges")
	w.BeginArray()
	for i, x := range res.Exchanges {
		w.BeginObject()
		w.Key("conn")
		w.Int(int64(x.Conn.ID))
		w.Key("apiKey")
		w.Int(int64(x.APIKey))
		if a := schema.ByKey(x.APIKey); a != nil {
			w.Key("apiName")
			w.HTMLSafe(a.Name)
		}
		w.Key("version")
		w.Int(int64(x.APIVersion))
		w.Key("correlationId")
		w.Int(int64(x.CorrelationID))
		if x.SASLToken { // a raw SASL token after a SaslHandshake v0: no API, version or correlation id (all -1)
			w.Key("saslToken")
			w.Bool(true)
		}
		for _, side := range [...]struct {
			packet, time, bytes, missing string
			fr                           *capture.Frame
		}{{"requestPacket", "requestTime", "requestBytes", "requestMissing", x.Request}, {"responsePacket", "responseTime", "responseBytes", "responseMissing", x.Response}} {
			if side.fr != nil {
				w.Key(side.packet)
				w.Int(int64(side.fr.PacketIndex))
				ms(side.time, float64(side.fr.Time.UnixMicro())/1000)
				w.Key(side.bytes)
				w.Int(int64(len(side.fr.Bytes)))
				if side.fr.Missing > 0 { // held only in part: the bytes not captured
					w.Key(side.missing)
					w.Int(side.fr.Missing)
				}
			}
		}
		if x.Paired() {
			ms("latencyMs", capture.Millis(x.Latency))
		}
		if x.NoResponseExpected {
			w.Key("noResponseExpected")
			w.Bool(true)
		}
		if len(findings[i]) > 0 {
			elements("findings", findings[i])
		}
		w.EndObject()
	}
	w.EndArray()
	if l != nil && l.unlisted > 0 {
		elements("apis", l.byAPI.appendJSON(nil))
	}
	elements("checkEnd", checkEnd)
	w.Key("notes")
	w.BeginArray()
	for _, n := range res.Notes {
		w.HTMLSafe(n.String())
	}
	w.EndArray()
	w.EndObject()
	return w.B
}
