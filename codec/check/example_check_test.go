package check_test

import (
	"fmt"

	"github.com/kwire/kwire/codec"
	"github.com/kwire/kwire/codec/check"
)

// A client's conversation, frames as a file holds them: the broker's
// ApiVersions answer offers Metadata up to v12, and the client then asks
// at v13. FromFrames pairs the frames by correlation id; Check applies
// every rule and says what the client got wrong, and where.
func ExampleCheck() {
	var frames [][]byte
	for _, js := range []string{
		`{"apiName":"ApiVersions","apiVersion":3,"header":{"correlationId":1,"clientId":"app"},
		  "body":{"clientSoftwareName":"app","clientSoftwareVersion":"1.0"}}`,
		`{"direction":"response","apiName":"ApiVersions","apiVersion":3,"header":{"correlationId":1},
		  "body":{"errorCode":0,"apiKeys":[{"apiKey":3,"minVersion":0,"maxVersion":12},{"apiKey":18,"minVersion":0,"maxVersion":3}],"throttleTimeMs":0}}`,
		`{"apiName":"Metadata","apiVersion":13,"header":{"correlationId":2,"clientId":"app"},
		  "body":{"topics":[{"name":"orders"}],"allowAutoTopicCreation":false,"includeTopicAuthorizedOperations":false}}`,
		`{"direction":"response","apiName":"Metadata","apiVersion":13,"header":{"correlationId":2},
		  "body":{"throttleTimeMs":0,"brokers":[],"clusterId":null,"controllerId":-1,"topics":[],"errorCode":0}}`,
	} {
		b, err := codec.Encode(nil, []byte(js), codec.EncodeOptions{})
		if err != nil {
			fmt.Println(err)
			return
		}
		frames = append(frames, b)
	}
	for _, f := range check.Check(check.FromFrames(frames)) {
		fmt.Println(f.String())
	}
	// Output:
	// conn.version error frame 3 correlation 2 request: Metadata v13 is outside what the broker advertised, expected v0-12, found v13
}
