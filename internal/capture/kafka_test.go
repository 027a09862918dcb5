package capture

import (
	"testing"

	"github.com/kwire/kwire/codec/schema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestProduceAcksEveryVersion reads acks from Produce requests encoded by
// franz-go's kmsg at every version it knows, with and without a
// transactional id and a client id: the header and the fields before acks
// are walked as the tables lay them out.
func TestProduceAcksEveryVersion(t *testing.T) {
	txn := "txn-1"
	for v := int16(0); v <= (&kmsg.ProduceRequest{}).MaxVersion(); v++ {
		for _, acks := range []int16{0, 1, -1} {
			for _, withTxn := range []bool{false, true} {
				for _, clientID := range []string{"", "producer-with-a-long-client-id"} {
					req := kmsg.NewPtrProduceRequest()
					req.SetVersion(v)
					req.Acks = acks
					req.TimeoutMillis = 30000
					if withTxn {
						req.TransactionID = &txn
					}
					var opts []kmsg.RequestFormatterOpt
					if clientID != "" {
						opts = append(opts, kmsg.FormatterClientID(clientID))
					}
					b := kmsg.NewRequestFormatter(opts...).AppendRequest(nil, req, 7)
					want := int(acks)
					require.Equal(t, want, produceAcks(b, v), "v%d acks %d txn %v client %q", v, acks, withTxn, clientID)
					assert.Equal(t, -2, produceAcks(b[:14], v), "v%d cut short", v)
				}
			}
		}
	}
	assert.Equal(t, -2, produceAcks(nil, 3))
	assert.Equal(t, -2, produceAcks([]byte{0, 0, 0, 4}, -1))
}

// TestPlausibleAPI: the request header test takes its bounds from the
// tables, with the declared margin for a newer Kafka.
func TestPlausibleAPI(t *testing.T) {
	hdr := func(key, ver int16) []byte {
		return []byte{0, 0, 0, 20, byte(key >> 8), byte(key), byte(ver >> 8), byte(ver)}
	}
	fetch := schema.ByName("Fetch")
	require.NotNil(t, fetch)
	hi := fetch.Request.Valid.Hi
	assert.True(t, plausibleAPI(hdr(fetch.Key, 0)))
	assert.True(t, plausibleAPI(hdr(fetch.Key, hi)))
	assert.True(t, plausibleAPI(hdr(fetch.Key, hi+newerVersions)))
	assert.False(t, plausibleAPI(hdr(fetch.Key, hi+newerVersions+1)))
	assert.False(t, plausibleAPI(hdr(fetch.Key, -1)))
	assert.True(t, plausibleAPI(hdr(maxKnownKey+newerAPIs, 0)), "an API newer than the tables")
	assert.False(t, plausibleAPI(hdr(maxKnownKey+newerAPIs+1, 0)))
	assert.False(t, plausibleAPI(hdr(maxKnownKey+1, newerVersions+1)))
	assert.False(t, plausibleAPI(hdr(-1, 0)))
	assert.True(t, plausibleAPI(hdr(fetch.Key, 0)[:6]), "as far as the bytes go")
}
