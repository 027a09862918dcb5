// Package check applies Kafka protocol rules to frames and conversations:
// the checks a client or broker author wants before a confused peer finds
// the mistake in production.
//
// Rules come at four levels. Frame rules read one decoded frame (sizes,
// the header version against the API version's flexibility, varints,
// tagged fields, nulls, enumerations, negative lengths, a Fetch's session
// fields); records rules read
// the record batches inside Produce requests and Fetch responses (CRCs, the
// batch header against its records, the codec, the magic against the API
// version, control batches, producer ids); connection rules read one
// connection's exchanges in order (versions against the broker's
// ApiVersions answer, correlation ids, the order of responses, SASL, a
// version repeated after UNSUPPORTED_VERSION, fetch sessions asked for
// and left unused); conversation rules read
// every connection of a capture (idempotent sequences, transactions,
// consumer fetch and commit offsets, fetch sessions' ids, epochs and
// sides of Fetch v13, and the broker's answers to them,
// consumer group members' generations and member epochs). Each rule has
// an id, a severity and
// a one-line statement (Rules); its page (package ruledoc) says what Kafka
// requires and where Kafka's code or a KIP says so.
//
// Rules follow what Kafka's broker and Java client enforce: Error for what
// they refuse, Warning for what they accept or repair but a peer may trip
// on, Note for what is allowed and worth knowing. What real clients do and
// Kafka allows is not flagged (kafkajs's non-idempotent batches with
// producer id -1, epoch 0 and sequence 0; transaction markers with
// sequence -1 in Fetch responses). Findings never stop decoding; a rule
// that cannot be judged (a capture that starts in the middle of a
// conversation, a decoding limit) says so once, as a Finding with Skipped
// set, instead of guessing; the transactions End does not judge, once for
// each reason, with every producer id. Bytes a capture lost and exchanges a proxy
// skipped (Checker.Missed) are such: a rule that follows a connection or
// the conversation judges nothing they could hold.
//
// Use: an Analyzer per goroutine reads each exchange (Analyze: the frame
// and records rules, and what later rules need); one Checker takes the
// analyses in the order the exchanges completed (Add: the connection and
// conversation rules) and, once everything was seen, End. Check does both
// for a slice. FromFrames pairs frames read from a file as one
// connection's conversation.
//
// The package reads frames through the codec's public API in one file
// (adapter.go) and maps the decoder's warnings to rules in one function
// (classifyWarning, classify.go). It does no I/O, uses no reflection and
// no fmt, and builds for the browser's WebAssembly.
//
// # Adding a rule
//
//  1. Declare it in rules.go (id "level.name", level, severity, one-line
//     statement) and add it to the rules table; the docs site's rule table
//     is generated from it.
//  2. Judge it: a frame rule in frame.go (a decoder warning it stands for
//     goes through classifyWarning), a records rule in frame.go's records
//     part, a connection rule in checker.go, a conversation rule in
//     conversation.go (a consumer group member's, in group.go; a fetch
//     session's, in fetchsession.go, the connection rule
//     of unused sessions too). What it reads of a frame is added to frameFacts and
//     filled in adapter.go, nowhere else.
//  3. Give it an example in examples_test.go (ruleExamples: the fault and
//     its clean twin, built with kmsg) and run
//     go test ./codec/check -run TestRuleExamples -update to write it to
//     ruledoc/examples; the test checks the fault is flagged with exactly
//     that rule and the twin with none.
//  4. Write its page in ruledoc/pages.go: what Kafka requires, where
//     (paths in apache/kafka, KIPs), what real clients do.
//  5. If a real client breaks it in a way Kafka allows, say so on the page
//     and keep the rule from flagging it; the captures in testdata/captures
//     must stay free of error-level findings.
package check
