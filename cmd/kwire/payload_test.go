package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/internal/api"
	"github.com/kwire/kwire/internal/hostile"
	"github.com/kwire/kwire/internal/registry/registrytest"
	"github.com/linkedin/goavro/v2"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

const clickAvsc = `{"type":"record","name":"Click","namespace":"web","fields":[{"name":"user","type":"string"},{"name":"amount","type":"long"}]}`

// payloadFetch is a Fetch v11 response for topic "clicks" whose records
// franz-go's kmsg framed: a JSON key and an Avro value that goavro
// encoded, with the registry's framing for schema id; a text key and an
// unframed Avro value in the second; a binary value in the third.
func payloadFetch(t *testing.T, id int) []byte {
	out := clickBatch(t, id)
	resp := kmsg.NewFetchResponse()
	resp.SetVersion(11)
	tp := kmsg.NewFetchResponseTopic()
	tp.Topic = "clicks"
	p := kmsg.NewFetchResponseTopicPartition()
	p.HighWatermark, p.LastStableOffset, p.RecordBatches = 3, 3, out
	tp.Partitions = append(tp.Partitions, p)
	resp.Topics = append(resp.Topics, tp)
	body := resp.AppendTo(nil)
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
	frame = binary.BigEndian.AppendUint32(frame, 7)
	return append(frame, body...)
}

// clickBatch is payloadFetch's record batch, as a broker keeps it.
func clickBatch(t *testing.T, id int) []byte {
	codec, err := goavro.NewCodec(clickAvsc)
	require.NoError(t, err)
	avro, err := codec.BinaryFromNative(nil, map[string]any{"user": "ana", "amount": int64(1250)})
	require.NoError(t, err)
	framed := binary.BigEndian.AppendUint32([]byte{0}, uint32(id))
	framed = append(framed, avro...)
	var batch []byte
	for i, kv := range [][2][]byte{{[]byte(`{"user": "ana"}`), framed}, {[]byte("ana"), avro}, {nil, {0xff, 0xfe, 0}}} {
		r := kmsg.Record{OffsetDelta: int32(i), Key: kv[0], Value: kv[1]}
		r.Length = int32(len(r.AppendTo(nil)) - 1)
		batch = r.AppendTo(batch)
	}
	rb := kmsg.RecordBatch{Magic: 2, LastOffsetDelta: 2, FirstTimestamp: 1700000000000, MaxTimestamp: 1700000000000,
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: 3, Records: batch}
	out := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
	return out
}

// kwire log reads the payloads of a segment's records as decode does in
// frames, with the same flags: a folder of schemas or a registry (issue
// 21: "the same options on decode, batch, pcap, proxy and log"); without
// them it stays with text and bytes, at full speed.
func TestLogPayloads(t *testing.T) {
	reg, srv := registrytest.Start()
	defer srv.Close()
	id := reg.Register("clicks-value", registrytest.Schema{Schema: clickAvsc})
	dir := t.TempDir()
	part := filepath.Join(dir, "clicks-0")
	require.NoError(t, os.MkdirAll(part, 0o755))
	seg := filepath.Join(part, "00000000000000000000.log")
	require.NoError(t, os.WriteFile(seg, clickBatch(t, id), 0o644))
	schemas := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(schemas, "clicks-value.avsc"), []byte(clickAvsc), 0o644))

	records := func(out string) []map[string]json.RawMessage {
		var v struct {
			Batch struct{ Records []map[string]json.RawMessage }
		}
		require.NoError(t, json.Unmarshal([]byte(strings.SplitN(out, "\n", 2)[0]), &v), out)
		return v.Batch.Records
	}
	out, stderr, code := runCLI(t, []string{"log", "--schema-registry", srv.URL, "--schemas", schemas, seg}, nil)
	require.Equal(t, 0, code, stderr)
	recs := records(out)
	require.JSONEq(t, `{"base64":"AAAAAAEGYW5hxBM=","schemaId":1,"format":"avro","decoded":{"user":"ana","amount":1250}}`, string(recs[0]["value"]))
	require.JSONEq(t, `{"base64":"BmFuYcQT","format":"avro","decoded":{"user":"ana","amount":1250}}`, string(recs[1]["value"]), "the topic's schema from the partition directory's name")

	// The lines, payload members and all, encode back to the segment.
	enc, stderr, code := runCLI(t, []string{"encode"}, []byte(out))
	require.Equal(t, 0, code, stderr)
	require.Equal(t, hex.EncodeToString(clickBatch(t, id)), strings.TrimSpace(enc))

	// No schemas named: text and bytes only, as before.
	out, stderr, code = runCLI(t, []string{"log", seg}, nil)
	require.Equal(t, 0, code, stderr)
	require.JSONEq(t, `{"base64":"AAAAAAEGYW5hxBM="}`, string(records(out)[0]["value"]))
}

// recordsOf pulls the records out of kwire's NDJSON for payloadFetch.
func recordsOf(t *testing.T, out string) []map[string]json.RawMessage {
	var v struct {
		Body struct {
			Responses []struct {
				Partitions []struct {
					Records []struct {
						Records []map[string]json.RawMessage
					}
				}
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &v), out)
	return v.Body.Responses[0].Partitions[0].Records[0].Records
}

func TestPayloadsCLI(t *testing.T) {
	reg, srv := registrytest.Start()
	defer srv.Close()
	id := reg.Register("clicks-value", registrytest.Schema{Schema: clickAvsc})
	frame := hex.EncodeToString(payloadFetch(t, id))
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "clicks-value.avsc"), []byte(clickAvsc), 0o644))
	base := []string{"decode", "--response", "--api", "Fetch", "--version", "11"}

	// The registry names the framed value's schema; the folder names the
	// topic's schema for the unframed one.
	out, stderr, code := runCLI(t, append(base, "--format", "ndjson", "--schema-registry", srv.URL, "--schemas", dir, frame), nil)
	require.Equal(t, 0, code, stderr)
	recs := recordsOf(t, out)
	require.JSONEq(t, `{"text":"{\"user\": \"ana\"}","format":"json","decoded":{"user":"ana"}}`, string(recs[0]["key"]))
	require.JSONEq(t, `{"base64":"AAAAAAEGYW5hxBM=","schemaId":1,"format":"avro","decoded":{"user":"ana","amount":1250}}`, string(recs[0]["value"]))
	require.JSONEq(t, `{"text":"ana"}`, string(recs[1]["key"]))
	require.JSONEq(t, `{"base64":"BmFuYcQT","format":"avro","decoded":{"user":"ana","amount":1250}}`, string(recs[1]["value"]))
	// A value that is not what the topic's schema says: a warning with its
	// place, and the bytes.
	require.JSONEq(t, `{"base64":"//4A","format":"avro"}`, string(recs[2]["value"]))
	require.Equal(t, "kwire: warning: at byte 192 (body.responses[0].partitions[0].records[0].records[2].value.decoded.user): avro: string length -8128 does not fit the 0 bytes left\n", stderr)

	// The JSON kwire wrote encodes back to the same frame.
	enc, stderr, code := runCLI(t, []string{"encode"}, []byte(out))
	require.Equal(t, 0, code, stderr)
	require.Equal(t, frame, strings.TrimSpace(enc))

	// The tree shows the Avro fields with their bytes.
	tree, stderr, code := runCLI(t, append(base, "--format", "tree", "--schema-registry", srv.URL, frame), nil)
	require.Equal(t, 0, code, stderr)
	for _, want := range []string{"schemaId int32 = 1", `user avro string = "ana"`, "amount avro long = 1250", `key varbytes = "ana" (3 bytes)`} {
		require.Contains(t, tree, want)
	}

	// Without schemas: the framing alone, quietly; --payloads bytes: none.
	out, stderr, code = runCLI(t, append(base, "--format", "ndjson", frame), nil)
	require.Equal(t, 0, code, stderr)
	require.JSONEq(t, `{"base64":"AAAAAAEGYW5hxBM=","schemaId":1}`, string(recordsOf(t, out)[0]["value"]))
	out, _, _ = runCLI(t, append(base, "--format", "ndjson", "--payloads", "bytes", frame), nil)
	require.JSONEq(t, `{"base64":"AAAAAAEGYW5hxBM="}`, string(recordsOf(t, out)[0]["value"]))

	// A registry that is gone: a warning on the record, the frame decodes.
	srv.Close()
	out, stderr, code = runCLI(t, append(base, "--format", "ndjson", "--schema-registry", srv.URL, frame), nil)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, stderr, "records[0].value): schema 1 not read: schema registry "+srv.URL+"/ is unreachable")
	require.JSONEq(t, `{"base64":"AAAAAAEGYW5hxBM=","schemaId":1}`, string(recordsOf(t, out)[0]["value"]))

	// Usage errors.
	_, stderr, code = runCLI(t, append(base, "--schema-registry", "http://user:pw@127.0.0.1:1", frame), nil)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "KWIRE_SCHEMA_REGISTRY_USER")
	_, stderr, code = runCLI(t, append(base, "--payloads", "bytes", "--schemas", dir, frame), nil)
	require.Equal(t, 2, code)
	require.Contains(t, stderr, "--payloads bytes reads no schemas")
}

// TestServePayloads: kwire serve's API decodes payloads with the schemas
// its operator named; a request cannot name a registry of its own.
func TestServePayloads(t *testing.T) {
	reg, srv := registrytest.Start()
	defer srv.Close()
	id := reg.Register("clicks-value", registrytest.Schema{Schema: clickAvsc})
	pf := payloadFlags{registry: srv.URL, mode: "decoded", timeout: time.Second}
	hook, err := pf.serverHook(io.Discard)
	require.NoError(t, err)
	frame := payloadFetch(t, id)
	post := func(h http.Handler, query string) string {
		s := httptest.NewServer(h)
		defer s.Close()
		resp, err := http.Post(s.URL+"/api/decode?direction=response&api=Fetch&version=11"+query, "application/octet-stream", bytes.NewReader(frame))
		require.NoError(t, err)
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	out := post(siteHandlerWith(t.TempDir(), api.Options{Payload: hook}), "")
	require.JSONEq(t, `{"base64":"AAAAAAEGYW5hxBM=","schemaId":1,"format":"avro","decoded":{"user":"ana","amount":1250}}`, string(recordsOf(t, out)[0]["value"]))
	before := reg.Requests
	out = post(siteHandler(t.TempDir(), nil), "&schemaRegistry="+url.QueryEscape(srv.URL))
	require.NotContains(t, out, `"decoded":{"user"`)
	require.Equal(t, before, reg.Requests, "a request made the server ask a registry")
	none, err := (&payloadFlags{mode: "decoded"}).serverHook(io.Discard)
	require.NoError(t, err)
	require.Nil(t, none, "serve decodes payloads without a schema source named")
}

// TestHostilePayloadsCLI: the hostile corpus's payload entries through
// kwire decode with their schemas (--schemas testdata/hostile): each says
// which limit cut it short, exits 0, and stays under the CLI's bound.
func TestHostilePayloadsCLI(t *testing.T) {
	for _, p := range hostile.Payloads() {
		if p.Limit == "" {
			continue
		}
		for _, format := range []string{"ndjson", "tree"} {
			t.Run(p.Name+"/"+format, func(t *testing.T) {
				file := filepath.Join(hostile.Dir(), p.Name)
				args := []string{"decode", "--format", format, "--request", "--input", "binary", "--schemas", hostile.Dir(), file}
				stderr, u := hostileRun(t, io.Discard, args...)
				if u.Exit != 0 || !strings.Contains(string(stderr), "kwire: warning:") || !strings.Contains(string(stderr), p.Limit) {
					t.Fatalf("exit %d, stderr %s; want a %s warning", u.Exit, stderr, p.Limit)
				}
				// The peak through the maxrss helper (a child's peak
				// counts the test binary's own when forked from it).
				rss, code := decodeRSS(t, args...)
				if code != 0 || rss > hostileCLIPeak {
					t.Fatalf("exit %d, peak RSS %s", code, hostile.MiB(rss))
				}
				t.Logf("peak RSS %s", hostile.MiB(rss))
			})
		}
	}
}

// TestKafkaFormRefusesSchemaFlags: --kafka writes records as base64 and
// reads no payload (nor do --records base64 and size), so with
// --schemas, --schema-registry or --validate it is a usage error (exit 2)
// in every command that takes both, as --payloads bytes with schemas is;
// kwire log's --kafka, which keeps only
// internal topics' keys and values bytes, still reads an ordinary
// topic's payloads with them.
func TestKafkaFormRefusesSchemaFlags(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "clicks-value.avsc"), []byte(clickAvsc), 0o644))
	missing := filepath.Join(dir, "nothing.bin")
	for _, cmd := range [][]string{
		{"decode"}, {"batch"}, {"pcap"}, {"proxy", "--upstream", "127.0.0.1:1", "--listen", "127.0.0.1:0"},
	} {
		for _, flags := range [][]string{
			{"--schemas", dir},
			{"--schema-registry", "http://127.0.0.1:1"},
			{"--validate"},
		} {
			args := append(append(append([]string{}, cmd...), "--kafka"), flags...)
			if cmd[0] != "proxy" {
				args = append(args, missing)
			}
			_, stderr, code := runCLI(t, args, nil)
			require.Equal(t, 2, code, "%v: %s", args, stderr)
			require.Contains(t, stderr, "--kafka writes records as base64, Kafka's form, and reads no record payload: drop "+flags[0]+", or --kafka", args)
		}
	}
	_, stderr, code := runCLI(t, []string{"decode", "--kafka", "--schemas", dir, "--validate", missing}, nil)
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "drop --schemas and --validate, or --kafka")
	// --records base64 and size leave records undecoded too.
	for _, mode := range []string{"base64", "size"} {
		for _, cmd := range []string{"decode", "batch", "pcap"} {
			_, stderr, code = runCLI(t, []string{cmd, "--records", mode, "--schemas", dir, missing}, nil)
			require.Equal(t, 2, code, stderr)
			require.Contains(t, stderr, "--records "+mode+" leaves records undecoded and reads no record payload: drop --schemas, or --records "+mode)
		}
	}

	// kwire log --kafka reads the ordinary topic's payloads all the same.
	part := filepath.Join(t.TempDir(), "clicks-0")
	require.NoError(t, os.MkdirAll(part, 0o755))
	seg := filepath.Join(part, "00000000000000000000.log")
	require.NoError(t, os.WriteFile(seg, clickBatch(t, 1), 0o644))
	out, stderr, code := runCLI(t, []string{"log", "--kafka", "--schemas", dir, seg}, nil)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, `"format":"avro","decoded":{"user":"ana","amount":1250}`)
}

// TestValidateNeedsASchemaSource: --validate without --schemas or
// --schema-registry would check nothing; every command that takes it
// refuses it as misuse (exit 2), as kwire log first did.
func TestValidateNeedsASchemaSource(t *testing.T) {
	for _, args := range [][]string{
		{"decode", "--validate", apiVersionsV3},
		{"batch", "--validate"},
		{"pcap", "--validate", "nothing.pcap"},
		{"proxy", "--upstream", "127.0.0.1:1", "--listen", "127.0.0.1:0", "--validate"},
		{"serve", "--dir", t.TempDir(), "--addr", "127.0.0.1:0", "--validate"},
		{"log", "--validate", "logdir/orders-0"},
	} {
		_, stderr, code := runCLI(t, args, nil)
		require.Equal(t, 2, code, "%v: %s", args, stderr)
		require.Contains(t, stderr, "kwire: --validate checks payloads against their schemas: name them with --schemas or --schema-registry", args)
	}
}

// valuesFetch is a Fetch v11 response for topic "t" with one record per
// value.
func valuesFetch(values ...[]byte) []byte {
	var batch []byte
	for i, v := range values {
		r := kmsg.Record{OffsetDelta: int32(i), Value: v}
		r.Length = int32(len(r.AppendTo(nil)) - 1)
		batch = r.AppendTo(batch)
	}
	rb := kmsg.RecordBatch{Magic: 2, LastOffsetDelta: int32(len(values) - 1), FirstTimestamp: 1700000000000, MaxTimestamp: 1700000000000,
		ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1, NumRecords: int32(len(values)), Records: batch}
	out := rb.AppendTo(nil)
	binary.BigEndian.PutUint32(out[8:], uint32(len(out)-12))
	binary.BigEndian.PutUint32(out[17:], crc32.Checksum(out[21:], crc32.MakeTable(crc32.Castagnoli)))
	resp := kmsg.NewFetchResponse()
	resp.SetVersion(11)
	tp := kmsg.NewFetchResponseTopic()
	tp.Topic = "t"
	p := kmsg.NewFetchResponseTopicPartition()
	p.HighWatermark, p.LastStableOffset, p.RecordBatches = int64(len(values)), int64(len(values)), out
	tp.Partitions = append(tp.Partitions, p)
	resp.Topics = append(resp.Topics, tp)
	body := resp.AppendTo(nil)
	frame := binary.BigEndian.AppendUint32(nil, uint32(4+len(body)))
	frame = binary.BigEndian.AppendUint32(frame, 7)
	return append(frame, body...)
}

// TestEncodeTakesBackJSONPayloadsAsRead: a JSON value with a key twice or
// a lone surrogate is shown as it is in "decoded"; kwire encode reads
// the bytes beside it, so decode's JSON encodes back to the frame (it
// failed: "duplicate key" in "decoded").
func TestEncodeTakesBackJSONPayloadsAsRead(t *testing.T) {
	frame := hex.EncodeToString(valuesFetch([]byte(`{"a":1,"a":2}`), []byte(`{"s":"\ud800"}`), []byte(`{"a":1}`)))
	for _, format := range []string{"ndjson", "json"} {
		out, stderr, code := runCLI(t, []string{"decode", "--response", "--api", "Fetch", "--version", "11", "--format", format, frame}, nil)
		require.Equal(t, 0, code, stderr)
		if format == "ndjson" {
			require.Contains(t, out, `"decoded":{"a":1,"a":2}`)
		}
		enc, stderr, code := runCLI(t, []string{"encode"}, []byte(out))
		require.Equal(t, 0, code, stderr)
		require.Equal(t, frame, strings.TrimSpace(enc))
	}
}

// TestSchemasDirCheckedFirst: every schema file of --schemas DIR and its
// subfolders is checked before anything is decoded (resolve.Files.Check),
// and one that cannot be used is a usage error (exit 2) naming each such
// file and why: it was found only when a record's lookup reached it, the
// rest decoded as if nothing were wrong. A README is no schema and is left
// alone; a good folder decodes as before.
func TestSchemasDirCheckedFirst(t *testing.T) {
	frame := hex.EncodeToString(payloadFetch(t, 1))
	dir := t.TempDir()
	write := func(name, text string) { writeFile(t, dir, name, []byte(text)) }
	write("clicks-value.avsc", clickAvsc)
	write("README.md", "the schemas of the clicks topic")
	base := []string{"decode", "--response", "--api", "Fetch", "--version", "11", "--format", "ndjson", "--schemas", dir, frame}
	_, stderr, code := runCLI(t, base, nil)
	require.Equal(t, 0, code, stderr)

	write("7.avsc", `{"type":"record","name":"Broken","fields":[{"name":"x","type":"nosuchtype"}]}`)
	write("8.proto", "syntax = \"proto3\";\nimport \"missing/money.proto\";\nmessage M { int32 a = 1; }\n")
	write("sub/9.json", `not JSON`)
	out, stderr, code := runCLI(t, base, nil)
	require.Equal(t, 2, code, "%s%s", stderr, out)
	require.Empty(t, out, "nothing decoded")
	require.Contains(t, stderr, "--schemas "+dir+": 3 schema files cannot be used (fix, or move out of the folder):\n")
	require.Regexp(t, `\n  7\.avsc: .*nosuchtype`, stderr)
	require.Regexp(t, `\n  8\.proto: .*missing/money\.proto`, stderr)
	require.Regexp(t, `\n  sub/9\.json: .*not JSON`, stderr, "a schema's name in a subfolder is read, and checked")
	require.NotContains(t, stderr, "README")
	require.NotContains(t, stderr, "clicks-value")

	// kwire log takes --schemas too, checked alike.
	_, stderr, code = runCLI(t, []string{"log", "--schemas", dir, filepath.Join(t.TempDir(), "00000000000000000000.log")}, nil)
	require.Equal(t, 2, code, stderr)
	require.Contains(t, stderr, "3 schema files cannot be used")
}

// TestSchemasDirSubfolders: --schemas reads the schemas of DIR's
// subfolders (a folder per topic or subject), by their file names as at
// the top; hidden folders (.git) are not read. A folder deeper than
// resolve.MaxFolderDepth is not read, and a note says so.
func TestSchemasDirSubfolders(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) { writeFile(t, dir, name, []byte(text)) }
	write("clicks/clicks-value.avsc", clickAvsc)
	write(".git/objects/1.avsc", `not a schema, and never read`)
	frame := hex.EncodeToString(payloadFetch(t, 1))
	base := []string{"decode", "--response", "--api", "Fetch", "--version", "11", "--format", "ndjson", "--schemas", dir, frame}
	out, stderr, code := runCLI(t, base, nil)
	require.Equal(t, 0, code, stderr)
	require.NotContains(t, stderr, "--schemas")
	// The second record's value is the topic's Avro without the framing.
	require.Contains(t, out, `"format":"avro","decoded":{"user":"ana","amount":1250}`)

	// Schema id 1, in a subject's folder: the first record's framed value.
	write("subjects/clicks-value/1.avsc", clickAvsc)
	out, stderr, code = runCLI(t, base, nil)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, `"schemaId":1,"format":"avro","decoded":{"user":"ana","amount":1250}`)

	deep := strings.Repeat("d/", 9)
	write(deep+"2.avsc", `broken, but too deep to be read`)
	_, stderr, code = runCLI(t, base, nil)
	require.Equal(t, 0, code, stderr)
	require.Equal(t, []string{"kwire: --schemas " + dir + ": folders are read 8 levels down; " + strings.Repeat("d/", 8) + "d/ and any others deeper were not read"}, schemasNotes(stderr))
}

// TestSchemasDirSkipsWhatIsNoSchema: a .json file of --schemas DIR that
// is named as no schema (not ID.json, TOPIC-value.json or TOPIC-key.json)
// and plainly is no JSON Schema (a package.json, a renovate.json naming
// its own $schema, a tsconfig.json with comments, which is not JSON) is
// skipped, each named in a one-line note, and the folder decodes; the
// tsconfig.json used to stop every command (exit 2), and the others were
// taken for JSON Schema documents every $ref could name. One named as a schema, or a shared document that looks like
// a JSON Schema, is still checked, and a broken one is still exit 2.
func TestSchemasDirSkipsWhatIsNoSchema(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) { writeFile(t, dir, name, []byte(text)) }
	write("clicks-value.avsc", clickAvsc)
	write("package.json", `{"name":"schemas","version":"1.0.0","type":"module","dependencies":{"avsc":"^5.7.7"}}`)
	write("tsconfig.json", "// comments, as tsconfig allows\n{\"compilerOptions\": {}}")
	write("tools/renovate.json", `{"$schema":"https://docs.renovatebot.com/renovate-schema.json","extends":["config:base"]}`)
	frame := hex.EncodeToString(payloadFetch(t, 1))
	base := []string{"decode", "--response", "--api", "Fetch", "--version", "11", "--format", "ndjson", "--schemas", dir, frame}
	out, stderr, code := runCLI(t, base, nil)
	require.Equal(t, 0, code, stderr)
	require.Contains(t, out, `"decoded":{"user":"ana","amount":1250}`)
	lines := schemasNotes(stderr)
	require.Len(t, lines, 3, stderr)
	require.Regexp(t, `^kwire: --schemas .*: skipped package\.json: a JSON object with none of JSON Schema's keywords, named as no schema`, lines[0])
	require.Regexp(t, `^kwire: --schemas .*: skipped tsconfig\.json: not JSON \(line 1, column 2: invalid character '/'`, lines[1])
	require.Regexp(t, `^kwire: --schemas .*: skipped tools/renovate\.json: a JSON object with none`, lines[2])

	// A shared document meant as a JSON Schema, broken, is loud.
	write("address.json", `{"type": "object", "properties": {"zip": {"type": "string"}},}`)
	_, stderr, code = runCLI(t, base, nil)
	require.Equal(t, 2, code, stderr)
	require.Regexp(t, `\n  address\.json: .*not JSON at line 1, column 62`, stderr)
	require.NoError(t, os.Remove(filepath.Join(dir, "address.json")))

	// So is a file named as a schema, whatever it holds.
	write("orders-value.json", `name: not JSON`)
	_, stderr, code = runCLI(t, base, nil)
	require.Equal(t, 2, code, stderr)
	require.Regexp(t, `\n  orders-value\.json: `, stderr)
}

// schemasNotes are the lines of stderr that --schemas wrote.
func schemasNotes(stderr string) []string {
	var notes []string
	for _, l := range strings.Split(stderr, "\n") {
		if strings.HasPrefix(l, "kwire: --schemas ") {
			notes = append(notes, l)
		}
	}
	return notes
}
