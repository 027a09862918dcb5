package main

import (
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kwire/kwire/internal/bench/traffic"
)

// kwire pcap says, once, when the capture names more topic ids than it
// keeps (topicids.MaxNames): it stopped learning them silently.
func TestPcapTopicIDsFull(t *testing.T) {
	pairs, _ := commitTraffic(t)
	var meta []traffic.Pair
	for _, p := range pairs {
		if p.Request.Key == 3 && p.Request.Version >= 10 {
			meta = append(meta, p)
		}
	}
	require.NotEmpty(t, meta)
	// Three Metadata responses naming 22,000 new topics each: 66,000 ids.
	var many []traffic.Pair
	for r := 0; r < 3; r++ {
		p := meta[0]
		m := kmsg.NewPtrMetadataResponse()
		m.Version = p.Request.Version
		for i := 0; i < 22000; i++ {
			tp := kmsg.NewMetadataResponseTopic()
			name := "t" + strconv.Itoa(r) + "-" + strconv.Itoa(i)
			tp.Topic = &name
			binary.BigEndian.PutUint64(tp.TopicID[8:], uint64(r*22000+i+1))
			m.Topics = append(m.Topics, tp)
		}
		hdr := append([]byte(nil), p.Response.Bytes[4:8]...) // the correlation id
		if m.IsFlexible() {
			hdr = append(hdr, 0)
		}
		b := m.AppendTo(hdr)
		p.Response.Bytes = binary.BigEndian.AppendUint32(nil, uint32(len(b)))
		p.Response.Bytes = append(p.Response.Bytes, b...)
		many = append(many, p)
	}
	_, errOut, code := runCLI(t, []string{"pcap", "--api", "Produce", writePcap(t, many)}, nil)
	require.Equal(t, 0, code, errOut)
	require.Equal(t, 1, strings.Count(errOut, "65536 ids are known, the limit"), errOut)
}
