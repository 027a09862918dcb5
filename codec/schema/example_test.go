package schema_test

import (
	"fmt"

	"github.com/kwire/kwire/codec/schema"
)

// Error codes by name and back. Old names, such as the
// NOT_LEADER_FOR_PARTITION that clients before Kafka 2.6 print, are
// accepted too.
func ExampleErrorName() {
	fmt.Println(schema.ErrorName(3))
	fmt.Println(schema.ErrorName(schema.CodeNotLeaderOrFollower))
	code, _ := schema.ErrorCodeByName("not_coordinator")
	fmt.Println(code, code == schema.CodeNotCoordinator)
	code, _ = schema.ErrorCodeByName("NOT_LEADER_FOR_PARTITION")
	fmt.Println(code)
	// Output:
	// UNKNOWN_TOPIC_OR_PARTITION
	// NOT_LEADER_OR_FOLLOWER
	// 16 true
	// 6
}

// The constants are untyped: they compare with any integer, such as the
// int16 API key of a parsed request header.
func ExampleAPIName() {
	var apiKey int16 = 18
	if apiKey == schema.KeyApiVersions {
		fmt.Println(schema.APIName(apiKey))
	}
	// Output:
	// ApiVersions
}

// Find an API by any name it has had, and read its versions.
func ExampleByName() {
	a := schema.ByName("ListClientMetricsResources") // its name before Kafka renamed it
	fmt.Println(a.Key, a.Name, a.Request.Valid)
	a = schema.ByName("findcoordinatorrequest")
	fmt.Println(a.Key, a.Name, a.Request.Valid, a.Request.Flexible(3))
	// Output:
	// 74 ListConfigResources 0-1
	// 10 FindCoordinator 0-6 true
}
