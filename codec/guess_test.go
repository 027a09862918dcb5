package codec

import (
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Responses built by kmsg, an independent encoder, with realistic values:
// the guesser must rank the true API first.
func TestGuessResponse(t *testing.T) {
	md := kmsg.NewMetadataResponse()
	md.SetVersion(12)
	b := kmsg.NewMetadataResponseBroker()
	b.NodeID, b.Host, b.Port = 1, "broker-1.example", 9092
	md.Brokers = append(md.Brokers, b)
	tp := kmsg.NewMetadataResponseTopic()
	name := "orders"
	tp.Topic = &name
	p := kmsg.NewMetadataResponseTopicPartition()
	p.Replicas, p.ISR = []int32{1}, []int32{1}
	tp.Partitions = append(tp.Partitions, p)
	md.Topics = append(md.Topics, tp)

	av := kmsg.NewApiVersionsResponse()
	av.SetVersion(3)
	for k := int16(0); k < 20; k++ {
		x := kmsg.NewApiVersionsResponseApiKey()
		x.ApiKey, x.MaxVersion = k, 9
		av.ApiKeys = append(av.ApiKeys, x)
	}

	fc := kmsg.NewFindCoordinatorResponse()
	fc.SetVersion(4)
	c := kmsg.NewFindCoordinatorResponseCoordinator()
	c.Key, c.NodeID, c.Host, c.Port = "billing", 2, "broker-2.example", 9092
	fc.Coordinators = append(fc.Coordinators, c)

	cases := []struct {
		name     string
		msg      interface{ AppendTo([]byte) []byte }
		key, ver int16
		flexHdr  bool
	}{
		{"Metadata v12", &md, 3, 12, true},
		{"ApiVersions v3", &av, 18, 3, false},
		{"FindCoordinator v4", &fc, 10, 4, true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			frame, _ := frameOf(tc.msg, tc.key, tc.ver, true, tc.flexHdr)
			cands := GuessResponse(frame, GuessOptions{})
			require.NotEmpty(t, cands)
			top := cands[0]
			require.Equal(t, tc.key, top.APIKey, "best guess %s v%d, doubts %v", schema.ByKey(top.APIKey).Name, top.Version, top.Doubts)
			require.Contains(t, append(top.Versions, top.Version), tc.ver)
			require.Greater(t, top.Confidence, 0.3)
		})
	}
}
