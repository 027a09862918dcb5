//go:build schema_bootstrap

package schema

// With the schema_bootstrap tag the package builds without tables_gen.go:
// the generator (internal/gen) imports this package for its types, and
// must build even when the tables it is about to rewrite are stale or
// broken. These empty tables stand in for the generated ones.

var (
	apis           []*API
	apiByKey       []*API
	requestHeader  *Message
	responseHeader *Message
	dataMessages   []*Message
	errorNames     = [...]string{}
	enums          []*Enum

	internalMessages []*Message
	internalTopics   []*InternalTopic
)

const errorBase = 0
