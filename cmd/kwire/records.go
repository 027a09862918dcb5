package main

import (
	"github.com/kwire/kwire/codec"
)

// jsonForm is what --records and --kafka say of value JSON.
type jsonForm struct {
	records codec.RecordsMode
	kafka   bool
	int64s  bool // int64 values as strings (--int64-strings)
}

// apply puts the form into decode options.
func (j jsonForm) apply(o codec.Options) codec.Options {
	o.Records, o.Kafka, o.Int64Strings = j.records, j.kafka, j.int64s
	return o
}

// recordsMode turns --records into a JSON form: decoded batches, base64 or size.
func recordsMode(mode string) (jsonForm, error) {
	switch mode {
	case "decoded":
		return jsonForm{records: codec.RecordsDecoded}, nil
	case "base64":
		return jsonForm{records: codec.RecordsBase64}, nil
	case "size":
		return jsonForm{records: codec.RecordsSize}, nil
	}
	return jsonForm{}, errorf("--records must be decoded, base64 or size, not %q", mode)
}
