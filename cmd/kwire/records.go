package main

import "github.com/kwire/kwire/codec"

// recordsMode turns --records into the JSON options and decode hooks.
func recordsMode(mode string) (codec.JSONOptions, codec.Hooks, error) {
	switch mode {
	case "decoded", "base64", "size":
		return codec.JSONOptions{}, nil, nil
	}
	return codec.JSONOptions{}, nil, errorf("--records must be decoded, base64 or size, not %q", mode)
}
