//go:build js && wasm

// Command capture is the playground's second WebAssembly module, loaded
// only when a pcap or pcapng file is opened. It sets a global object
// kwireCapture with one function:
//
//	kwireCapture.read(bytes) -> {summary: JSON text, frames: [Uint8Array|null]} | {error}
//
// The summary lists connections and exchanges (API, version, correlation
// id, packet numbers, times in milliseconds since 1970, sizes, latency,
// and the protocol rules of kwire check each breaks: "findings", with
// "checkEnd" for those judged once the capture ended);
// frames[2*i] and
// frames[2*i+1] are the request and response bytes of exchange i (size
// prefix included), which the page then decodes with the main module.
package main

import (
	"bytes"
	"github.com/kwire/kwire/internal/jsontext"
	"strconv"
	"syscall/js"

	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/internal/capture"
)

func main() {
	k := js.Global().Get("Object").New()
	k.Set("read", js.FuncOf(readCapture))
	js.Global().Set("kwireCapture", k)
	if cb := js.Global().Get("kwireCaptureReady"); cb.Type() == js.TypeFunction {
		cb.Invoke()
	}
	select {}
}

func bytesArg(v js.Value) []byte {
	if v.Type() != js.TypeObject {
		return nil
	}
	b := make([]byte, v.Get("length").Int())
	js.CopyBytesToGo(b, v)
	return b
}

func bytesValue(b []byte) js.Value {
	a := js.Global().Get("Uint8Array").New(len(b))
	js.CopyBytesToJS(a, b)
	return a
}

func arg(args []js.Value, i int) js.Value {
	if i < len(args) {
		return args[i]
	}
	return js.Undefined()
}

// capture(bytes) reads a pcap or pcapng file: a summary of its Kafka
// exchanges as JSON, and the frames' bytes (request then response of each
// exchange, null where missing) in frames[2*i] and frames[2*i+1].
func readCapture(this js.Value, args []js.Value) any {
	res, err := capture.Read(bytes.NewReader(bytesArg(arg(args, 0))), capture.Options{})
	if err != nil {
		return map[string]any{"error": err.Error()}
	}
	frames := js.Global().Get("Array").New()
	findings, checkEnd := checkCapture(res)
	dst := []byte(`{"packets":`)
	dst = strconv.AppendInt(dst, int64(res.Packets), 10)
	dst = append(dst, `,"conns":[`...)
	for i, c := range res.Conns {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"id":`...)
		dst = strconv.AppendInt(dst, int64(c.ID), 10)
		dst = jsontext.AppendHTMLSafe(append(dst, `,"client":`...), c.Client.String())
		dst = jsontext.AppendHTMLSafe(append(dst, `,"broker":`...), c.Broker.String())
		dst = append(dst, '}')
	}
	dst = append(dst, `],"exchanges":[`...)
	for i, x := range res.Exchanges {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, `{"conn":`...)
		dst = strconv.AppendInt(dst, int64(x.Conn.ID), 10)
		dst = append(dst, `,"apiKey":`...)
		dst = strconv.AppendInt(dst, int64(x.APIKey), 10)
		if a := schema.ByKey(x.APIKey); a != nil {
			dst = jsontext.AppendHTMLSafe(append(dst, `,"apiName":`...), a.Name)
		}
		dst = append(dst, `,"version":`...)
		dst = strconv.AppendInt(dst, int64(x.APIVersion), 10)
		dst = append(dst, `,"correlationId":`...)
		dst = strconv.AppendInt(dst, int64(x.CorrelationID), 10)
		for _, fr := range []*capture.Frame{x.Request, x.Response} {
			if fr == nil {
				frames.Call("push", js.Null())
				continue
			}
			frames.Call("push", bytesValue(fr.Bytes))
		}
		if x.Request != nil {
			dst = append(dst, `,"requestPacket":`...)
			dst = strconv.AppendInt(dst, int64(x.Request.PacketIndex), 10)
			dst = append(dst, `,"requestTime":`...)
			dst = strconv.AppendFloat(dst, float64(x.Request.Time.UnixMicro())/1000, 'f', 3, 64)
			dst = append(dst, `,"requestBytes":`...)
			dst = strconv.AppendInt(dst, int64(len(x.Request.Bytes)), 10)
		}
		if x.Response != nil {
			dst = append(dst, `,"responsePacket":`...)
			dst = strconv.AppendInt(dst, int64(x.Response.PacketIndex), 10)
			dst = append(dst, `,"responseTime":`...)
			dst = strconv.AppendFloat(dst, float64(x.Response.Time.UnixMicro())/1000, 'f', 3, 64)
			dst = append(dst, `,"responseBytes":`...)
			dst = strconv.AppendInt(dst, int64(len(x.Response.Bytes)), 10)
		}
		if x.Paired() {
			dst = append(dst, `,"latencyMs":`...)
			dst = strconv.AppendFloat(dst, float64(x.Latency.Microseconds())/1000, 'f', 3, 64)
		}
		if x.NoResponseExpected {
			dst = append(dst, `,"noResponseExpected":true`...)
		}
		if len(findings[i]) > 0 {
			dst = append(append(append(dst, `,"findings":[`...), findings[i]...), ']')
		}
		dst = append(dst, '}')
	}
	dst = append(append(append(dst, `],"checkEnd":[`...), checkEnd...), `],"notes":[`...)
	for i, n := range res.Notes {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = jsontext.AppendHTMLSafe(dst, n.String())
	}
	dst = append(dst, "]}"...)
	return map[string]any{"summary": string(dst), "frames": frames}
}
