package check

import "strings"

// classifyWarning names the rule a decoder warning breaks, by the words
// it starts (or ends) with; nil for a warning that breaks none (a version
// newer than kwire knows: conn.version judges versions). The decoder's
// warnings will carry a stable code; this function is then the one place
// that maps codes to rules.
func classifyWarning(msg string, inRecords bool) *Rule {
	switch {
	case strings.HasPrefix(msg, "non-minimal varint"):
		return FrameVarint
	case strings.HasPrefix(msg, "tag ") && strings.HasSuffix(msg, "(tags must ascend)"):
		return FrameTags
	case strings.HasPrefix(msg, "unknown tag "):
		return FrameUnknownTag
	case strings.HasPrefix(msg, "null where the schema says non-nullable"):
		return FrameNull
	case strings.HasSuffix(msg, " bytes after the value inside the tagged field"):
		return FrameTagSize
	case strings.HasPrefix(msg, "tagged field present with its default value"):
		return FrameTagDefault
	case strings.HasSuffix(msg, " bytes after the frame's declared size"):
		return FrameSize
	case strings.HasPrefix(msg, "version ") && strings.Contains(msg, "is newer than any known"):
		return nil
	case strings.HasPrefix(msg, "CRC-32C mismatch"), strings.HasPrefix(msg, "CRC-32 mismatch"):
		return RecordsCRC
	case strings.HasPrefix(msg, "recordCount is "):
		return RecordsCount
	case strings.HasPrefix(msg, "cannot decompress "):
		return RecordsCodec
	case strings.HasPrefix(msg, "the input ends inside this entry"):
		return RecordsTruncated
	case strings.HasPrefix(msg, "unknown control record type"), strings.HasPrefix(msg, "a control record key needs"),
		strings.HasPrefix(msg, "cannot decode LeaderChangeMessage"), strings.HasPrefix(msg, "cannot decode Snapshot"),
		strings.HasPrefix(msg, "cannot decode KRaft"), strings.HasPrefix(msg, "cannot decode Voters"):
		return RecordsControl
	case strings.HasPrefix(msg, "record ") && strings.Contains(msg, " at byte "):
		if negativeIn(msg) {
			return FrameNegative
		}
		return RecordsRecord
	case strings.HasSuffix(msg, " bytes after the headers"), strings.HasSuffix(msg, " bytes after the value"),
		strings.HasPrefix(msg, "inner message set: "):
		return RecordsRecord
	case strings.HasPrefix(msg, "unused attribute bits"), strings.HasPrefix(msg, "a compressed wrapper message has a null value"),
		strings.HasPrefix(msg, "lz4 frame header checksum"):
		return RecordsLenient
	}
	if inRecords {
		return RecordsLenient
	}
	return FrameLenient
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
