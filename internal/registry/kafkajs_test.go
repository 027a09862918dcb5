package registry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/codec/tree"
	"github.com/kwire/kwire/internal/registry/registrytest"
)

// encoded is one payload a real serializer wrote.
type encoded struct {
	Name  string          `json:"name"`
	ID    int             `json:"id"`
	Hex   string          `json:"hex"`
	Value json.RawMessage `json:"value"`
	bytes []byte
}

// siteDir is the repository's site/ folder, where node_modules lives.
func siteDir(t *testing.T) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "site")
}

// needNodeModule finds node and the npm package, failing in CI (where
// .ci/run installs both) and skipping elsewhere.
func needNodeModule(t *testing.T, pkg string) string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err == nil {
		if _, err = os.Stat(filepath.Join(siteDir(t), "node_modules", pkg, "package.json")); err != nil {
			err = os.ErrNotExist
		}
	}
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("node and %s are required in CI (.ci/run runs npm ci in site/)", pkg)
		}
		t.Skipf("node or %s not installed (cd site && npm ci)", pkg)
	}
	return node
}

// kafkajsPayloads runs the npm serializers against the test registry.
func kafkajsPayloads(t *testing.T, url string) []encoded {
	t.Helper()
	node := needNodeModule(t, "@kafkajs/confluent-schema-registry")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join("e2e", "payloads", "kafkajs-encode.mjs"), url)
	cmd.Dir = siteDir(t)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, stderr.String())
	}
	var list []encoded
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var e encoded
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("node printed %q: %v", sc.Text(), err)
		}
		if e.bytes, err = hex.DecodeString(e.Hex); err != nil {
			t.Fatal(err)
		}
		list = append(list, e)
	}
	if len(list) == 0 {
		t.Fatal("node printed no payloads")
	}
	return list
}

// decodedMember pulls "decoded" (and the rest) out of the members Decode
// wrote.
func members(t *testing.T, js []byte) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	if err := json.Unmarshal(append(append([]byte("{"), bytes.TrimPrefix(js, []byte(","))...), '}'), &m); err != nil {
		t.Fatalf("members %s: %v", js, err)
	}
	return m
}

// sameJSON reports whether a and b hold the same JSON value (numbers
// compared as numbers).
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	if err := da.Decode(&x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := db.Decode(&y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

func decodeAll(t *testing.T, d *payload.Decoder, p []byte) ([]byte, []*tree.Node, []codec.Warning) {
	t.Helper()
	return d.DecodeBytes(p, false, "")
}

func TestKafkajsSerializers(t *testing.T) {
	reg, srv := registrytest.Start()
	defer srv.Close()
	list := kafkajsPayloads(t, srv.URL)
	c, err := New(srv.URL, Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	d := payload.NewDecoder(c, payload.Config{Validate: true})
	chk := startCheck(t, srv.URL)
	formats := map[string]int{}
	for _, e := range list {
		t.Run(e.Name, func(t *testing.T) {
			js, nodes, ws := decodeAll(t, d, e.bytes)
			m := members(t, js)
			t.Logf("%s\n%s", e.Hex, js)
			var format string
			json.Unmarshal(m["format"], &format)
			formats[format]++
			switch {
			case strings.HasPrefix(e.Name, "protobuf"):
				// kafkajs 4.1 writes no message-index list.
				if len(ws) != 1 || !strings.Contains(ws[0].Message, "no message-index list") {
					t.Fatalf("warnings %v, want the one about the missing message-index list", ws)
				}
				if _, ok := m["messageIndexes"]; ok {
					t.Errorf("messageIndexes %s for a payload without them", m["messageIndexes"])
				}
			default:
				if len(ws) > 0 {
					t.Fatalf("warnings: %v", ws)
				}
			}
			if m["decoded"] == nil {
				t.Fatalf("no decoded value in %s", js)
			}
			want := e.Value
			if format == "protobuf" {
				want = protoJSONOf(t, e)
			}
			if !sameJSON(t, m["decoded"], want) {
				t.Errorf("decoded %s\nwant    %s", m["decoded"], want)
			}
			if len(nodes) < 3 || nodes[0].Name != "magic" || nodes[1].Name != "schemaId" || nodes[1].Int != int64(e.ID) {
				t.Fatalf("nodes do not start with magic and schemaId %d", e.ID)
			}
			data := nodes[len(nodes)-1]
			if data.End != len(e.bytes) || len(data.Children) == 0 {
				t.Fatalf("data node %s [%d,%d) with %d children does not span the payload", data.Name, data.Start, data.End, len(data.Children))
			}
			roundTrip(t, chk, c, format, e.ID, m["decoded"], e.bytes[data.Start:], e.Value)
		})
	}
	if formats["avro"] == 0 || formats["protobuf"] == 0 || formats["jsonschema"] == 0 {
		t.Fatalf("formats decoded: %v", formats)
	}
	t.Logf("registry requests: %d", reg.Requests)
}

// protoJSONOf is protobufjs's reading of the payload, as protojson spells
// a Timestamp (RFC 3339; protobufjs gives seconds and nanos).
func protoJSONOf(t *testing.T, e encoded) []byte {
	var m map[string]any
	if err := json.Unmarshal(e.Value, &m); err != nil {
		t.Fatal(err)
	}
	if at, ok := m["at"].(map[string]any); ok {
		sec, _ := strconv.ParseInt(fmt.Sprint(at["seconds"]), 10, 64)
		nanos, _ := at["nanos"].(float64)
		m["at"] = time.Unix(sec, int64(nanos)).UTC().Format(time.RFC3339Nano)
	}
	b, _ := json.Marshal(m)
	return b
}

// roundTrip checks kwire's reading against the serializers' libraries:
// Avro's JSON encoding encoded back by avsc gives the payload's data
// bytes; protojson read by google.golang.org/protobuf and encoded again is
// read by protobufjs as the value it encoded (Protobuf has more than one
// encoding of a value: protobufjs writes repeated scalars unpacked, Go
// packed, and Go puts oneof fields last); JSON Schema data is the JSON
// itself, byte for byte.
func roundTrip(t *testing.T, c *check, src payload.Source, format string, id int, decoded, data []byte, want json.RawMessage) {
	t.Helper()
	switch format {
	case "avro":
		var a struct{ Hex string }
		c.ask(t, map[string]any{"format": "avro", "id": id, "json": string(decoded)}, &a)
		if a.Hex != hex.EncodeToString(data) {
			t.Fatalf("avsc encodes kwire's reading as\n%s, the payload's data is\n%x", a.Hex, data)
		}
	case "protobuf":
		s, err := src.SchemaByID(id)
		if err != nil {
			t.Fatal(err)
		}
		srcs := map[string]string{"main.proto": s.Text}
		for _, r := range s.References {
			srcs[r.Name] = r.Schema.Text
		}
		comp := protocompile.Compiler{Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(srcs)})}
		files, err := comp.Compile(context.Background(), "main.proto")
		if err != nil {
			t.Fatal(err)
		}
		m := dynamicpb.NewMessage(files[0].Messages().Get(0))
		if err := (protojson.UnmarshalOptions{Resolver: linker.ResolverFromFile(files[0])}).Unmarshal(decoded, m); err != nil {
			t.Fatalf("protojson reads %s: %v", decoded, err)
		}
		b, err := (proto.MarshalOptions{Deterministic: true}).Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var a struct{ Value json.RawMessage }
		c.ask(t, map[string]any{"format": "protobuf", "id": id, "hex": hex.EncodeToString(b)}, &a)
		if !sameJSON(t, a.Value, want) {
			t.Fatalf("protobufjs reads kwire's reading encoded again as\n%s, it wrote\n%s", a.Value, want)
		}
	default:
		if !bytes.Equal(decoded, data) {
			t.Fatalf("JSON data:\n%s\nkwire's reading:\n%s", data, decoded)
		}
	}
}

// check is the node script in check mode, answering one line per line.
type check struct {
	in  io.WriteCloser
	out *bufio.Scanner
	cmd *exec.Cmd
}

func startCheck(t *testing.T, url string) *check {
	node := needNodeModule(t, "@kafkajs/confluent-schema-registry")
	cmd := exec.Command(node, filepath.Join("e2e", "payloads", "kafkajs-encode.mjs"), url, "check")
	cmd.Dir = siteDir(t)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	sc := bufio.NewScanner(out)
	sc.Buffer(nil, 1<<20)
	return &check{in: in, out: sc, cmd: cmd}
}

func (c *check) ask(t *testing.T, q any, a any) {
	t.Helper()
	b, _ := json.Marshal(q)
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	if !c.out.Scan() {
		t.Fatalf("node answered nothing to %s", b)
	}
	if err := json.Unmarshal(c.out.Bytes(), a); err != nil {
		t.Fatalf("node answered %q: %v", c.out.Text(), err)
	}
}
