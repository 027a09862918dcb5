package codec_test

import (
	"fmt"
	"net"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// serve is a toy broker: it answers ApiVersions and Metadata on conn until
// the client hangs up. It knows one topic, "orders", with two partitions.
func serve(conn net.Conn) {
	defer conn.Close()
	var buf []byte
	for {
		frame, err := wire.ReadFrame(conn, buf, 1<<20)
		if err != nil {
			return // io.EOF: the client closed the connection
		}
		buf = frame
		h, err := codec.ParseRequestHeader(frame, codec.Options{})
		if err != nil {
			return
		}
		var body map[string]any
		switch h.APIKey {
		case schema.KeyApiVersions:
			var keys []map[string]any
			for _, k := range []int16{schema.KeyMetadata, schema.KeyApiVersions} {
				keys = append(keys, map[string]any{"apiKey": k, "minVersion": 0, "maxVersion": schema.ByKey(k).Request.Valid.Hi})
			}
			body = map[string]any{"errorCode": schema.CodeNone, "apiKeys": keys, "throttleTimeMs": 0}
		case schema.KeyMetadata:
			req, err := codec.Decode(frame[4+h.Size:], codec.Options{Body: true, APIKey: h.APIKey, Version: h.Version})
			if err != nil {
				return
			}
			var topics []map[string]any
			for _, asked := range req.Body.Get("topics").Elems() {
				name := string(asked.Get("name").Raw)
				t := map[string]any{"errorCode": schema.CodeUnknownTopicOrPartition, "name": name, "partitions": []any{}}
				if name == "orders" {
					t["errorCode"] = schema.CodeNone
					t["partitions"] = []map[string]any{
						{"errorCode": schema.CodeNone, "partitionIndex": 0, "leaderId": 1, "replicaNodes": []int32{1}, "isrNodes": []int32{1}},
						{"errorCode": schema.CodeLeaderNotAvailable, "partitionIndex": 1, "leaderId": -1, "replicaNodes": []int32{1}, "isrNodes": []int32{}},
					}
				}
				topics = append(topics, t)
			}
			body = map[string]any{
				"brokers":      []map[string]any{{"nodeId": 1, "host": "localhost", "port": 9092}},
				"controllerId": 1,
				"topics":       topics,
			}
		default:
			return
		}
		resp, err := codec.EncodeResponse(nil, h, h.Version, body, codec.EncodeOptions{}) // fields left out take their defaults
		if err != nil {
			panic(err) // a bug in the body above
		}
		if _, err := conn.Write(resp); err != nil {
			return
		}
	}
}

// roundTrip sends a request built from Go values and decodes the response.
func roundTrip(conn net.Conn, apiKey, version int16, correlationID int32, body map[string]any) *codec.Frame {
	req, err := codec.Encode(nil, map[string]any{
		"apiKey": apiKey, "apiVersion": version,
		"header": map[string]any{"correlationId": correlationID, "clientId": "example"},
		"body":   body,
	}, codec.EncodeOptions{})
	if err != nil {
		panic(err)
	}
	if _, err := conn.Write(req); err != nil {
		panic(err)
	}
	frame, err := wire.ReadFrame(conn, nil, 1<<20)
	if err != nil {
		panic(err)
	}
	// A response does not say what it answers: the client remembers.
	f, err := codec.Decode(frame, codec.Options{Response: true, APIKey: apiKey, Version: version})
	if err != nil {
		panic(err)
	}
	return f
}

// A broker answers ApiVersions and Metadata over a connection (here the two
// ends of net.Pipe), and a client decodes the replies: requests and
// responses are built from plain Go values, read back by path, and their
// error codes listed with their names.
func Example_broker() {
	client, server := net.Pipe()
	go serve(server)
	defer client.Close()

	f := roundTrip(client, schema.KeyApiVersions, 3, 1, map[string]any{"clientSoftwareName": "example", "clientSoftwareVersion": "1.0"})
	for _, k := range f.Body.Get("apiKeys").Elems() {
		fmt.Printf("%s v%d-%d\n", schema.APIName(int16(k.Get("apiKey").Int)), k.Get("minVersion").Int, k.Get("maxVersion").Int)
	}

	f = roundTrip(client, schema.KeyMetadata, 12, 2, map[string]any{
		"topics": []map[string]any{{"name": "orders"}, {"name": "payments"}},
	})
	fmt.Println("correlation id", f.CorrelationID)
	leader, err := f.Root.Lookup("body.topics[0].partitions[0].leaderId")
	if err != nil {
		panic(err) // the error says which step of the path is missing
	}
	fmt.Println("leader of orders/0:", leader.Int)
	for _, e := range f.ErrorCodes() {
		if e.Code != schema.CodeNone {
			fmt.Println(e.Path, e.Name)
		}
	}
	// Output:
	// Metadata v0-13
	// ApiVersions v0-5
	// correlation id 2
	// leader of orders/0: 1
	// body.topics[0].partitions[1].errorCode LEADER_NOT_AVAILABLE
	// body.topics[1].errorCode UNKNOWN_TOPIC_OR_PARTITION
}
