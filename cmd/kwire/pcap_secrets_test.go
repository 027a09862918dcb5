package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/sasl/plain"
	"github.com/twmb/franz-go/pkg/sasl/scram"

	"github.com/kwire/kwire/codec"
)

// TestPcapSecretsRealClients captures real clients logging in to kfake
// with SASL (franz-go with PLAIN and with SCRAM-SHA-256, each
// SaslHandshake then SaslAuthenticate) and an IncrementalAlterConfigs
// setting a listener's sasl.jaas.config, and reads the capture with
// kwire pcap. By default the secrets are hidden in every line: PLAIN's
// password and SCRAM's proof and verifier masked with '*' (the messages
// still read: user names, nonces, salt in sight), the JAAS value zeroed;
// each line names what it hid in "redacted", and standard error says how
// many exchanges had secrets hidden. --show-secrets prints them as sent.
func TestPcapSecretsRealClients(t *testing.T) {
	needTool(t, "dumpcap")
	port := freePort(t)
	cluster, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1), kfake.Ports(port), kfake.SeedTopics(1, "orders")}, scenarioSASL...)...)
	require.NoError(t, err)
	defer cluster.Close()
	addr := "127.0.0.1:" + strconv.Itoa(port)
	const jaas = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="hunter2-jaas";`

	file := captureLoopback(t, port, func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.SASL(plain.Auth{User: "admin", Pass: "admin-secret"}.AsMechanism()))
		require.NoError(t, err)
		defer cl.Close()
		req := kmsg.NewPtrIncrementalAlterConfigsRequest()
		r := kmsg.NewIncrementalAlterConfigsRequestResource()
		r.ResourceType, r.ResourceName = kmsg.ConfigResourceTypeBroker, "0"
		c := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
		c.Name, c.Value = "listener.name.sasl_plaintext.plain.sasl.jaas.config", kmsg.StringPtr(jaas)
		r.Configs = append(r.Configs, c)
		req.Resources = append(req.Resources, r)
		_, err = req.RequestWith(ctx, cl)
		require.NoError(t, err)
		sc, err := kgo.NewClient(kgo.SeedBrokers(addr), kgo.SASL(scram.Auth{User: "scram", Pass: "scram-secret"}.AsSha256Mechanism()))
		require.NoError(t, err)
		require.NoError(t, sc.Ping(ctx))
		sc.Close()
	})

	// As sent: the secrets are in the capture, so in --show-secrets' lines.
	open, errOut, code := runCLI(t, []string{"pcap", "--port", strconv.Itoa(port), "--show-secrets", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, errOut, "secrets hidden")
	require.NotContains(t, open, `"redacted"`)
	secrets := []string{`"password":"admin-secret"`, "hunter2-jaas"}
	for _, s := range secrets {
		require.Contains(t, open, s)
	}
	proofs := 0
	for _, l := range strings.Split(strings.TrimSpace(open), "\n") {
		var x struct {
			Request struct {
				Body struct {
					AuthBytes map[string]any `json:"authBytes"`
				} `json:"body"`
			} `json:"request"`
			Response struct {
				Body struct {
					AuthBytes any `json:"authBytes"`
				} `json:"body"`
			} `json:"response"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &x), l)
		if p, ok := x.Request.Body.AuthBytes["proof"].(string); ok {
			proofs++
			secrets = append(secrets, `"`+p+`"`)
			v := x.Response.Body.AuthBytes.(map[string]any)["verifier"].(string)
			secrets = append(secrets, `"`+v+`"`)
		}
	}
	// A client logs in on each connection: to the seed broker, and to
	// the broker by its node id.
	plains := strings.Count(open, `"password":"admin-secret"`)
	require.Positive(t, proofs, open)
	require.Positive(t, plains, open)

	hidden, errOut, code := runCLI(t, []string{"pcap", "--port", strconv.Itoa(port), file}, nil)
	require.Equal(t, 0, code, errOut)
	for _, s := range secrets {
		require.NotContains(t, hidden, s)
	}
	var redacted []string
	for _, l := range strings.Split(strings.TrimSpace(hidden), "\n") {
		var x struct {
			APIName  string   `json:"apiName"`
			Redacted []string `json:"redacted"`
		}
		require.NoError(t, json.Unmarshal([]byte(l), &x), l)
		for _, p := range x.Redacted {
			redacted = append(redacted, x.APIName+" "+p)
		}
	}
	want := []string{"IncrementalAlterConfigs request.body.resources[0].configs[0].value"}
	for range plains {
		want = append(want, "SaslAuthenticate request.body.authBytes.password")
	}
	for range proofs {
		want = append(want, "SaslAuthenticate request.body.authBytes.proof", "SaslAuthenticate response.body.authBytes.verifier")
	}
	require.ElementsMatch(t, want, redacted)
	require.Contains(t, hidden, `"username":"admin","password":"************"`, "the user stays, the password masked")
	require.Contains(t, hidden, `"username":"scram","nonce":"`, "SCRAM's first message is shown whole")
	require.Contains(t, errOut, ": secrets hidden in "+strconv.Itoa(1+plains+proofs)+` exchanges, each line's "redacted" naming them; --show-secrets shows them`)
}

// TestPcapSecretsGuessedResponse: a capture that starts after a login's
// request holds its SaslAuthenticate response alone; kwire pcap guesses
// what it answers, and hides the server's SCRAM verifier all the same
// (in the line written again from the masked bytes).
func TestPcapSecretsGuessedResponse(t *testing.T) {
	const verifier = "rmF9pqV8S7suAoZWja4dJRkFsKQ="
	rsp, err := codec.Encode(nil, []byte(`{"direction":"response","apiKey":36,"apiVersion":2,"header":{"correlationId":9},"body":{"errorCode":0,"authBytes":"`+
		base64.StdEncoding.EncodeToString([]byte("v="+verifier))+`","sessionLifetimeMs":0}}`), codec.EncodeOptions{})
	require.NoError(t, err)
	file := segmentsPcap(t, segment{false, 0, rsp})
	out, errOut, code := runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code, errOut)
	require.NotContains(t, out, verifier)
	require.Contains(t, out, `"verifier":"`+strings.Repeat("*", len(verifier))+`"`)
	require.Contains(t, out, `"guessed":`)
	require.Contains(t, out, `"redacted":["response.body.authBytes.verifier"]`)
	require.Contains(t, errOut, `secrets hidden in 1 exchange`)

	out, _, code = runCLI(t, []string{"pcap", "--show-secrets", file}, nil)
	require.Equal(t, 0, code)
	require.Contains(t, out, `"verifier":"`+verifier+`"`)

	// One with nothing to hide (SCRAM's server-first) is shown as
	// --show-secrets shows it, guessed.
	rsp, err = codec.Encode(nil, []byte(`{"direction":"response","apiKey":36,"apiVersion":2,"header":{"correlationId":9},"body":{"errorCode":0,"authBytes":"`+
		base64.StdEncoding.EncodeToString([]byte("r=fyko+d2lbbFgONRv9qkxdawL3rfcNHYJY1ZVvWVs7j,s=QSXCR+Q6sek8bf92,i=4096"))+`","sessionLifetimeMs":0}}`), codec.EncodeOptions{})
	require.NoError(t, err)
	file = segmentsPcap(t, segment{false, 0, rsp})
	hidden, errOut, code := runCLI(t, []string{"pcap", file}, nil)
	require.Equal(t, 0, code, errOut)
	shown, _, _ := runCLI(t, []string{"pcap", "--show-secrets", file}, nil)
	require.Contains(t, hidden, `"guessed":`)
	require.Contains(t, hidden, `"salt":"QSXCR+Q6sek8bf92"`)
	require.Equal(t, shown, hidden)
	require.NotContains(t, errOut, "secrets hidden")
}
