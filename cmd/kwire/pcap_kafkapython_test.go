package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
)

// systemPython is Debian's interpreter, where apt's python3-kafka lives
// (a python3 earlier on PATH, a pyenv shim say, may not have it).
const systemPython = "/usr/bin/python3"

// needKafkaPython is needTool for kafka-python: where CI runs, its absence
// fails the test (.ci/run installs python3-kafka); elsewhere it skips.
func needKafkaPython(t *testing.T) {
	out, err := exec.Command(systemPython, "-c", "import kafka").CombinedOutput()
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("kafka-python is required in CI: install python3-kafka (.ci/run does): %s -c 'import kafka': %v\n%s", systemPython, err, out)
		}
		t.Skipf("kafka-python not importable by %s (install python3-kafka): %v", systemPython, err)
	}
}

// captureKafkaPython runs testdata/kafkapython-clients.py with args
// against a kfake broker of its own, captured on loopback, and requires
// it to succeed saying says. It returns the capture and the broker's port.
func captureKafkaPython(t *testing.T, says string, args ...string) (string, int) {
	script, err := filepath.Abs(filepath.Join("testdata", "kafkapython-clients.py"))
	require.NoError(t, err)
	port := freePort(t)
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.SeedTopics(1, "orders"))
	require.NoError(t, err)
	defer cluster.Close()
	file := captureLoopback(t, port, func() {
		runKafkaPython(t, script, says, append([]string{"127.0.0.1:" + strconv.Itoa(port)}, args...)...)
	})
	return file, port
}

// runKafkaPython runs script with args under systemPython, bounded to 90
// s, and requires it to succeed saying says.
func runKafkaPython(t *testing.T, script, says string, args ...string) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, systemPython, append([]string{script}, args...)...).CombinedOutput()
	require.NoError(t, err, string(out))
	require.Contains(t, string(out), says)
}

// TestCaptureKafkaPython captures kafka-python, a client with its own
// encoder of requests, record batches and CRCs, talking to kfake: two
// producers (gzip and none, keys, values and a header each), then a
// consumer group that joins, syncs, heartbeats, fetches and commits
// (testdata/kafkapython-clients.py). kwire pcap decodes every exchange,
// the records are exactly those produced, in a gzip batch and a plain
// one, and kwire check finds nothing wrong with any of it.
func TestCaptureKafkaPython(t *testing.T) {
	needKafkaPython(t)
	file, port := captureKafkaPython(t, "kafka-python: produced and consumed 20")
	// What the script produces.
	var want []produced
	for _, codec := range []string{"gzip", "none"} {
		for i := range 10 {
			want = append(want, produced{fmt.Sprintf("py-%s-key-%d", codec, i), strings.Repeat(fmt.Sprintf("kafka-python %s value %d ", codec, i), 4)})
		}
	}
	apis := checkCapture(t, file, port, want)
	t.Logf("kafka-python's exchanges per API: %v", apis)

	// Each producer's batch is compressed as it asked.
	out, errOut, code := runCLI(t, []string{"pcap", "--api", "Produce", "--port", strconv.Itoa(port), file}, nil)
	require.Equal(t, 0, code, errOut)
	codecs := map[string]string{}
	for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
		var l pcapLine
		require.NoError(t, json.Unmarshal([]byte(s), &l), s)
		for _, b := range produceBatches(t, l.Request) {
			for _, r := range b.Records {
				codecs[strings.Split(r.Key.Text, "-")[1]] = b.Attributes.Compression
			}
		}
	}
	require.Equal(t, map[string]string{"gzip": "gzip", "none": "none"}, codecs)

	out, errOut, code = runCLI(t, []string{"check", "--port", strconv.Itoa(port), "--fail-on", "note", file}, nil)
	require.Equal(t, 0, code, out+errOut)
	require.Empty(t, strings.TrimSpace(out))
	require.Contains(t, errOut, "check: 0 errors, 0 warnings, 0 notes")

	// kafka-python told the broker is 0.10.1 sends Produce v2 with a gzip
	// magic-1 message set (a wrapper message holding the records as
	// messages), which kfake does not answer; the request is whole in the
	// capture, and kwire reads its records from it.
	t.Run("magic1", func(t *testing.T) {
		file, port := captureKafkaPython(t, "kafka-python: magic1 sent", "magic1")
		out, errOut, code := runCLI(t, []string{"pcap", "--api", "Produce", "--port", strconv.Itoa(port), file}, nil)
		require.Equal(t, 0, code, errOut)
		var got []produced
		for _, s := range strings.Split(strings.TrimSpace(out), "\n") {
			var l struct {
				pcapLine
				APIVersion int `json:"apiVersion"`
			}
			require.NoError(t, json.Unmarshal([]byte(s), &l), s)
			require.Empty(t, l.RequestError)
			require.Equal(t, 2, l.APIVersion)
			var req struct {
				Body struct {
					TopicData []struct {
						PartitionData []struct {
							Records []struct {
								Magic      int
								Attributes struct{ Compression string }
								Messages   []struct {
									Magic      int
									Attributes struct{ Compression string }
									Key        struct{ Text string }
									Value      struct{ Text string }
								}
							}
						}
					}
				}
			}
			require.NoError(t, json.Unmarshal(l.Request, &req))
			for _, td := range req.Body.TopicData {
				for _, pd := range td.PartitionData {
					for _, w := range pd.Records {
						require.Equal(t, 1, w.Magic)
						require.Equal(t, "gzip", w.Attributes.Compression)
						for _, m := range w.Messages {
							require.Equal(t, 1, m.Magic)
							require.Equal(t, "none", m.Attributes.Compression)
							got = append(got, produced{m.Key.Text, m.Value.Text})
						}
					}
				}
			}
		}
		want := []produced{{"py-magic1-key-0", "kafka-python magic 1 value 0"}, {"py-magic1-key-1", "kafka-python magic 1 value 1"}, {"py-magic1-key-2", "kafka-python magic 1 value 2"}}
		require.Equal(t, want, got)
	})
}
