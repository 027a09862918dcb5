//go:build js && wasm

package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"syscall/js"
	"testing"

	"github.com/kwire/kwire/internal/capture"
	"github.com/kwire/kwire/wasm/internal/glue"
)

var update = flag.Bool("update", false, "rewrite testdata/*.summary.json from the current output")

// TestReadCaptureSummary reads the captures in testdata/captures through
// kwireCapture.read, as the page calls it, and compares the summary the
// page parses with the one kept in testdata, byte for byte: a change to
// how the summary is written (it goes through jsontext.Writer) must not
// change a byte the page reads. Under node:
//
//	PATH="$(go env GOROOT)/lib/wasm:$PATH" GOOS=js GOARCH=wasm go test ./wasm/capture
func TestReadCaptureSummary(t *testing.T) {
	files, err := filepath.Glob("../../testdata/captures/*.pcap*")
	if err != nil || len(files) == 0 {
		t.Fatalf("no captures: %v", err)
	}
	for _, path := range append(files, "../../testdata/captures/README.md") {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			r := readCapture(js.Undefined(), []js.Value{glue.Uint8Array(b)}).(map[string]any)
			got := ""
			if s, ok := r["summary"].(string); ok {
				got = s
				frames := r["frames"].(js.Value)
				if frames.Length() == 0 {
					t.Error("no frames")
				}
			} else {
				got = `{"error":` + r["error"].(string) + "}"
			}
			golden := filepath.Join("testdata", name+".summary.json")
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("summary differs from %s:\n got %.300s\nwant %.300s", golden, got, want)
			}
		})
	}
}

// TestCheckSaysUnframedBytes: the page's check says, as kwire check does,
// that bytes of a connection captured from its start which no frame
// reading could take are not judged.
func TestCheckSaysUnframedBytes(t *testing.T) {
	res := &capture.Result{Notes: []capture.Note{
		{Packet: 4, Conn: &capture.Conn{ID: 1}, Message: "implausible frame header 7f ff ff ff", Unframed: true},
		{Packet: 5, Conn: &capture.Conn{ID: 1}, Message: "an ordinary note"},
	}}
	_, end := checkCapture(res)
	got := string(end)
	if !strings.Contains(got, `"rule":"frame.size"`) || !strings.Contains(got, `"severity":"skipped"`) || !strings.Contains(got, "implausible frame header 7f ff ff ff") {
		t.Fatalf("end findings %s", got)
	}
	if strings.Contains(got, "an ordinary note") {
		t.Fatalf("a note that is not about unframed bytes became a finding: %s", got)
	}
}
