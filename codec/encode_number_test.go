package codec

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// An integer field given a number that is no integer, or one out of its
// range, says the number as written (not quoted as if it were a string),
// and a number of hundreds of digits is cut, not repeated whole.
func TestEncodeSaysTheNumberAsWritten(t *testing.T) {
	enc := func(corr, timeout string) error {
		_, err := Encode(nil, `{"apiKey":0,"apiVersion":9,"header":{"correlationId":`+corr+`},"body":{"acks":1,"timeoutMs":`+timeout+`,"topicData":[]}}`, EncodeOptions{})
		return err
	}
	require.ErrorContains(t, enc("1", "1.5"), "expected an integer, found 1.5")
	err := enc(strings.Repeat("9", 600), "1")
	require.ErrorContains(t, err, "found 99999999999999999999… (600 characters)")
	require.Less(t, len(err.Error()), 200)
}
