//go:build js && wasm

package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/internal/capture"
)

// TestScanAndDecodeSASLTokens: the raw SASL tokens of kafka-python's
// SCRAM logins (testdata/captures/kafkapython-sasl.pcapng), which the
// capture module marks "saslToken", are handed to the scan with the API
// key -2 and are not decoded as Kafka frames there (no requestError, no
// client id), while the capture's Kafka exchanges still are; decode with
// data "sasl" reads a token, size prefix and all, as the SASL message it
// holds, which its summary names.
func TestScanAndDecodeSASLTokens(t *testing.T) {
	b, err := os.ReadFile("../testdata/captures/kafkapython-sasl.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	res, err := capture.Read(bytes.NewReader(b), capture.Options{KeepDamaged: true})
	if err != nil {
		t.Fatal(err)
	}
	var frames, keys, vers []any
	for _, x := range res.Exchanges {
		for _, fr := range []*capture.Frame{x.Request, x.Response} {
			if fr == nil {
				frames = append(frames, nil)
			} else {
				frames = append(frames, bytesValue(fr.Bytes))
			}
		}
		key := int(x.APIKey)
		if x.SASLToken {
			key = scanSASL
		}
		keys, vers = append(keys, key), append(vers, int(x.APIVersion))
	}
	s := scanExchanges(js.Undefined(), []js.Value{js.ValueOf(frames), js.ValueOf(keys), js.ValueOf(vers)}).(string)
	var out struct{ Exchanges []map[string]any }
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		t.Fatalf("%v: %s", err, s)
	}
	if len(out.Exchanges) != len(res.Exchanges) {
		t.Fatalf("%d exchanges scanned, want %d", len(out.Exchanges), len(res.Exchanges))
	}
	tokens := 0
	for i, x := range res.Exchanges {
		got := out.Exchanges[i]
		if got["requestError"] != nil || got["responseError"] != nil {
			t.Errorf("exchange %d (token %v) does not decode: %v", i+1, x.SASLToken, got)
		}
		if !x.SASLToken {
			if c, _ := got["clientId"].(string); !strings.HasPrefix(c, "kwire-py-sasl") { // the harness's clients
				t.Errorf("exchange %d: client id %v", i+1, got["clientId"])
			}
			continue
		}
		tokens++
		if _, ok := got["clientId"]; ok {
			t.Errorf("token exchange %d read as a Kafka request: %v", i+1, got)
		}
	}
	if tokens != 10 {
		t.Errorf("%d token exchanges, want 10", tokens)
	}

	// The first token: the client's first SCRAM message.
	for _, x := range res.Exchanges {
		if !x.SASLToken {
			continue
		}
		for _, side := range []struct {
			fr   *capture.Frame
			want string
		}{{x.Request, "bytes (SASL SCRAM client-first)"}, {x.Response, "bytes (SASL SCRAM server-first)"}} {
			r := decode(js.Undefined(), []js.Value{bytesValue(side.fr.Bytes), js.ValueOf(false), js.ValueOf(0), js.ValueOf(0), js.ValueOf("yes"), js.ValueOf("sasl")})
			var sum struct {
				Data, ValueType string
				SizePrefix      bool
				Error           json.RawMessage
				Warnings        []any
			}
			js := r.(map[string]any)["summary"].(string)
			if err := json.Unmarshal([]byte(js), &sum); err != nil {
				t.Fatal(err)
			}
			if sum.Data != "sasl" || sum.ValueType != side.want || !sum.SizePrefix || string(sum.Error) != "null" || len(sum.Warnings) > 0 {
				t.Errorf("decode with data sasl: %.400s, want data sasl, valueType %q", js, side.want)
			}
		}
		break
	}
	// A frame decoded without data says none.
	r := decode(js.Undefined(), []js.Value{bytesValue(res.Exchanges[0].Request.Bytes), js.ValueOf(false), js.ValueOf(0), js.ValueOf(0), js.ValueOf("yes")})
	if s := r.(map[string]any)["summary"].(string); strings.Contains(s, `"data"`) || strings.Contains(s, `"valueType"`) {
		t.Errorf("a frame's summary names data: %.300s", s)
	}
}
