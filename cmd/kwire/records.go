package main

import (
	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/records"
)

// recordsMode turns --records into JSON options: decoded batches, base64 or size.
func recordsMode(mode string) (codec.JSONOptions, error) {
	switch mode {
	case "decoded":
		return codec.JSONOptions{Records: records.Decoded}, nil
	case "base64":
		return codec.JSONOptions{Records: records.Base64}, nil
	case "size":
		return codec.JSONOptions{Records: records.Size}, nil
	}
	return codec.JSONOptions{}, errorf("--records must be decoded, base64 or size, not %q", mode)
}
