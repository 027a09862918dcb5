package codec

import (
	"encoding/base64"
	"encoding/json"
	"hash/fnv"
	"strconv"
	"strings"

	"github.com/kwire/kwire/codec/jsontext"
	"github.com/kwire/kwire/codec/schema"
)

// The values examples carry. The structure of every example comes from the
// generated tables; what each field holds comes from here: a hand-kept
// table of what a client or a broker would send, in one small world (a
// consumer group "billing" reading the topic "orders" from a three-broker
// cluster, a producer writing to it, an admin client describing it), with
// values taken from the captures of real clients (testdata/captures) where
// they cover an API; TestExamplesAgreeWithCaptures keeps them in step, and
// TestExamplesArePlausible checks every example against the rules (enums
// in range, error codes NONE, no placeholder text).

// exampleTime is when the examples happen: 2025-06-02 09:30:00 UTC.
const exampleTime = 1748856600000

// exNull is a value of null (for nullable fields; "" or [] otherwise).
type exNull struct{}

// exampleTable holds the values: one line per field, "Struct.Field" (Struct
// is the schema's struct name, the message's name for top-level fields) or
// a field name alone, a tab, and the value as JSON: null for null (or ""
// and [] where the field is not nullable), numbers, strings, arrays (an
// array field's whole value), {"text": ...} or {"base64": ...} for bytes.
// Lines starting with # are notes. It is text, looked up as text, so that
// nothing is built at init (every process and each Worker isolate's
// instance pays for what init builds) and the WebAssembly build pays a few
// kilobytes, not a switch's hundred.
const exampleTable = `
# Everywhere.
ThrottleTimeMs	0
ErrorMessage	null
TimeoutMs	30000
timeoutMs	30000
ClusterId	"5L6g3nShT-eMCtK--X86sw"
Host	"broker-1.kafka.example.com"
Port	9092
Rack	"use1-az1"
NodeId	1
LeaderId	1
ControllerId	1
BrokerId	1
LeaderEpoch	0
ProducerId	4001
ProducerEpoch	0
MemberId	"consumer-billing-1-8b3c8f4e-2a1d-4f6e-9c35-7d1e0b6a4c21"
GroupInstanceId	null
GenerationId	5
MemberEpoch	5
ProtocolType	"consumer"
ProtocolName	"cooperative-sticky"
Reason	null
RackId	null
PartitionIndex	0
Partition	0
PartitionId	0
Index	0
IsInternal	false
ValidateOnly	false
validateOnly	false
BrokerEpoch	412
Iterations	4096
ClientId	"consumer-billing-1"
ClientHost	"/10.0.3.17"
Principal	"User:alice"
AclCreation.Host	"*"
AclDescription.Host	"*"
DeleteAclsMatchingAcl.Host	"*"
# ApiVersions.
ApiVersionsRequest.ClientSoftwareName	"apache-kafka-java"
ApiVersionsRequest.ClientSoftwareVersion	"4.0.0"
ApiVersion.ApiKey	0
# Kafka 4.x brokers still advertise Produce from v0 (KAFKA-18659: librdkafka
# took a minimum of 3 to mean no idempotence), and refuse v0-2 when sent.
ApiVersion.MinVersion	0
ApiVersion.MaxVersion	13
# A consumer is no KRaft node: it names neither a node nor a cluster.
ApiVersionsRequest.NodeId	-1
ApiVersionsRequest.ClusterId	null
SupportedFeatureKey.Name	"kraft.version"
SupportedFeatureKey.MinVersion	0
SupportedFeatureKey.MaxVersion	1
FinalizedFeatureKey.Name	"kraft.version"
FinalizedFeatureKey.MaxVersionLevel	1
FinalizedFeatureKey.MinVersionLevel	1
FinalizedFeaturesEpoch	412
ZkMigrationReady	false
# Produce: an idempotent producer, acks=all, to a new topic.
ProduceRequest.TransactionalId	null
Acks	-1
BaseOffset	0
LogAppendTimeMs	-1
LogStartOffset	0
RecordErrors	[]
BatchIndex	0
BatchIndexErrorMessage	null
LeaderIdAndEpoch.LeaderId	1
LeaderIdAndEpoch.LeaderEpoch	0
# A partition's current leader and the leaders' endpoints go with
# NOT_LEADER_OR_FOLLOWER or FENCED_LEADER_EPOCH (KIP-951): an answer
# without an error leaves them at their defaults, tagged ones left out.
ProduceResponse:LeaderIdAndEpoch.LeaderId	-1
ProduceResponse:LeaderIdAndEpoch.LeaderEpoch	-1
ProduceResponse.NodeEndpoints	[]
FetchResponse:LeaderIdAndEpoch.LeaderId	-1
FetchResponse:LeaderIdAndEpoch.LeaderEpoch	-1
FetchResponse.NodeEndpoints	[]
ShareFetchResponse:LeaderIdAndEpoch.LeaderId	-1
ShareFetchResponse:LeaderIdAndEpoch.LeaderEpoch	-1
ShareFetchResponse.NodeEndpoints	[]
ShareAcknowledgeResponse:LeaderIdAndEpoch.LeaderId	-1
ShareAcknowledgeResponse:LeaderIdAndEpoch.LeaderEpoch	-1
ShareAcknowledgeResponse.NodeEndpoints	[]
# Fetch: a consumer (replica -1) starting a fetch session at offset 0.
FetchRequest.ReplicaId	-1
MaxWaitMs	500
MinBytes	1
FetchRequest.MaxBytes	52428800
MaxBytes	52428800
FetchSnapshotRequest.MaxBytes	8388608
FetchRequest.IsolationLevel	0
SessionId	0
SessionEpoch	0
CurrentLeaderEpoch	0
FetchOffset	0
LastFetchedEpoch	-1
FetchPartition.LogStartOffset	-1
PartitionMaxBytes	1048576
FetchPartition.HighWatermark	9223372036854775807
ForgottenTopicsData	[]
FetchRequest.RackId	""
FetchRequest.ClusterId	null
ReplicaState.ReplicaId	-1
ReplicaState.ReplicaEpoch	-1
FetchResponse.SessionId	1234567
HighWatermark	1
LastStableOffset	1
PartitionData.LogStartOffset	0
AbortedTransactions	null
PreferredReadReplica	-1
EpochEndOffset.Epoch	-1
EpochEndOffset.EndOffset	-1
SnapshotId.EndOffset	-1
SnapshotId.Epoch	-1
AbortedTransaction.FirstOffset	0
# ListOffsets: where a consumer with auto.offset.reset=earliest starts.
ListOffsetsRequest.ReplicaId	-1
ListOffsetsRequest.IsolationLevel	0
ListOffsetsPartition.Timestamp	-2
MaxNumOffsets	1
ListOffsetsPartitionResponse.Timestamp	-1
Offset	0
OldStyleOffsets	[0]
# Metadata.
MetadataRequest.AllowAutoTopicCreation	false
IncludeClusterAuthorizedOperations	false
IncludeTopicAuthorizedOperations	false
MetadataRequestTopic.TopicId	"AAAAAAAAAAAAAAAAAAAAAA"
ReplicaNodes	[1,2,3]
IsrNodes	[1,2,3]
OfflineReplicas	[]
TopicAuthorizedOperations	-2147483648
ClusterAuthorizedOperations	-2147483648
MetadataResponseBroker.Host	"broker-1.kafka.example.com"
# Groups: the consumer group "billing".
SessionTimeoutMs	45000
RebalanceTimeoutMs	60000
JoinGroupRequestProtocol.Name	"cooperative-sticky"
JoinGroupRequest.MemberId	"consumer-billing-1-8b3c8f4e-2a1d-4f6e-9c35-7d1e0b6a4c21"
JoinGroupResponse.Leader	"consumer-billing-1-8b3c8f4e-2a1d-4f6e-9c35-7d1e0b6a4c21"
SkipAssignment	false
MemberIdentity.Reason	"the consumer is being closed"
CommittedOffset	1
CommittedLeaderEpoch	0
CommittedMetadata	""
OffsetFetchResponsePartition.Metadata	""
OffsetFetchResponsePartitions.Metadata	""
CommitTimestamp	-1
RetentionTimeMs	-1
GenerationIdOrMemberEpoch	5
RequireStable	true
KeyType	0
FindCoordinatorRequest.Key	"billing"
Coordinator.Key	"billing"
CoordinatorKeys	["billing"]
DescribedGroup.GroupState	"Stable"
DescribedGroup.ProtocolData	"cooperative-sticky"
DescribedGroup.AssignorName	"uniform"
AuthorizedOperations	-2147483648
IncludeAuthorizedOperations	false
ListedGroup.GroupState	"Stable"
ListedGroup.GroupType	"consumer"
StatesFilter	["Stable"]
TypesFilter	["consumer"]
DescribeGroupsRequest.Groups	["billing"]
GroupsNames	["billing"]
GroupIds	["billing"]
ConsumerProtocolSubscription.Topics	["orders"]
ConsumerProtocolSubscription.UserData	null
ConsumerProtocolSubscription.GenerationId	5
ConsumerProtocolSubscription.RackId	null
ConsumerProtocolAssignment.UserData	null
InstanceId	null
ServerAssignor	"uniform"
SubscribedTopicRegex	null
SubscribedTopicNames	["orders"]
HeartbeatIntervalMs	5000
# Members of the groups joined by heartbeat (KIP-848's consumer protocol,
# share groups, Streams groups) carry a UUID in Kafka's text form that the
# member draws itself (KIP-1082), not a classic client-id-uuid.
ConsumerGroupHeartbeatRequest.MemberId	"94Zu-3SYSwSXguNGEAUnkw"
ConsumerGroupHeartbeatResponse.MemberId	"94Zu-3SYSwSXguNGEAUnkw"
ShareGroupHeartbeatRequest.MemberId	"94Zu-3SYSwSXguNGEAUnkw"
ShareGroupHeartbeatResponse.MemberId	"94Zu-3SYSwSXguNGEAUnkw"
StreamsGroupHeartbeatRequest.MemberId	"94Zu-3SYSwSXguNGEAUnkw"
StreamsGroupHeartbeatResponse.MemberId	"94Zu-3SYSwSXguNGEAUnkw"
StreamsGroupTopologyDescriptionUpdateRequest.MemberId	"94Zu-3SYSwSXguNGEAUnkw"
ShareFetchRequest.MemberId	"94Zu-3SYSwSXguNGEAUnkw"
ShareAcknowledgeRequest.MemberId	"94Zu-3SYSwSXguNGEAUnkw"
Member.MemberId	"94Zu-3SYSwSXguNGEAUnkw"
AssignmentEpoch	5
GroupEpoch	5
MemberType	1
# SASL: SCRAM-SHA-512's first round.
SaslHandshakeRequest.Mechanism	"SCRAM-SHA-512"
Mechanisms	["PLAIN","SCRAM-SHA-256","SCRAM-SHA-512"]
SaslAuthenticateRequest.AuthBytes	{"text":"n,,n=alice,r=rOprNGfwEbeRWgbNEkqO"}
SaslAuthenticateResponse.AuthBytes	{"text":"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"}
SessionLifetimeMs	0
# Topics.
# CreateTopics with an explicit assignment (one partition on brokers 1, 2
# and 3) sends -1 for both, as Kafka requires; the topic gets 1 partition
# of 3 replicas.
CreatableTopic.NumPartitions	-1
CreatableTopic.ReplicationFactor	-1
CreatableTopicResult.NumPartitions	1
CreatableTopicResult.ReplicationFactor	3
NumPartitions	6
ReplicationFactor	3
CreatableReplicaAssignment.BrokerIds	[1,2,3]
CreatableTopicConfig.Name	"retention.ms"
CreatableTopicConfig.Value	"604800000"
CreatableTopicConfigs.Name	"retention.ms"
CreatableTopicConfigs.Value	"604800000"
CreatableTopicConfigs.ReadOnly	false
CreatableTopicConfigs.IsSensitive	false
CreatableTopicConfigs.ConfigSource	1
TopicNames	["orders"]
Count	12
DeleteRecordsPartition.Offset	1
LowWatermark	1
# Transactions: the transactional producer "billing-txn-0".
TransactionTimeoutMs	60000
InitProducerIdRequest.TransactionalId	null
InitProducerIdRequest.TransactionTimeoutMs	0
InitProducerIdRequest.ProducerId	-1
InitProducerIdRequest.ProducerEpoch	-1
Enable2Pc	false
KeepPreparedTxn	false
OngoingTxnProducerId	-1
OngoingTxnProducerEpoch	-1
Committed	true
# EndTxn v5 (transactions V2, KIP-890) bumps the epoch at every end.
EndTxnResponse.ProducerEpoch	1
VerifyOnly	false
V3AndBelowProducerId	4001
V3AndBelowProducerEpoch	0
TransactionState.TransactionState	"Ongoing"
TransactionState	"Ongoing"
StateFilters	["Ongoing"]
TransactionalIdPattern	"billing-.*"
TransactionStartTimeMs	1748856600000
TransactionVersion	2
TransactionResult	true
CoordinatorEpoch	3
# Configs: the topic "orders" (ConfigResourceType TOPIC).
ResourceType	2
ResourceName	"orders"
ConfigurationKeys	["retention.ms"]
IncludeSynonyms	false
IncludeDocumentation	false
AlterableConfig.Name	"retention.ms"
AlterableConfig.Value	"604800000"
DescribeConfigsResourceResult.Name	"retention.ms"
DescribeConfigsResourceResult.Value	"604800000"
DescribeConfigsResourceResult.ReadOnly	false
DescribeConfigsResourceResult.IsDefault	false
DescribeConfigsResourceResult.IsSensitive	false
DescribeConfigsResourceResult.ConfigSource	1
DescribeConfigsResourceResult.ConfigType	5
DescribeConfigsResourceResult.Documentation	null
DescribeConfigsSynonym.Name	"retention.ms"
DescribeConfigsSynonym.Value	"604800000"
DescribeConfigsSynonym.Source	1
ConfigOperation	0
# ACLs: alice may read the topic "orders" from anywhere.
AclCreation.ResourceType	2
AclCreation.ResourcePatternType	3
Operation	3
PermissionType	3
PatternType	3
PatternTypeFilter	3
ResourceTypeFilter	2
ResourceNameFilter	"orders"
PrincipalFilter	"User:alice"
HostFilter	null
# Quotas, SCRAM, tokens, telemetry, log dirs.
EntityType	"user"
EntityName	"alice"
OpData.Key	"producer_byte_rate"
ValueData.Key	"producer_byte_rate"
OpData.Value	1048576.0
ValueData.Value	1048576.0
Remove	false
ComponentData.Match	"alice"
MatchType	0
Strict	false
Mechanism	2
User	"alice"
ScramCredentialDeletion.Name	"alice"
ScramCredentialUpsertion.Name	"alice"
UserName.Name	"alice"
Salt	{"base64":"W22ZaJ0SNY7soEsUEjb6gQ=="}
SaltedPassword	{"base64":"jytZhxCePHZuChmYXm4cQ9QqYJtPDjMafFW5Am1I4Sc="}
PrincipalType	"User"
PrincipalName	"alice"
OwnerPrincipalType	null
OwnerPrincipalName	null
TokenRequesterPrincipalType	"User"
TokenRequesterPrincipalName	"alice"
TokenId	"H4TzYPtvQRWe5p6ttBTTCQ"
Hmac	{"base64":"Kp9sCx5Vg9F6QJ4hw2ZfCLQSnX7gMUyolQ9rItc+gVw="}
MaxLifetimeMs	-1
RenewPeriodMs	86400000
ExpiryTimePeriodMs	-1
IssueTimestamp	1748856600000
IssueTimestampMs	1748856600000
ExpiryTimestamp	1748943000000
ExpiryTimestampMs	1748943000000
MaxTimestamp	1749461400000
MaxTimestampMs	1749461400000
SubscriptionId	1
AcceptedCompressionTypes	[0,1,2,3,4]
PushIntervalMs	30000
TelemetryMaxBytes	1048576
DeltaTemporality	true
# every metric
RequestedMetrics	[""]
Terminating	true
PushTelemetryRequest.CompressionType	1
# A producer's last metrics as it closes: OpenTelemetry protobuf,
# gzipped, as franz-go sent them in testdata/captures/kfake-clients.pcapng.
Metrics	{"base64":"H4sIAAAAAAAA/+LawCi0lpGLj4s5Oz1fiL00LzsvvzxPyIvLKL8oXS+xIDE5I1UvOzEtO1GvoCg/pTQ5tUgvOT8vLzW5JDM/Ty+5KDURzChKLEnVEuESktwzaaLp8vo3EopWUwQj/pm4OQj5cxmTZlZJfklijpUEkmGGjAwQIMAowQgIAAD//zAX+RazAAAA"}
LogDir	"/var/lib/kafka/data"
Path	"/var/lib/kafka/data-2"
PartitionSize	1048576
OffsetLag	0
IsFutureKey	false
TotalBytes	536870912000
UsableBytes	429496729600
IsCordoned	false
# Cluster, KRaft and replication.
DescribeClusterBroker.Host	"broker-1.kafka.example.com"
EndpointType	1
IncludeFencedBrokers	false
IsFenced	false
Listener.Name	"PLAINTEXT"
Listener.Host	"broker-1.kafka.example.com"
Listener.SecurityProtocol	0
Endpoint.Name	"PLAINTEXT"
Endpoint.Host	"broker-1.kafka.example.com"
LeaderEndpoint.Name	"CONTROLLER"
LeaderEndpoint.Host	"controller-1.kafka.example.com"
FetchPartition.ReplicaDirectoryId	"AAAAAAAAAAAAAAAAAAAAAA"
Feature.Name	"kraft.version"
Feature.MinSupportedVersion	0
Feature.MaxSupportedVersion	1
FeatureUpdateKey.Feature	"kraft.version"
UpdatableFeatureResult.Feature	"kraft.version"
MaxVersionLevel	1
UpgradeType	1
AllowDowngrade	false
IsMigratingZkBroker	false
CurrentMetadataOffset	412
WantFence	false
WantShutDown	false
IsCaughtUp	true
ShouldShutDown	false
PreviousBrokerEpoch	-1
ElectionType	0
LeaderRecoveryState	0
PartitionEpoch	0
ControllerEpoch	1
ZkVersion	0
isKRaftController	true
Isr	[1,2,3]
NewIsr	[1,2,3]
Replicas	[1,2,3]
AddingReplicas	[]
RemovingReplicas	[]
EligibleLeaderReplicas	[]
LastKnownElr	[]
IsNew	false
DeletePartition	false
DeletePartitions	false
ProducerIdStart	5000
ProducerIdLen	1000
VoterId	1
ReplicaId	1
CandidateId	1
ReplicaEpoch	5
LastOffsetEpoch	5
LastOffset	1
EndOffset	412
Epoch	5
LogEndOffset	412
LastFetchTimestamp	1748856600000
LastCaughtUpTimestamp	1748856600000
LastContainedLogTimestamp	1748856600000
PreVote	false
VoteGranted	true
AckWhenCommitted	true
Position	0
Size	1048576
V0Host	"broker-1.kafka.example.com"
V0Port	9092
HostName	"broker-1.kafka.example.com"
SecurityProtocol	0
Id	1
Leader	1
Type	0
Version	0
KRaftVersion	1
MinSupportedVersion	0
MaxSupportedVersion	1
TokenAuthenticated	false
DefaultPrincipalData.Type	"User"
DefaultPrincipalData.Name	"alice"
ClientHostAddress	{"base64":"CgADEQ=="}
EnvelopeRequest.RequestData	{"base64":""}
EnvelopeResponse.ResponseData	{"base64":""}
RequestPrincipal	{"base64":""}
Lag	0
StartOffset	0
FirstOffset	0
DeliveryCount	1
DeliveryState	0
StateEpoch	1
DeliveryCompleteCount	0
AcquisitionLockTimeoutMs	30000
MaxRecords	500
BatchSize	500
# The share session's first fetch (epoch 0): nothing to acknowledge yet;
# it acquires the one record at offset 0.
ShareSessionEpoch	0
ShareFetchRequest:FetchPartition.AcknowledgementBatches	[]
ShareFetchResponse:AcquiredRecords.LastOffset	0
ShareAcquireMode	0
IsRenewAck	false
AcknowledgeTypes	[1]
ConsumerProtocolSubscription.OwnedPartitions	[]
DurationFilter	-1
ProducerIdFilters	[]
LastSequence	0
LastTimestamp	1748856600000
CurrentTxnStartOffset	-1
ResponsePartitionLimit	2000
EndpointInformationEpoch	1
TopologyEpoch	1
TopicInfo.Partitions	6
AcceptableRecoveryLag	10000
AcceptableRecoveryLagLegacy	10000
TaskOffsetIntervalMs	30000
StatusCode	0
NodeType	0
TopologyDescriptionStatus	0
IncludeTopologyDescription	false
TopologyDescriptionRequired	false
IsClassic	false
ShutdownApplication	false
AllowReplicationFactorChange	true
# Streams groups: the application "billing-app".
TaskIds.SubtopologyId	"0"
TaskOffset.SubtopologyId	"0"
Subtopology.SubtopologyId	"0"
TopologyDescriptionSubtopology.SubtopologyId	"0"
KeyValue.Key	"cleanup.policy"
KeyValue.Value	"compact"
TopicInfo.Name	"billing-app-counts-changelog"
TopologyNode.Name	"KSTREAM-SOURCE-0000000000"
TopologyNode.Successors	["KSTREAM-AGGREGATE-0000000001"]
TopologyNode.Stores	["counts-store"]
Subtopology.SourceTopicRegex	[]
UnknownStateFilters	[]
OfflineLogDirs	[]
CordonedLogDirs	[]
ProcessId	"b2a1c6e0-6f0e-4a8e-9d2b-5c3f7e1a9d04"
StreamsGroupHeartbeatResponse.Status	[]
UpdateMetadataEndpoint.Listener	"PLAINTEXT"
PreferredSuccessors	[2,3]
ResourceTypes	[2]
`

// exampleValue finds a key's value in exampleTable; found is false when
// the table has no line for it.
func exampleValue(key string) (v any, found bool) {
	i := strings.Index(exampleTable, "\n"+key+"\t")
	if i < 0 {
		return nil, false
	}
	line := exampleTable[i+len(key)+2:]
	line = line[:strings.IndexByte(line, '\n')]
	x, err := jsontext.Parse([]byte(line))
	if err != nil {
		panic("codec: exampleTable: " + key + ": " + err.Error()) // a typo in the table; TestExampleTable reads every line
	}
	if obj, ok := x.(map[string]any); ok {
		if t, ok := obj["text"].(string); ok {
			return []byte(t), true
		}
		if b, ok := obj["base64"].(string); ok {
			raw, err := base64.StdEncoding.DecodeString(b)
			if err != nil {
				panic("codec: exampleTable: " + key + ": " + err.Error())
			}
			return raw, true
		}
	}
	if x == nil {
		return exNull{}, true
	}
	return x, true
}

// exampleMember is the member id the group coordinator gave the consumer
// (the Java client's: its client id and a UUID).
const exampleMember = "consumer-billing-1-8b3c8f4e-2a1d-4f6e-9c35-7d1e0b6a4c21"

// exampleEntity is the value of fields that name an entity.
func exampleEntity(entity string) any {
	switch entity {
	case "topicName":
		return "orders"
	case "groupId":
		return "billing"
	case "transactionalId":
		return "billing-txn-0"
	case "brokerId":
		return 1
	case "producerId":
		return 4001
	}
	return nil
}

// exampleUUID is a version-4 UUID made from a name, in Kafka's text form:
// random-looking, the same on every run. FNV-1a, not a cryptographic hash:
// crypto/sha256 took crypto/cipher, AES and a DRBG into kwire.wasm.
func exampleUUID(name string) string {
	h := fnv.New128a()
	h.Write([]byte("kwire example " + name))
	b := h.Sum(nil)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return base64.RawURLEncoding.EncodeToString(b)
}

// exampleLookup finds a field's value in the table: by message, struct
// and field ("ProduceResponse:LeaderIdAndEpoch.LeaderId", where messages
// share a struct's name but not what it holds), then by struct and field,
// then by field alone; nil when none is there.
func exampleLookup(msg string, l *schema.Layout, f *schema.Field) any {
	if v, ok := exampleValue(msg + ":" + l.Name + "." + f.Name); ok {
		return v
	}
	if v, ok := exampleValue(l.Name + "." + f.Name); ok {
		return v
	}
	v, _ := exampleValue(f.Name)
	return v
}

// exampleGuess is a value from the field's name when the table has none:
// what such names hold across the schemas.
func exampleGuess(f *schema.Field) any {
	n := f.Name
	switch {
	case strings.HasSuffix(n, "ErrorCode"):
		return 0
	case strings.HasSuffix(n, "ErrorMessage"):
		return exNull{}
	case strings.HasSuffix(n, "TimeoutMs"):
		return 30000
	case strings.HasSuffix(n, "IntervalMs"):
		return 5000
	case strings.HasSuffix(n, "Timestamp"), strings.HasSuffix(n, "TimestampMs"), strings.HasSuffix(n, "TimeMs"):
		return json.Number(strconv.FormatInt(exampleTime, 10)) // past an int on 32-bit machines
	case strings.HasSuffix(n, "LeaderEpoch"), strings.HasSuffix(n, "ProducerEpoch"):
		return 0
	case strings.HasSuffix(n, "Epoch"):
		return 5
	case strings.HasSuffix(n, "Offset"):
		return 1
	case strings.HasSuffix(n, "ProducerId"):
		return 4001
	case strings.HasSuffix(n, "NodeId"), strings.HasSuffix(n, "BrokerId"), strings.HasSuffix(n, "LeaderId"), strings.HasSuffix(n, "VoterId"):
		return 1
	case strings.HasSuffix(n, "Port"):
		return 9092
	case strings.HasSuffix(n, "Host"):
		return "broker-1.kafka.example.com"
	case strings.HasSuffix(n, "Count"):
		return 1
	case strings.HasSuffix(n, "GroupId"):
		return "billing"
	case strings.HasSuffix(n, "MemberId"):
		return exampleMember
	case strings.HasSuffix(n, "ClusterId"):
		return "5L6g3nShT-eMCtK--X86sw"
	case n == "Topic", strings.HasSuffix(n, "TopicName"), n == "SinkTopic":
		return "orders"
	case strings.HasSuffix(n, "Topics"), strings.HasSuffix(n, "TopicNames"):
		return []any{"orders"}
	case strings.HasSuffix(n, "Id") && f.Kind == schema.UUID:
		return exampleUUID(n)
	}
	return nil
}
