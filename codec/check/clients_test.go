package check

import (
	"testing"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
)

// TestRealClientOddities: what real clients do that looks odd and Kafka
// allows is not an error. kafkajs writes non-idempotent batches with
// producer id -1 but epoch 0 and base sequence 0; brokers (and franz-go's
// kfake) write transaction markers, control batches with a producer id and
// sequence -1, into Fetch responses; a non-minimal varint is a warning.
// kfake's markers hold a null value where Kafka's broker writes an
// EndTxnMarker: consumers read only the key, so a warning
// (records.marker), never an error.
func TestRealClientOddities(t *testing.T) {
	kafkajs := plain()
	kafkajs.pid, kafkajs.epoch, kafkajs.seq = -1, 0, 0
	fs := Check(FromFrames(fr(produce(7, 1, nil, kafkajs.bytes()), produceOK(7, 1, 0))))
	if ids := ruleIDs(fs); len(ids) != 0 {
		t.Errorf("kafkajs's non-idempotent batch: %v\n%s", ids, findingLines(fs))
	}

	marker := bat{baseTS: ts0, pid: 9, epoch: 0, seq: -1, attrs: 0x30, base: 2,
		recs: []rec{{0, 0, []byte{0, 0, 0, 1}, []byte{0, 0, 0, 0, 0, 0}, nil, false}}}
	data := plain()
	data.pid, data.epoch, data.seq, data.attrs = 9, 0, 0, 0x10
	fs = Check(FromFrames(fr(fetchReq(11, 1, 0), fetchRsp(11, 1, 3, data.bytes(), marker.bytes()))))
	if ids := ruleIDs(fs); len(ids) != 0 {
		t.Errorf("a transaction and its COMMIT marker fetched: %v\n%s", ids, findingLines(fs))
	}

	kfake := marker
	kfake.recs = []rec{{0, 0, []byte{0, 0, 0, 1}, nil, nil, true}}
	fs = Check(FromFrames(fr(fetchReq(11, 1, 0), fetchRsp(11, 1, 3, data.bytes(), kfake.bytes()))))
	if ids := ruleIDs(fs); len(ids) != 1 || ids[0] != "records.marker" {
		t.Errorf("kfake's COMMIT marker with a null value: %v\n%s", ids, findingLines(fs))
	}
	for _, f := range fs {
		if !f.Skipped && f.Severity != Warning {
			t.Errorf("a marker with a null value is a warning: %s", f.String())
		}
	}

	for _, f := range Check(FromFrames(ruleExamples()["frame.varint"].bad)) {
		if !f.Skipped && f.Severity != Warning {
			t.Errorf("a non-minimal varint is a warning: %s", f.String())
		}
	}
}

// TestRecordFormats: the record format the rules expect of each Produce
// and Fetch version is the one the codec's examples carry (codec's
// recordsMagic, the one hand-kept table of it).
func TestRecordFormats(t *testing.T) {
	var r reader
	checked := 0
	for _, k := range []int16{schema.KeyProduce, schema.KeyFetch} {
		api := schema.ByKey(k)
		for v := api.Request.Valid.Lo; v <= api.Request.Valid.Hi; v++ {
			resp := k == schema.KeyFetch
			b, err := codec.ExampleFrame(api, v, resp)
			if err != nil {
				t.Fatal(err)
			}
			var ff frameFacts
			r.readFrame(b, resp, k, v, &ff)
			var magic int8 = -1
			for _, p := range ff.Parts {
				for _, bt := range p.Batches {
					magic = bt.Magic
				}
			}
			if magic < 0 {
				continue // the example carries no records at this version
			}
			want := produceMagic(v)
			if resp {
				want = fetchMaxMagic(v)
			}
			checked++
			if magic != want {
				t.Errorf("%s v%d: the example carries magic %d, the rules expect %d", api.Name, v, magic, want)
			}
		}
	}
	if checked < 20 {
		t.Fatalf("only %d versions' examples carried records", checked)
	}
}

// produceMagic is the record format a Produce version carries (Kafka
// checks v3 and later only: ProduceRequest.validateRecords).
func produceMagic(v int16) int8 {
	switch {
	case v <= 1:
		return 0
	case v == 2:
		return 1
	}
	return 2
}
