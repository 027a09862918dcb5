package main

import (
	"crypto/tls"
	"encoding/pem"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
)

// TestCaptureTLSKafkaJS: kafkajs, over node's TLS (OpenSSL's, not Go's),
// produces 3 records to kfake and consumes them in a group, its secrets
// logged from each socket's 'keylog' event; kwire pcap --tls-keylog
// decrypts the capture: every frame decodes, the records are those
// produced, each line names the version and suite the broker saw.
func TestCaptureTLSKafkaJS(t *testing.T) {
	node := needTool(t, "node")
	site, err := filepath.Abs(filepath.Join("..", "..", "site"))
	require.NoError(t, err)
	if _, err := os.Stat(filepath.Join(site, "node_modules", "kafkajs")); err != nil {
		t.Fatalf("kafkajs is not installed: cd site && npm ci")
	}
	script, err := filepath.Abs(filepath.Join("testdata", "kafkajs-tls.mjs"))
	require.NoError(t, err)
	dir := t.TempDir()
	keylog, ca := filepath.Join(dir, "keys.log"), filepath.Join(dir, "ca.pem")
	cert, _ := tlsCert(t)
	require.NoError(t, os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o644))
	var mu sync.Mutex
	suites := map[string]bool{}
	server := &tls.Config{Certificates: []tls.Certificate{cert}, VerifyConnection: func(cs tls.ConnectionState) error {
		mu.Lock()
		suites[tls.VersionName(cs.Version)+" "+tls.CipherSuiteName(cs.CipherSuite)] = true
		mu.Unlock()
		return nil
	}}
	port := freePort(t)
	cluster, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.Ports(port), kfake.SeedTopics(1, "secure"), kfake.TLS(server))
	require.NoError(t, err)
	defer cluster.Close()
	file := captureLoopback(t, port, func() {
		cmd := exec.Command(node, script, "127.0.0.1:"+strconv.Itoa(port), ca, keylog)
		cmd.Dir = site // its node_modules
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
		require.Contains(t, string(out), "produced and consumed 3")
	})
	mu.Lock()
	require.Len(t, suites, 1, "one version and suite: %v", suites)
	var suite string
	for s := range suites {
		suite = s
	}
	mu.Unlock()
	want := []produced{{"js-key-0", "kafkajs secret value 0"}, {"js-key-1", "kafkajs secret value 1"}, {"js-key-2", "kafkajs secret value 2"}}
	out, errOut, code := runCLI(t, []string{"pcap", "--port", strconv.Itoa(port), "--tls-keylog", keylog, file}, nil)
	lines, _ := decodedTLS(t, out, errOut, code, port, suite, want, []string{"ApiVersions", "Metadata", "Produce", "Fetch", "JoinGroup", "SyncGroup", "OffsetCommit"})
	t.Logf("kafkajs over %s: %d exchanges", suite, len(lines))
	require.True(t, strings.HasPrefix(suite, "TLS 1.3 "), suite)
}
