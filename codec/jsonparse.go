package codec

import "github.com/kwire/kwire/codec/jsontext"

// parseJSON parses value JSON into the generic form Encode takes: objects
// as map[string]any, arrays as []any, numbers as json.Number (exact),
// strings, bools and nil (jsontext's parser: no reflection, so the
// WebAssembly build stays small; nesting is bounded). A syntax error is an
// *EncodeError whose message gives the byte offset, wrapping the
// *jsontext.SyntaxError.
func parseJSON(js []byte) (any, error) {
	v, err := jsontext.Parse(js)
	if err != nil {
		return nil, &EncodeError{Msg: err.Error(), Err: err}
	}
	return v, nil
}
