package codec_test

import (
	"bytes"
	"encoding/hex"
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/schema"
	"github.com/kwire/kwire/codec/wire"
)

// Decode a request frame (size prefix included) to value JSON.
func ExampleDecode() {
	b, _ := hex.DecodeString("0000001c00120003000000070005" + "6b77697265" + "00" + "076b7769726520" + "04312e30" + "00")
	f, err := codec.Decode(b, codec.Options{})
	if err != nil {
		panic(err)
	}
	fmt.Println(f.API.Name, f.Version, f.CorrelationID)
	fmt.Println(string(f.JSON()))
	// Output:
	// ApiVersions 3 7
	// {"direction":"request","apiKey":18,"apiName":"ApiVersions","apiVersion":3,"header":{"requestApiKey":18,"requestApiVersion":3,"correlationId":7,"clientId":"kwire"},"body":{"clientSoftwareName":"kwire ","clientSoftwareVersion":"1.0"}}
}

// A response does not say which API it answers: give the API key and version.
func ExampleDecode_response() {
	b, _ := hex.DecodeString("0000000a000000070000000000000000")
	f, err := codec.Decode(b, codec.Options{Response: true, APIKey: 18, Version: 0})
	fmt.Println(err)
	fmt.Println(string(f.JSON()))
	// Output:
	// <nil>
	// {"direction":"response","apiKey":18,"apiName":"ApiVersions","apiVersion":0,"header":{"correlationId":7},"body":{"errorCode":0,"apiKeys":[]}}
}

// Encode value JSON into a frame; fields left out take their defaults.
func ExampleEncodeJSON() {
	b, err := codec.EncodeJSON([]byte(`{"apiName":"Metadata","apiVersion":1,"header":{"correlationId":1,"clientId":"c"},"body":{"topics":[{"name":"orders"}]}}`), codec.EncodeOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%x\n", b)
	// Output:
	// 0000001700030001000000010001630000000100066f7264657273
}

// A proxy reads frames from a connection, looks at the header, and passes them on.
func ExampleParseRequestHeader() {
	conn := bytes.NewReader([]byte("\x00\x00\x00\x0e\x00\x12\x00\x00\x00\x00\x00\x01\x00\x04kcat"))
	frame, err := wire.ReadFrame(conn, nil, 1<<20)
	if err != nil {
		panic(err)
	}
	h, err := codec.ParseRequestHeader(frame, true)
	if err != nil {
		panic(err)
	}
	fmt.Println(schema.ByKey(h.APIKey).Name, h.APIVersion, h.CorrelationID, *h.ClientID)
	// Output:
	// ApiVersions 0 1 kcat
}
