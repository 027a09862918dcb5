package codec

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/kwire/kwire/codec/schema"
)

// metadataV0 is a Metadata request body for v0 that gives fields of later
// versions too, and, in the first case, a name no version knows.
func metadataBody(bogus bool) map[string]any {
	b := map[string]any{"topics": []map[string]any{{"name": "a", "topicId": [16]byte{1}}}, "allowAutoTopicCreation": true,
		"includeClusterAuthorizedOperations": true, "includeTopicAuthorizedOperations": true}
	if bogus {
		b["bogus"] = 1
	}
	return b
}

// With Lenient, a name no version knows is the error, whatever the map's
// order puts first, and nothing is reported dropped by a call that fails.
func TestLenientUnknownNamed(t *testing.T) {
	for i := 0; i < 50; i++ { // map order varies from one range to the next
		var dropped []string
		_, err := Encode(nil, metadataBody(true), EncodeOptions{Body: true, APIKey: 3, Version: 0, Lenient: true,
			Dropped: func(p string) { dropped = append(dropped, p) }})
		require.EqualError(t, err, "body.bogus: unknown field; valid here: topics (at v0)")
		require.Empty(t, dropped)
	}
}

// Dropped is told each field dropped once the call has succeeded, in the
// order the structs are met (a struct before those inside it) and, within
// one, of the schema's fields, every time.
func TestLenientDroppedOrder(t *testing.T) {
	want := []string{"body.allowAutoTopicCreation", "body.includeClusterAuthorizedOperations", "body.includeTopicAuthorizedOperations", "body.topics[0].topicId"}
	for i := 0; i < 50; i++ {
		var dropped []string
		b, err := Encode(nil, metadataBody(false), EncodeOptions{Body: true, APIKey: 3, Version: 0, Lenient: true,
			Dropped: func(p string) { dropped = append(dropped, p) }})
		require.NoError(t, err)
		require.Equal(t, []byte{0, 0, 0, 1, 0, 1, 'a'}, b)
		require.Equal(t, want, dropped)
	}
	// A failure after fields were dropped reports none of them: here the
	// second topic's name, met after the first topic's topicId and the
	// body's fields were dropped.
	body := metadataBody(false)
	body["topics"] = []map[string]any{{"name": "a", "topicId": [16]byte{1}}, {"name": 5}}
	var dropped []string
	_, err := Encode(nil, body, EncodeOptions{Body: true, APIKey: 3, Version: 0, Lenient: true,
		Dropped: func(p string) { dropped = append(dropped, p) }})
	require.ErrorContains(t, err, "body.topics[1].name: expected a string")
	require.Empty(t, dropped)
	// EncodeResponse holds them back alike.
	h := RequestHeader{APIKey: 3, Version: 0, CorrelationID: 1}
	_, err = EncodeResponse(nil, h, 0, map[string]any{"throttleTimeMs": 1, "brokers": "x"}, EncodeOptions{Lenient: true,
		Dropped: func(p string) { dropped = append(dropped, p) }})
	require.ErrorContains(t, err, "body.brokers: expected an array")
	require.Empty(t, dropped)
	_, err = EncodeResponse(nil, h, 0, map[string]any{"throttleTimeMs": 1}, EncodeOptions{Lenient: true,
		Dropped: func(p string) { dropped = append(dropped, p) }})
	require.NoError(t, err)
	require.Equal(t, []string{"body.throttleTimeMs"}, dropped)
}

// Without Lenient, a name no version knows is named before a field of
// other versions; a field of other versions is said to be one.
func TestFieldOfOtherVersions(t *testing.T) {
	for i := 0; i < 20; i++ {
		_, err := Encode(nil, metadataBody(true), EncodeOptions{Body: true, APIKey: 3, Version: 0})
		require.EqualError(t, err, "body.bogus: unknown field; valid here: topics (at v0)")
		_, err = Encode(nil, metadataBody(false), EncodeOptions{Body: true, APIKey: 3, Version: 0})
		require.EqualError(t, err, "body.allowAutoTopicCreation: a field of v4+ only; valid here: topics (at v0)")
	}
	_, err := Encode(nil, map[string]any{"topics": nil, "includeClusterAuthorizedOperations": true}, EncodeOptions{Body: true, APIKey: 3, Version: 11})
	require.EqualError(t, err, "body.includeClusterAuthorizedOperations: a field of v8-10 only; valid here: topics, allowAutoTopicCreation, includeTopicAuthorizedOperations, _unknownTaggedFields (at v11)")
}

// _unknownTaggedFields where the version has no tagged fields: refused
// in words that say so, dropped (and reported) by Lenient; a struct with
// no fields at the version says that too.
func TestUnknownTagsNotFlexible(t *testing.T) {
	tags := []any{map[string]any{"tag": 7, "data": "AQ=="}}
	_, err := Encode(nil, map[string]any{"_unknownTaggedFields": tags}, EncodeOptions{Body: true, APIKey: 18, Version: 0})
	require.EqualError(t, err, "body._unknownTaggedFields: expected no tagged fields (v0 is not a flexible version: it has none), found _unknownTaggedFields")
	var dropped []string
	b, err := Encode(nil, map[string]any{"_unknownTaggedFields": tags}, EncodeOptions{Body: true, APIKey: 18, Version: 0, Lenient: true,
		Dropped: func(p string) { dropped = append(dropped, p) }})
	require.NoError(t, err)
	require.Empty(t, b)
	require.Equal(t, []string{"body._unknownTaggedFields"}, dropped)
	b, err = Encode(nil, map[string]any{"_unknownTaggedFields": tags}, EncodeOptions{Body: true, APIKey: 18, Version: 3})
	require.NoError(t, err)
	require.Equal(t, []byte{1, 1, 1, 7, 1, 1}, b) // a compact empty name and version, then one tag: 7, of 1 byte
	_, err = Encode(nil, map[string]any{"nope": 1}, EncodeOptions{Body: true, APIKey: 18, Version: 0, Lenient: true})
	require.EqualError(t, err, "body.nope: unknown field; none is valid here (at v0)")
}

// One value answers every version: an API's example at its newest
// version, Lenient, encodes at each of its versions, those another
// schema folder lays out included (Produce v0-2, OffsetCommit v0-1 are
// the legacy folder's), each field it lacks dropped and reported.
func TestLenientEveryVersion(t *testing.T) {
	for _, api := range schema.APIs() {
		for _, response := range []bool{false, true} {
			m := api.Request
			if response {
				m = api.Response
			}
			newest := Example(api, m.Valid.Hi, response)
			for v := m.Valid.Lo; v <= m.Valid.Hi; v++ {
				_, err := Encode(nil, newest["body"], EncodeOptions{Body: true, Response: response, APIKey: api.Key, Version: v, Lenient: true})
				require.NoError(t, err, "%s v%d", m.Name, v)
			}
		}
	}
	// Produce v2, whose layout is the legacy folder's, drops topicId (v13+);
	// without Lenient, the error says where it is a field.
	body := map[string]any{"acks": -1, "timeoutMs": 1000, "topicData": []map[string]any{{"name": "t", "topicId": [16]byte{1}, "partitionData": []any{}}}}
	var dropped []string
	_, err := Encode(nil, body, EncodeOptions{Body: true, APIKey: 0, Version: 2, Lenient: true, Dropped: func(p string) { dropped = append(dropped, p) }})
	require.NoError(t, err)
	require.Equal(t, []string{"body.topicData[0].topicId"}, dropped)
	_, err = Encode(nil, body, EncodeOptions{Body: true, APIKey: 0, Version: 2})
	require.EqualError(t, err, "body.topicData[0].topicId: a field of v13+ only; valid here: name, partitionData (at v2)")
	_, err = Encode(nil, map[string]any{"bogus": 1}, EncodeOptions{Body: true, APIKey: 0, Version: 2, Lenient: true})
	require.ErrorContains(t, err, "body.bogus: unknown field")
}
