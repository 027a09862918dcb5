package codec

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"strconv"
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
			cands := guessed(frame, Limits{})
			require.NotEmpty(t, cands)
			top := cands[0]
			require.Equal(t, tc.key, top.APIKey, "best guess %s v%d, doubts %v", schema.ByKey(top.APIKey).Name, top.Version, top.Doubts)
			require.Contains(t, append(top.Versions, top.Version), tc.ver)
			require.Greater(t, top.Confidence, 0.3)
		})
	}
}

// Guessing shares one work budget: with too little of it, the search
// stops early and says so, in Frame.Guess and the envelope's "guess".
func TestGuessWorkLimitCutsTheSearch(t *testing.T) {
	b, err := ExampleFrame(schema.ByName("Metadata"), 12, true)
	require.NoError(t, err)
	f, err := Decode(b, Options{Auto: true})
	require.NoError(t, err)
	require.NotNil(t, f.Guess)
	require.False(t, f.Guess.Cut)
	all := f.Guess.Tried

	f, _ = Decode(b, Options{Auto: true, Limits: Limits{MaxWork: 40 * len(b)}})
	require.NotNil(t, f.Guess)
	require.True(t, f.Guess.Cut, "tried %d of %d", f.Guess.Tried, all)
	require.Less(t, f.Guess.Tried, all)
	require.Contains(t, string(f.AppendJSON(nil)), `"cut":true`)
	var dec Decoder
	js, info, _ := dec.AppendJSON(nil, b, Options{Auto: true, Limits: Limits{MaxWork: 40 * len(b)}})
	require.True(t, info.Guess.Cut)
	require.Contains(t, string(js), `"cut":true`)
}

// A size prefix that is negative or larger than the bytes given is never
// a reason to guess: read with a guess, it is an error at "size". Read as
// given (a request, or a response of a known API and version), a negative
// size is an error at "size"; a cut-short frame's bytes are read, and the
// error says where reading stopped and that the frame is cut short.
func TestBadSizeIsNoGuess(t *testing.T) {
	b, err := ExampleFrame(schema.ByName("ApiVersions"), 3, true)
	require.NoError(t, err)
	for _, size := range []uint32{0x7fffffff, 0xfffffff0, uint32(len(b))} {
		bad := append([]byte(nil), b...)
		bad[0], bad[1], bad[2], bad[3] = byte(size>>24), byte(size>>16), byte(size>>8), byte(size)
		for _, o := range []Options{{}, {Auto: true}, {Response: true, APIKey: Any, Version: Any}, {Response: true, APIKey: 18, Version: 3}} {
			f, err := Decode(bad, o)
			var de *DecodeError
			require.True(t, errors.As(err, &de), "%x %+v: %v", size, o, err)
			if o.Auto || o.APIKey == Any || int32(size) < 0 {
				require.Equal(t, "size", de.Path)
			} else if de.Path == "size" {
				// Every byte given read cleanly: the size is what is wrong.
				require.Contains(t, de.Expected, "a size of at most")
			} else {
				require.Contains(t, de.Error(), "(the frame is cut short: its size says "+strconv.Itoa(int(size))+" bytes follow, "+strconv.Itoa(len(b)-4)+" do, "+strconv.Itoa(int(size)-(len(b)-4))+" are missing)")
			}
			require.Nil(t, f.Guess)
			var dec Decoder
			_, _, ferr := dec.AppendJSON(nil, bad, o)
			require.Equal(t, err.Error(), ferr.Error())
		}
	}
}

// Each reading tried is bounded by the caller's MaxNodes, as the API's
// budget is: a frame beyond it reads as no response at all.
func TestGuessHonoursMaxNodes(t *testing.T) {
	b, err := ExampleFrame(schema.ByName("Metadata"), 12, true)
	require.NoError(t, err)
	cands := guessed(b, Limits{MaxNodes: 8})
	require.Empty(t, cands)
	cands = guessed(b, Limits{})
	require.NotEmpty(t, cands)
}

// guessed is the ranking of the readings of b as a response of any API
// and version, within lim: the candidates of Frame.Guess, or none.
func guessed(b []byte, lim Limits) []Candidate {
	f, _ := Decode(b, Options{Response: true, APIKey: Any, Version: Any, Limits: lim})
	if f.Guess == nil {
		return nil
	}
	return f.Guess.Candidates
}

// A reading whose records field does not frame as record batches is
// doubted: Fetch v1 to v3 responses read as Fetch v4 put bytes of the
// partition into lastStableOffset and abortedTransactions and leave
// records that are no batches (magic 49) or a batch cut short at once,
// and were ranked first; the true versions read cleanly. With the API
// given as well as without.
func TestGuessDoubtsRecordsThatDoNotFrame(t *testing.T) {
	for v := int16(1); v <= 3; v++ {
		b, err := ExampleFrame(schema.ByKey(1), v, true)
		require.NoError(t, err)
		for _, key := range []int16{Any, 1} {
			f, err := Decode(b, Options{Response: true, APIKey: key, Version: Any})
			require.NoError(t, err, "Fetch v%d", v)
			require.Empty(t, f.Warnings, "Fetch v%d", v)
			top := f.Guess.Candidates[0]
			require.Equal(t, int16(1), top.APIKey)
			require.Contains(t, append(top.Versions, top.Version), v)
		}
	}
}

// A guessed response's annotated envelope says how it was guessed, as
// its value JSON does (the Worker's README promises "guess" in both).
func TestAnnotatedEnvelopeCarriesTheGuess(t *testing.T) {
	b, err := ExampleFrame(schema.ByKey(3), 12, true)
	require.NoError(t, err)
	f, err := Decode(b, Options{Response: true, APIKey: Any, Version: Any})
	require.NoError(t, err)
	var value, annotated map[string]any
	require.NoError(t, json.Unmarshal(f.AppendJSON(nil), &value))
	require.NoError(t, json.Unmarshal(f.AppendAnnotated(nil, nil), &annotated))
	require.NotNil(t, value["guess"])
	require.Equal(t, value["guess"], annotated["guess"])
	f, err = Decode(b, Options{Response: true, APIKey: 3, Version: 12})
	require.NoError(t, err)
	require.NotContains(t, string(f.AppendAnnotated(nil, nil)), `"guess"`)
}

// tagFlood is an ApiVersions v3 request whose body's tagged-field count
// says n+1 and which holds n empty unknown tags: the request fails at
// its end, and as a response it reads, under many an API and version, as
// thousands of unknown tags (the Worker spent seconds guessing 30 KB).
func tagFlood(n int) []byte {
	b := []byte{0, 0, 0, 0, 0, 18, 0, 3, 0, 0, 0, 7, 0, 7}
	b = append(b, "hostile"...)
	b = append(b, 0, 6)
	b = append(b, "kwire"...)
	b = append(b, 2, '1')
	b = binary.AppendUvarint(b, uint64(n+1))
	for i := range n {
		b = binary.AppendUvarint(b, uint64(i))
		b = append(b, 0)
	}
	binary.BigEndian.PutUint32(b, uint32(len(b)-4))
	return b
}

// TestGuessOfATagFloodIsBounded: a guess's readings together read at
// most guessNodes of the frame's size, and past the doubts a reading
// shows, its unknown tags build no text; the search that stops there says
// it was cut. Each 2-byte unknown tag had cost a warning, its path and its
// message in every reading tried (3,000 of them: 430 ms and a million
// allocations; now 20-30 ms).
func TestGuessOfATagFloodIsBounded(t *testing.T) {
	b := tagFlood(3000)
	var dec Decoder
	o := Options{Response: true, APIKey: Any, Version: Any}
	var info *Frame
	var err error
	allocs := testing.AllocsPerRun(1, func() { _, info, err = dec.AppendJSON(nil, b, o) })
	require.Less(t, allocs, 20000.0, "allocations of one guess")
	if err != nil {
		require.Contains(t, err.Error(), "before a work limit")
	} else {
		require.True(t, info.Guess.Cut)
	}
	lim := Limits{}.resolve(len(b))
	spend := lim.budgetValue()
	g := dec.guessResponses(b, false, nil, lim, &spend)
	require.True(t, g.Cut)
	require.LessOrEqual(t, g.nodes, guessNodes(len(b))+8, "a reading stops a warning past the bound")
	// Decoded as the request it is, its error is the request's.
	_, _, err = dec.AppendJSON(nil, b, Options{Auto: true})
	require.Error(t, err)
}
