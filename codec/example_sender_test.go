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

// The requests only Kafka's brokers and controllers send carry, at every
// version, the client id Kafka's own sender gives them (node 1): the raft
// client's for the quorum's requests, the transaction marker sender's
// for WriteTxnMarkers, the node id for what goes to the controller. They
// carried a client's (adminclient-1 for WriteTxnMarkers and
// AlterPartition, raft-client-1 for BrokerHeartbeat); the requests an
// admin client sends to the quorum stay an admin client's.
func TestExampleClientIDOfServerSentRequests(t *testing.T) {
	for name, want := range map[string]string{
		"Vote": "raft-client-1", "BeginQuorumEpoch": "raft-client-1", "EndQuorumEpoch": "raft-client-1",
		"FetchSnapshot": "raft-client-1", "UpdateRaftVoter": "raft-client-1",
		"WriteTxnMarkers":    "broker-1-txn-marker-sender",
		"BrokerRegistration": "1", "BrokerHeartbeat": "1", "AlterPartition": "1", "Envelope": "1",
		"AllocateProducerIds": "1", "AssignReplicasToDirs": "1", "ControllerRegistration": "1",
		"LeaderAndIsr": "1", "StopReplica": "1", "UpdateMetadata": "1", "ControlledShutdown": "1",
		"DescribeQuorum": "adminclient-1", "AddRaftVoter": "adminclient-1", "RemoveRaftVoter": "adminclient-1",
		"DescribeCluster": "adminclient-1", "UnregisterBroker": "adminclient-1",
		"Fetch": "consumer-billing-1",
	} {
		a := schema.ByName(name)
		if a == nil {
			t.Fatalf("no API %s", name)
		}
		for v := a.Valid().Lo; v <= a.Valid().Hi; v++ {
			if a.Request.HeaderVersion(v) < 1 {
				continue // request header v0: no client id
			}
			if got := Example(a, v, false)["header"].(map[string]any)["clientId"]; got != want {
				t.Errorf("%s v%d: client id %v, want %q", name, v, got, want)
			}
		}
	}
}
