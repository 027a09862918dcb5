package codec

// What the external tests (package codec_test) need of the package's own
// test helpers: those that import packages which import codec
// (internal/capture) cannot live inside it.

// BothPaths is bothPaths: the tree sink and the JSON sink agree on b.
var BothPaths = bothPaths

// EachVersion is eachVersion: every API, direction and version.
var EachVersion = eachVersion
