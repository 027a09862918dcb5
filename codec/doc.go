// Package codec reads and writes Kafka's wire protocol for every API, at
// every version Kafka's message schemas have ever defined, requests and
// responses, headers, tagged fields and records.
//
// It is an interpreter, not generated code per message: Kafka's JSON
// message schemas are turned into tables (package schema), and one decoder
// and one encoder walk those tables. Decoding gives a tree in which every
// byte of the frame belongs to a node that knows its span: the size
// prefix, the header, each field, length and count prefixes, tag numbers
// and sizes, unknown tags, record batches and their decompressed contents,
// trailing bytes. Value JSON (Kafka's JSON form, with records and
// consumer-protocol metadata shown decoded, or, with Options.Kafka, exactly Kafka's form: every bytes field base64; a
// tagged field appears exactly when the bytes carry it) is written from
// it, and the encoder takes that JSON, or the same values built in Go,
// back to bytes: encode(decode(b)) == b for every frame decoded without
// warnings. Decoding never panics; bad input gives a *DecodeError with the
// byte offset and field path, beside the partial tree. The package does no
// I/O beyond a reader or writer its caller hands over, and keeps no global
// mutable state.
//
// What is here:
//
//   - Decode and a reusable Decoder turn a frame into a Frame, its header
//     and body in one call (Options.Body reads a body alone, Options.Data a
//     data message or records field: with Version Any for a data message
//     whose bytes start with their version, as consumer-protocol data
//     does); Frame.AppendJSON writes value JSON, AppendAnnotated the tree
//     with spans.
//   - Decoder.AppendJSON and WriteJSON write the same value JSON straight
//     from the bytes, without a tree, streaming big frames; the Frame they
//     return says what they learnt. Options.Auto, or a response's APIKey or
//     Version set to Any, reads a frame whose API and version are not known
//     (Frame.Guess ranks the readings).
//   - Limits (in Options) bound one frame's budget of nodes, decompressed
//     bytes, nesting and work; a limit that cuts decoding short is a
//     Warning, listed with every lenient reading by Frame.Warnings and in
//     the JSON's "warnings".
//   - The tree's nodes are read by value JSON's names: Get, Elems and
//     Count; Lookup("body.topics[0].partitions[2]") from Frame.Root, whose
//     error says which step failed; Value gives Go values.
//     Frame.ErrorCodes lists every error code with its path and name.
//   - Encode writes frames (or a body alone, a data message, a records
//     field) from value JSON or Go values (every integer width, []byte,
//     []int32, []map[string]any, what Value gives, ...); EncodeResponse
//     answers a parsed RequestHeader with a whole response frame. With
//     EncodeOptions.Lenient one value answers every version: the fields a
//     version lacks are dropped, and reported to Dropped.
//   - ParseRequestHeader reads what a proxy or broker needs to route a
//     request; package wire reads and writes size-prefixed frames on a
//     connection; package schema has a constant for every API key
//     (schema.KeyMetadata) and error code (schema.CodeNotLeaderOrFollower).
//   - Example and ExampleFrame give a deterministic example of every API,
//     version and direction. Example_broker (codec/example_broker_test.go,
//     which go doc does not show; pkg.go.dev does) is a small broker,
//     answering kcat and franz-go's kgo, whose handlers know no versions.
//   - A response's header is its correlation id, the 4 bytes after the
//     size (binary.BigEndian.Uint32(frame[4:8])): a proxy pairs it with
//     its request's, whose API key and version decode the response
//     (Options.Response, APIKey, Version). A Produce request with acks 0
//     gets no response.
//
// When typed structs fit better: a client or broker that speaks a fixed set
// of APIs and versions, and wants the compiler to check field names and
// types, is better served by franz-go's kmsg, which generates a Go struct
// per message (kmsg.MetadataResponse) and decodes into it without a tree or
// maps. kwire is for the other cases: the API or version is known only at
// run time (a proxy, a capture, a log line); every version ever defined
// must work, removed ones included; the position and meaning of each byte
// matter (debugging, teaching, checking another implementation); or a
// frame should survive a round trip exactly, quirks and unknown tags
// included. The two agree byte for byte: kwire's tests check every API and
// version against kmsg.
package codec
