package registry

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/kwire/kwire/codec/payload"
	"github.com/kwire/kwire/internal/registry/registrytest"
)

// needTool finds a program .ci/run installs: failing in CI, skipping
// elsewhere.
func needTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is required in CI (.ci/run installs it)", name)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

// TestConfluentProtobufSerializer reads what Confluent's own Python
// serializer (confluent-kafka-python 1.7.0, Debian 12's) writes: the
// message-index list before the data, which that version writes as
// unsigned varints where Confluent's Java serializer (and the format's
// reference) writes zig-zag ones. A top-level first message is the one
// zero byte both write; the others are read with a warning that says
// which form they are in. The schemas it registers are base64
// FileDescriptorProtos, with the well-known types as references.
func TestConfluentProtobufSerializer(t *testing.T) {
	protoc := needTool(t, "protoc")
	needTool(t, "python3")
	if err := exec.Command("/usr/bin/python3", "-c", "import confluent_kafka.schema_registry.protobuf, requests").Run(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("python3-confluent-kafka, python3-protobuf and python3-requests are required in CI (.ci/run installs them): %v", err)
		}
		t.Skipf("confluent_kafka not importable: %v", err)
	}
	reg, srv := registrytest.Start()
	defer srv.Close()
	pb2 := t.TempDir()
	if out, err := exec.Command(protoc, "-I", "testdata/confluent", "--python_out="+pb2, "shop.proto").CombinedOutput(); err != nil {
		t.Fatalf("protoc: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "/usr/bin/python3", "testdata/confluent/confluent_protobuf.py", srv.URL, pb2)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("python3: %v\n%s", err, stderr.String())
	}
	c, err := New(srv.URL, Options{Getenv: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	d := payload.NewDecoder(c, payload.Config{})
	// What each message's index list is, and how it is written.
	want := map[string]struct {
		indexes  string
		unsigned bool
	}{
		"order":       {"[0]", false},
		"refund":      {"[1]", true},
		"item":        {"[0,0]", true},
		"detail":      {"[0,0,0]", true},
		"empty-order": {"[0]", false},
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	n := 0
	for sc.Scan() {
		var e struct {
			Name, Hex, Message string
			Value              json.RawMessage
		}
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatal(err)
		}
		n++
		t.Run(e.Name, func(t *testing.T) {
			p, _ := hex.DecodeString(e.Hex)
			js, nodes, ws := decodeAll(t, d, p)
			t.Logf("%s\n%s %v", e.Hex, js, ws)
			m := members(t, js)
			w := want[e.Name]
			if string(m["messageIndexes"]) != w.indexes || string(m["message"]) != `"`+e.Message+`"` {
				t.Fatalf("messageIndexes %s message %s, want %s %s", m["messageIndexes"], m["message"], w.indexes, e.Message)
			}
			switch {
			case w.unsigned && (len(ws) != 1 || !strings.Contains(ws[0].Message, "unsigned varints")):
				t.Fatalf("warnings %v, want one about unsigned varints", ws)
			case !w.unsigned && len(ws) != 0:
				t.Fatalf("warnings: %v", ws)
			}
			if !sameJSON(t, m["decoded"], e.Value) {
				t.Fatalf("decoded %s\njson_format reads %s", m["decoded"], e.Value)
			}
			if nodes[2].Name != "messageIndexes" || nodes[3].Name != "protobuf" || nodes[3].End != len(p) {
				t.Fatalf("nodes: %s %s", nodes[2].Name, nodes[3].Name)
			}
		})
	}
	if n != len(want) {
		t.Fatalf("python wrote %d payloads, want %d", n, len(want))
	}
	t.Logf("registry requests: %d", reg.Requests)
}
