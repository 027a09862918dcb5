package codec

import (
	"testing"

	"github.com/kwire/kwire/codec/schema"
)

// AddPartitionsToTxn v4 and later are sent by brokers (KIP-890: a
// partition leader verifying a producer's transaction with its
// coordinator), v0-3 by producers: each example's client id is its
// sender's, where it was a producer's at every version.
func TestExampleClientIDIsTheSenders(t *testing.T) {
	a := schema.ByName("AddPartitionsToTxn")
	for v := a.Valid().Lo; v <= a.Valid().Hi; v++ {
		want := "producer-1"
		if v >= 4 {
			want = "AddPartitionsManager-client-1"
		}
		if got := Example(a, v, false)["header"].(map[string]any)["clientId"]; got != want {
			t.Errorf("AddPartitionsToTxn v%d: client id %v, want %q", v, got, want)
		}
	}
	for _, a := range schema.APIs() {
		bs := a.BrokerSent
		if !bs.Empty() && (bs.Lo < a.Valid().Lo || bs.Hi != a.Valid().Hi) {
			t.Errorf("%s: BrokerSent %s is not a run of versions ending at the newest, %s", a.Name, bs, a.Valid())
		}
		if a.Key != schema.KeyAddPartitionsToTxn && !bs.Empty() {
			t.Errorf("%s: BrokerSent %s", a.Name, bs)
		}
	}
}
