package codec

import (
	"testing"

	"github.com/kwire/kwire/codec/wire"
	"github.com/stretchr/testify/require"
)

// A data message read with its version first (Version Any) gives that
// version beside the value, not inside it: KRaft's control messages have
// a field "version" of their own, and both come back to the same bytes.
func TestDataVersionBesideValue(t *testing.T) {
	b := wire.AppendInt16(nil, 0)          // the version the bytes start with
	b = wire.AppendInt16(b, 1)             // SnapshotHeaderRecord.Version
	b = wire.AppendInt64(b, 1700000002000) // LastContainedLogTimestamp
	b = append(b, 0)                       // no tagged fields
	o := Options{Data: "SnapshotHeaderRecord", Version: Any}
	bothPaths(t, b, o)
	f, err := Decode(b, o)
	require.NoError(t, err)
	js := f.AppendJSON(nil)
	require.Equal(t, `{"data":"SnapshotHeaderRecord","version":0,"value":{"version":1,"lastContainedLogTimestamp":1700000002000}}`, string(js))
	v, err := f.Root.Lookup("version")
	require.NoError(t, err)
	require.Equal(t, [2]int{0, 2}, [2]int{v.Start, v.End})
	back, err := Encode(nil, js, EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, b, back)

	// Without the envelope's version, the bytes are the message alone.
	alone, err := Encode(nil, `{"data":"SnapshotHeaderRecord","value":{"version":1,"lastContainedLogTimestamp":1700000002000}}`, EncodeOptions{})
	require.NoError(t, err)
	require.Equal(t, b[2:], alone)
}

// Bytes that start with their version, read with the zero Options.Version
// (which reads none): the error says so and names Version: Any, which
// reads them.
func TestDataVersionFirstHint(t *testing.T) {
	b, err := Encode(nil, `{"data":"ConsumerProtocolSubscription","version":1,"value":{"topics":["a","b"],"userData":null,"ownedPartitions":[]}}`, EncodeOptions{})
	require.NoError(t, err)
	for _, o := range []Options{{Data: "ConsumerProtocolSubscription"}, {Data: "ConsumerProtocolSubscription", Version: 1}} {
		bothPaths(t, b, o)
		_, err = Decode(b, o)
		require.ErrorContains(t, err, " with no version first, as Options.Version "+itoa(int(o.Version))+" says: bytes that start with their version (1 here?) are read with Version: Any")
	}
	f, err := Decode(b, Options{Data: "ConsumerProtocolSubscription", Version: Any})
	require.NoError(t, err)
	require.Equal(t, `{"data":"ConsumerProtocolSubscription","version":1,"value":{"topics":["a","b"],"userData":null,"ownedPartitions":[]}}`, string(f.AppendJSON(nil)))
	// Bytes that fail otherwise get no hint: their first two bytes are
	// no version of the message.
	_, err = Decode([]byte{0x7f, 0, 0, 0, 0, 9}, Options{Data: "ConsumerProtocolSubscription"})
	require.Error(t, err)
	require.NotContains(t, err.Error(), "Version: Any")
}
