//go:build js && wasm

package main

import (
	"os"
	"testing"
)

// TestSASLTokenSummary: kafka-python's SCRAM logins after a SaslHandshake
// v0 (5 connections, two token exchanges each) are marked "saslToken" in
// the summary the page reads, with no API (-1), so the page decodes them
// as raw SASL tokens, not as Kafka frames; no other exchange is marked.
func TestSASLTokenSummary(t *testing.T) {
	b, err := os.ReadFile("../../testdata/captures/kafkapython-sasl.pcapng")
	if err != nil {
		t.Fatal(err)
	}
	s, frames := readSummary(t, b)
	tokens := 0
	for i, x := range s.Exchanges {
		if !x.SASLToken {
			if x.APIKey < 0 {
				t.Errorf("exchange %d has no API and is no SASL token: %+v", i+1, x)
			}
			continue
		}
		tokens++
		if x.APIKey != -1 || x.APIName != "" || x.Version != -1 || x.CorrelationID != -1 {
			t.Errorf("token exchange %d %+v: want API key, version and correlation id -1, no API name", i+1, x)
		}
		if !frames.Index(2*i).Truthy() || !frames.Index(2*i+1).Truthy() {
			t.Errorf("token exchange %d: both tokens should be handed to the page", i+1)
		}
		if len(x.Findings) > 0 {
			t.Errorf("token exchange %d judged by kwire check's rules: %+v", i+1, x.Findings)
		}
	}
	if tokens != 10 {
		t.Errorf("%d token exchanges, want 10 (two on each of 5 connections)", tokens)
	}
}
