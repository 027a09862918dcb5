//go:build js && wasm && kwire_payload

package main

import (
	"encoding/binary"
	"encoding/json"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/codec/payload"
)

// TestPayloadOfSegmentRecords: kwirePayload.payload and payloads, which
// storage.wasm calls for an ordinary topic's keys and values once schemas
// are given,
// reads a framed Avro value and a topic's unframed one with the schemas
// given, in the frames' JSON form: a row's decoded value as text (cut past
// rowDecoded), and the record drawn whole (grid rows, tree, value JSON);
// a value whose schema is missing says why.
func TestPayloadOfSegmentRecords(t *testing.T) {
	order := `{"type":"record","name":"Order","fields":[{"name":"customer","type":"string"},{"name":"amount","type":"long"}]}`
	names := []any{"7.avsc", "orders-key.avsc"}
	texts := []any{order, `"string"`}
	defer func() { setDecoder(payload.NewDecoder(nil, payload.Config{})) }()
	if r := schemas(js.Undefined(), []js.Value{js.ValueOf(names), js.ValueOf(texts), js.ValueOf("")}).(string); !strings.HasPrefix(r, `{"files":2,`) {
		t.Fatal(r)
	}
	call := func(topic string, key bool, p []byte, detail bool) map[string]any {
		t.Helper()
		r := payloadOf(js.Undefined(), []js.Value{js.ValueOf(topic), js.ValueOf(key), bytesValue(p), js.ValueOf(detail)})
		text, ok := r.(string)
		if detail {
			// The part drawn, and its value JSON.
			two, _ := r.([]any)
			if len(two) != 2 {
				t.Fatalf("detail: %v", r)
			}
			text = two[0].(string)[:len(two[0].(string))-1] + `,"json":` + two[1].(string) + "}"
		} else if !ok {
			t.Fatalf("row: %v", r)
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(text), &v); err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		return v
	}
	avro := func(customer string, amount int64) []byte {
		b := binary.AppendVarint([]byte{0, 0, 0, 0, 7}, int64(len(customer))) // Avro's zigzag varints
		return binary.AppendVarint(append(b, customer...), amount)
	}

	row := call("orders", false, avro("<b>Ana</b>", 21), false)
	if row["schemaId"] != 7.0 || row["format"] != "avro" || row["decoded"] != `{"customer":"<b>Ana</b>","amount":21}` || row["warnings"] != nil || row["cut"] != nil {
		t.Errorf("row: %v", row)
	}
	// The topic's key schema reads a key without the registry's framing.
	if key := call("orders", true, []byte{6, 'k', '-', '1'}, false); key["format"] != "avro" || key["decoded"] != `"k-1"` {
		t.Errorf("key: %v", key)
	}

	long := call("orders", false, avro(strings.Repeat("é", 200), 1), false)
	if d, _ := long["decoded"].(string); long["cut"] != true || !strings.HasSuffix(d, "é…") || len(d) > rowDecoded+len("…") {
		t.Errorf("a long value is cut at a character: %v", long)
	}

	missing := call("orders", false, []byte{0, 0, 0, 0, 9, 2}, false)
	ws, _ := missing["warnings"].([]any)
	if missing["schemaId"] != 9.0 || missing["decoded"] != nil || len(ws) == 0 || !strings.Contains(ws[0].(string), "schema 9") {
		t.Errorf("a missing schema: %v", missing)
	}

	// Many at once, as storage.wasm lists a batch's: a line each.
	var packed []byte
	for _, part := range [][]byte{{6, 'k', '-', '1'}, avro("Bo", 5), {0, 0, 0, 0, 9, 2}} {
		isKey := byte(0)
		if part[0] == 6 {
			isKey = 1
		}
		packed = binary.BigEndian.AppendUint32(append(packed, isKey), uint32(len(part)))
		packed = append(packed, part...)
	}
	lines := strings.Split(payloadsOf(js.Undefined(), []js.Value{js.ValueOf("orders"), bytesValue(packed)}).(string), "\n")
	if len(lines) != 3 || lines[0] != `{"format":"avro","decoded":"\"k-1\""}` || lines[1] != `{"schemaId":7,"format":"avro","decoded":"{\"customer\":\"Bo\",\"amount\":5}"}` ||
		!strings.HasPrefix(lines[2], `{"schemaId":9,"warnings":["schema 9`) {
		t.Errorf("payloads: %q", lines)
	}
	if cut := payloadsOf(js.Undefined(), []js.Value{js.ValueOf("orders"), bytesValue(packed[:len(packed)-1])}); cut != "" {
		t.Errorf("packed cut short: %q", cut)
	}

	detail := call("orders", false, avro("Ana", 21), true)
	var part map[string]any
	b, _ := json.Marshal(detail["json"])
	_ = json.Unmarshal(b, &part)
	if part["base64"] == nil || part["format"] != "avro" || part["schemaId"] != 7.0 {
		t.Errorf("detail json: %s", b)
	}
	if dec, _ := part["decoded"].(map[string]any); dec["customer"] != "Ana" || dec["amount"] != 21.0 {
		t.Errorf("detail decoded: %s", b)
	}
	rows, _ := detail["rows"].([]any)
	tr, _ := json.Marshal(detail["tree"])
	if len(rows) == 0 || !strings.Contains(string(tr), `"name":"customer"`) || !strings.Contains(string(tr), `"name":"amount"`) {
		t.Errorf("detail rows %v, tree %s", rows, tr)
	}
	gone := call("orders", false, []byte{0, 0, 0, 0, 9, 2}, true)
	gt, _ := json.Marshal(gone["tree"])
	if !strings.Contains(string(gt), `"warning":"schema 9`) || gone["warnings"] == nil {
		t.Errorf("a missing schema drawn: %v", gone)
	}
}
