package schema

// category places an API key in the group people look for it under. Kafka's
// schemas carry no such grouping, so this one table is kept by hand; a test
// checks that it covers every generated API.
func category(key int16) string {
	switch key {
	case 0, 1, 2, 21, 23:
		return "records"
	case 8, 9, 10, 11, 12, 13, 14, 15, 16, 42, 47, 68, 69, 88, 89, 93:
		return "consumer groups"
	case 76, 77, 78, 79, 83, 84, 85, 86, 87, 90, 91, 92:
		return "share groups"
	case 22, 24, 25, 26, 27, 28, 61, 65, 66, 67:
		return "transactions"
	case 3, 19, 20, 34, 35, 37, 43, 45, 46, 56, 73, 75:
		return "topics and partitions"
	case 17, 29, 30, 31, 36, 38, 39, 40, 41, 50, 51:
		return "security and ACLs"
	case 32, 33, 44, 48, 49, 57, 71, 72, 74:
		return "configuration and quotas"
	case 4, 5, 6, 7, 18, 52, 53, 54, 55, 58, 59, 60, 62, 63, 64, 70, 80, 81, 82, 94:
		return "cluster and KRaft"
	}
	return ""
}

// brokerSent is API.BrokerSent: the versions of an API's request that
// brokers send and clients do not, empty where clients send every version
// (or, as for WriteTxnMarkers or the KRaft APIs, no client sends any: this
// table is about the APIs a client sends too). The schemas cannot say it:
// their listeners name who receives a request, not who sends it, and the
// note in Kafka's AddPartitionsToTxnRequest.json that gives it is a
// comment, which the copies here drop. Kept by hand, as category is:
//
//   - AddPartitionsToTxn v4 and later (KIP-890): a partition leader asks
//     the transaction coordinator whether a producer's partitions are in
//     its transaction (or, with transactions version 2, adds them), many
//     transactions batched in one request; producers send v0-3.
func brokerSent(a *API) Range {
	switch a.Key {
	case KeyAddPartitionsToTxn:
		return Range{Lo: 4, Hi: a.Request.Valid.Hi}
	}
	return none
}

func init() {
	for _, a := range apis {
		a.BrokerSent = brokerSent(a)
	}
}

// enumFields maps field names to the enumeration their integer values come
// from (enums.tsv says which fields carry them).
var enumFields = map[string]string{
	"ResourceType":        "ResourceType",
	"ResourceTypeFilter":  "ResourceType",
	"Operation":           "AclOperation",
	"PermissionType":      "AclPermissionType",
	"PatternType":         "PatternType",
	"ResourcePatternType": "PatternType",
	"PatternTypeFilter":   "PatternType",
	"KeyType":             "CoordinatorType",
	"IsolationLevel":      "IsolationLevel",
	"CompressionType":     "CompressionType",
}

// EnumFor returns the enumeration a field's values are drawn from, or nil.
// The config APIs (DescribeConfigs, AlterConfigs, IncrementalAlterConfigs,
// ListConfigResources) use ConfigResourceType under the field
// name ResourceType; the ACL APIs use ResourceType.
func EnumFor(apiKey int16, f *Field) *Enum {
	if f == nil || (f.Kind != Int8 && f.Kind != Int16 && f.Kind != Int32) {
		return nil
	}
	n, ok := enumFields[f.Name]
	if !ok {
		return nil
	}
	if n == "ResourceType" && (apiKey == KeyDescribeConfigs || apiKey == KeyAlterConfigs || apiKey == KeyIncrementalAlterConfigs || apiKey == KeyListConfigResources) {
		n = "ConfigResourceType"
	}
	return enumByName(n)
}
