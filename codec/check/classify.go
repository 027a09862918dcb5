package check

import "strings"

// classifyWarning names the rule a decoder warning breaks, by the words
// it starts (or ends) with; nil for a warning that breaks none (a version
// newer than kwire knows: frameRules makes that frame.api, ApiVersions
// aside). The decoder's
// warnings will carry a stable code; warningRules is then the one place
// that maps codes to rules.
func classifyWarning(msg string, inRecords bool) *Rule {
	switch {
	case strings.HasPrefix(msg, "version ") && strings.Contains(msg, "is newer than any known"):
		return nil
	case strings.HasPrefix(msg, "record ") && strings.Contains(msg, " at byte "):
		if negativeIn(msg) {
			return FrameNegative
		}
		return RecordsRecord
	}
	for _, r := range warningRules {
		if strings.HasPrefix(msg, r.prefix) && strings.HasSuffix(msg, r.suffix) {
			return r.rule
		}
	}
	if inRecords {
		return RecordsLenient
	}
	return FrameLenient
}

// warningRules maps a decoder warning, by the words it starts with (prefix)
// and ends with (suffix; "" matches any), to the rule it breaks; the first
// that matches names it (nil: a warning a rule of frameRules judges
// itself). classifyWarning tries its two cases first: no
// warning the decoder writes as "version N is newer than any known ..." or
// "record N at byte P: ..." (a record that failed to parse) ends as an
// entry's suffix says.
var warningRules = []struct {
	prefix, suffix string
	rule           *Rule
}{
	{"non-minimal varint", "", FrameVarint},
	{"tag ", "(tags must ascend)", FrameTags},
	{"unknown tag ", "", FrameUnknownTag},
	{"null where the schema says non-nullable", "", FrameNull},
	{"", " bytes after the value inside the tagged field", FrameTagSize},
	{"tagged field present with its default value", "", FrameTagDefault},
	{"", " bytes after the frame's declared size", FrameSize},
	{"1 byte after the frame's declared size", "", FrameSize},
	{"CRC-32C mismatch", "", RecordsCRC},
	{"CRC-32 mismatch", "", RecordsCRC},
	{"recordCount is ", "", RecordsCount},
	{"cannot decompress ", "", RecordsCodec},
	{"the input ends inside this entry", "", RecordsTruncated},
	{"unknown control record type", "", RecordsControl},
	{"a control record key needs", "", RecordsControl},
	{"cannot decode LeaderChangeMessage", "", RecordsControl},
	{"cannot decode Snapshot", "", RecordsControl},
	{"cannot decode KRaft", "", RecordsControl},
	{"cannot decode Voters", "", RecordsControl},
	{"", " bytes after the headers", RecordsRecord},
	{"", " bytes after the value", RecordsRecord},
	{"inner message set: ", "", RecordsRecord},
	// A record outside its batch's offsets: records.last-offset-delta
	// judges the batch's deltas from its facts (frameRules), once.
	{"offsetDelta ", "", nil},
	{"unused attribute bits", "", RecordsLenient},
	{"a compressed wrapper message has a null value", "", RecordsLenient},
	{"lz4 frame header checksum", "", RecordsLenient},
}

// negativeIn reports whether a record failure names a negative length or
// count ("key length -5 does not fit ..."): the decoder fails a record only
// for negatives Kafka does not allow (-1 is null for keys and values).
func negativeIn(msg string) bool {
	return strings.Contains(msg, "length -") || strings.Contains(msg, "count -")
}

// classifyFailure names the rule a decoding failure breaks.
func classifyFailure(f *decodeFailure) *Rule {
	e := f.Expected
	switch {
	case strings.HasPrefix(e, "a non-negative frame size"), strings.HasPrefix(e, "the end of the message"),
		strings.HasPrefix(e, "the end of the body"), strings.HasPrefix(e, "a size of at most "):
		return FrameSize
	case strings.HasPrefix(e, "a known API key"):
		return FrameAPI
	case strings.Contains(e, " version ") && strings.HasPrefix(f.Found, "version "):
		return FrameAPI
	case strings.HasPrefix(e, "a length of -1 or more"), strings.HasPrefix(e, "a count of -1 or more"):
		return FrameNegative
	}
	return FrameDecode
}
