package codec

import (
	"crypto/sha256"
	"encoding/base64"
	"strings"

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

// exampleValue holds field values by "Struct.Field" (Struct is the
// schema's struct name, the message's name for top-level fields) and by
// Kafka's field name alone; nil when it has none. Numbers are int; an
// []any is the whole array. (A switch, not a map: nothing is built at
// init, which the Worker's fresh instances would pay for.)
func exampleValue(key string) any {
	switch key {

	// Everywhere.
	case "ThrottleTimeMs":
		return 0
	case "ErrorMessage":
		return exNull{}
	case "TimeoutMs":
		return 30000
	case "timeoutMs":
		return 30000
	case "ClusterId":
		return "5L6g3nShT-eMCtK--X86sw"
	case "Host":
		return "broker-1.kafka.example.com"
	case "Port":
		return 9092
	case "Rack":
		return "use1-az1"
	case "NodeId":
		return 1
	case "LeaderId":
		return 1
	case "ControllerId":
		return 1
	case "BrokerId":
		return 1
	case "LeaderEpoch":
		return 0
	case "ProducerId":
		return 4001
	case "ProducerEpoch":
		return 0
	case "MemberId":
		return exampleMember
	case "GroupInstanceId":
		return exNull{}
	case "GenerationId":
		return 5
	case "MemberEpoch":
		return 5
	case "ProtocolType":
		return "consumer"
	case "ProtocolName":
		return "cooperative-sticky"
	case "Reason":
		return exNull{}
	case "RackId":
		return exNull{}
	case "PartitionIndex":
		return 0
	case "Partition":
		return 0
	case "PartitionId":
		return 0
	case "Index":
		return 0
	case "IsInternal":
		return false
	case "ValidateOnly":
		return false
	case "validateOnly":
		return false
	case "BrokerEpoch":
		return 412
	case "Iterations":
		return 4096
	case "ClientId":
		return "consumer-billing-1"
	case "ClientHost":
		return "/10.0.3.17"
	case "Principal":
		return "User:alice"
	case "AclCreation.Host":
		return "*"
	case "AclDescription.Host":
		return "*"
	case "DeleteAclsMatchingAcl.Host":
		return "*"

	// ApiVersions.
	case "ApiVersionsRequest.ClientSoftwareName":
		return "apache-kafka-java"
	case "ApiVersionsRequest.ClientSoftwareVersion":
		return "4.0.0"
	case "ApiVersion.ApiKey":
		return 0
	case "ApiVersion.MinVersion":
		return 3
	case "ApiVersion.MaxVersion":
		return 13
	case "SupportedFeatureKey.Name":
		return "kraft.version"
	case "SupportedFeatureKey.MinVersion":
		return 0
	case "SupportedFeatureKey.MaxVersion":
		return 1
	case "FinalizedFeatureKey.Name":
		return "kraft.version"
	case "FinalizedFeatureKey.MaxVersionLevel":
		return 1
	case "FinalizedFeatureKey.MinVersionLevel":
		return 1
	case "FinalizedFeaturesEpoch":
		return 412
	case "ZkMigrationReady":
		return false

	// Produce: an idempotent producer, acks=all, to a new topic.
	case "ProduceRequest.TransactionalId":
		return exNull{}
	case "Acks":
		return -1
	case "BaseOffset":
		return 0
	case "LogAppendTimeMs":
		return -1
	case "LogStartOffset":
		return 0
	case "RecordErrors":
		return []any{}
	case "BatchIndex":
		return 0
	case "BatchIndexErrorMessage":
		return exNull{}
	case "LeaderIdAndEpoch.LeaderId":
		return 1
	case "LeaderIdAndEpoch.LeaderEpoch":
		return 0

	// Fetch: a consumer (replica -1) starting a fetch session at offset 0.
	case "FetchRequest.ReplicaId":
		return -1
	case "MaxWaitMs":
		return 500
	case "MinBytes":
		return 1
	case "FetchRequest.MaxBytes":
		return 52428800
	case "MaxBytes":
		return 52428800
	case "FetchSnapshotRequest.MaxBytes":
		return 8388608
	case "FetchRequest.IsolationLevel":
		return 0
	case "SessionId":
		return 0
	case "SessionEpoch":
		return 0
	case "CurrentLeaderEpoch":
		return 0
	case "FetchOffset":
		return 0
	case "LastFetchedEpoch":
		return -1
	case "FetchPartition.LogStartOffset":
		return -1
	case "PartitionMaxBytes":
		return 1048576
	case "FetchPartition.HighWatermark":
		return 9223372036854775807
	case "ForgottenTopicsData":
		return []any{}
	case "FetchRequest.RackId":
		return ""
	case "FetchRequest.ClusterId":
		return exNull{}
	case "ReplicaState.ReplicaId":
		return -1
	case "ReplicaState.ReplicaEpoch":
		return -1
	case "FetchResponse.SessionId":
		return 1234567
	case "HighWatermark":
		return 1
	case "LastStableOffset":
		return 1
	case "PartitionData.LogStartOffset":
		return 0
	case "AbortedTransactions":
		return exNull{}
	case "PreferredReadReplica":
		return -1
	case "EpochEndOffset.Epoch":
		return -1
	case "EpochEndOffset.EndOffset":
		return -1
	case "SnapshotId.EndOffset":
		return -1
	case "SnapshotId.Epoch":
		return -1
	case "AbortedTransaction.FirstOffset":
		return 0

	// ListOffsets: where a consumer with auto.offset.reset=earliest starts.
	case "ListOffsetsRequest.ReplicaId":
		return -1
	case "ListOffsetsRequest.IsolationLevel":
		return 0
	case "ListOffsetsPartition.Timestamp":
		return -2
	case "MaxNumOffsets":
		return 1
	case "ListOffsetsPartitionResponse.Timestamp":
		return -1
	case "Offset":
		return 0
	case "OldStyleOffsets":
		return []any{0}

	// Metadata.
	case "MetadataRequest.AllowAutoTopicCreation":
		return false
	case "IncludeClusterAuthorizedOperations":
		return false
	case "IncludeTopicAuthorizedOperations":
		return false
	case "MetadataRequestTopic.TopicId":
		return exZeroUUID{}
	case "ReplicaNodes":
		return []any{1, 2, 3}
	case "IsrNodes":
		return []any{1, 2, 3}
	case "OfflineReplicas":
		return []any{}
	case "TopicAuthorizedOperations":
		return -2147483648
	case "ClusterAuthorizedOperations":
		return -2147483648
	case "MetadataResponseBroker.Host":
		return "broker-1.kafka.example.com"

	// Groups: the consumer group "billing".
	case "SessionTimeoutMs":
		return 45000
	case "RebalanceTimeoutMs":
		return 60000
	case "JoinGroupRequestProtocol.Name":
		return "cooperative-sticky"
	case "JoinGroupRequest.MemberId":
		return exampleMember
	case "JoinGroupResponse.Leader":
		return exampleMember
	case "SkipAssignment":
		return false
	case "MemberIdentity.Reason":
		return "the consumer is being closed"
	case "CommittedOffset":
		return 1
	case "CommittedLeaderEpoch":
		return 0
	case "CommittedMetadata":
		return ""
	case "OffsetFetchResponsePartition.Metadata":
		return ""
	case "OffsetFetchResponsePartitions.Metadata":
		return ""
	case "CommitTimestamp":
		return -1
	case "RetentionTimeMs":
		return -1
	case "GenerationIdOrMemberEpoch":
		return 5
	case "RequireStable":
		return true
	case "KeyType":
		return 0
	case "FindCoordinatorRequest.Key":
		return "billing"
	case "Coordinator.Key":
		return "billing"
	case "CoordinatorKeys":
		return []any{"billing"}
	case "DescribedGroup.GroupState":
		return "Stable"
	case "DescribedGroup.ProtocolData":
		return "cooperative-sticky"
	case "DescribedGroup.AssignorName":
		return "uniform"
	case "AuthorizedOperations":
		return -2147483648
	case "IncludeAuthorizedOperations":
		return false
	case "ListedGroup.GroupState":
		return "Stable"
	case "ListedGroup.GroupType":
		return "consumer"
	case "StatesFilter":
		return []any{"Stable"}
	case "TypesFilter":
		return []any{"consumer"}
	case "DescribeGroupsRequest.Groups":
		return []any{"billing"}
	case "GroupsNames":
		return []any{"billing"}
	case "GroupIds":
		return []any{"billing"}
	case "ConsumerProtocolSubscription.Topics":
		return []any{"orders"}
	case "ConsumerProtocolSubscription.UserData":
		return exNull{}
	case "ConsumerProtocolSubscription.GenerationId":
		return 5
	case "ConsumerProtocolSubscription.RackId":
		return exNull{}
	case "ConsumerProtocolAssignment.UserData":
		return exNull{}
	case "InstanceId":
		return exNull{}
	case "ServerAssignor":
		return "uniform"
	case "SubscribedTopicRegex":
		return exNull{}
	case "SubscribedTopicNames":
		return []any{"orders"}
	case "HeartbeatIntervalMs":
		return 5000
	case "AssignmentEpoch":
		return 5
	case "GroupEpoch":
		return 5
	case "MemberType":
		return 1

	// SASL: SCRAM-SHA-512's first round.
	case "SaslHandshakeRequest.Mechanism":
		return "SCRAM-SHA-512"
	case "Mechanisms":
		return []any{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"}
	case "SaslAuthenticateRequest.AuthBytes":
		return []byte("n,,n=alice,r=rOprNGfwEbeRWgbNEkqO")
	case "SaslAuthenticateResponse.AuthBytes":
		return []byte("r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096")
	case "SessionLifetimeMs":
		return 0

	// Topics.
	case "NumPartitions":
		return 6
	case "ReplicationFactor":
		return 3
	case "CreatableReplicaAssignment.BrokerIds":
		return []any{1, 2, 3}
	case "CreatableTopicConfig.Name":
		return "retention.ms"
	case "CreatableTopicConfig.Value":
		return "604800000"
	case "CreatableTopicConfigs.Name":
		return "retention.ms"
	case "CreatableTopicConfigs.Value":
		return "604800000"
	case "CreatableTopicConfigs.ReadOnly":
		return false
	case "CreatableTopicConfigs.IsSensitive":
		return false
	case "CreatableTopicConfigs.ConfigSource":
		return 1
	case "TopicNames":
		return []any{"orders"}
	case "Count":
		return 12
	case "DeleteRecordsPartition.Offset":
		return 1
	case "LowWatermark":
		return 1

	// Transactions: the transactional producer "billing-txn-0".
	case "TransactionTimeoutMs":
		return 60000
	case "InitProducerIdRequest.TransactionalId":
		return exNull{}
	case "InitProducerIdRequest.TransactionTimeoutMs":
		return 0
	case "InitProducerIdRequest.ProducerId":
		return -1
	case "InitProducerIdRequest.ProducerEpoch":
		return -1
	case "Enable2Pc":
		return false
	case "KeepPreparedTxn":
		return false
	case "OngoingTxnProducerId":
		return -1
	case "OngoingTxnProducerEpoch":
		return -1
	case "Committed":
		return true
	case "VerifyOnly":
		return false
	case "V3AndBelowProducerId":
		return 4001
	case "V3AndBelowProducerEpoch":
		return 0
	case "TransactionState.TransactionState":
		return "Ongoing"
	case "TransactionState":
		return "Ongoing"
	case "StateFilters":
		return []any{"Ongoing"}
	case "TransactionalIdPattern":
		return "billing-.*"
	case "TransactionStartTimeMs":
		return exampleTime
	case "TransactionVersion":
		return 2
	case "TransactionResult":
		return true
	case "CoordinatorEpoch":
		return 3

	// Configs: the topic "orders" (ConfigResourceType TOPIC).
	case "ResourceType":
		return 2
	case "ResourceName":
		return "orders"
	case "ConfigurationKeys":
		return []any{"retention.ms"}
	case "IncludeSynonyms":
		return false
	case "IncludeDocumentation":
		return false
	case "AlterableConfig.Name":
		return "retention.ms"
	case "AlterableConfig.Value":
		return "604800000"
	case "DescribeConfigsResourceResult.Name":
		return "retention.ms"
	case "DescribeConfigsResourceResult.Value":
		return "604800000"
	case "DescribeConfigsResourceResult.ReadOnly":
		return false
	case "DescribeConfigsResourceResult.IsDefault":
		return false
	case "DescribeConfigsResourceResult.IsSensitive":
		return false
	case "DescribeConfigsResourceResult.ConfigSource":
		return 1
	case "DescribeConfigsResourceResult.ConfigType":
		return 5
	case "DescribeConfigsResourceResult.Documentation":
		return exNull{}
	case "DescribeConfigsSynonym.Name":
		return "retention.ms"
	case "DescribeConfigsSynonym.Value":
		return "604800000"
	case "DescribeConfigsSynonym.Source":
		return 1
	case "ConfigOperation":
		return 0

	// ACLs: alice may read the topic "orders" from anywhere.
	case "AclCreation.ResourceType":
		return 2
	case "AclCreation.ResourcePatternType":
		return 3
	case "Operation":
		return 3
	case "PermissionType":
		return 3
	case "PatternType":
		return 3
	case "PatternTypeFilter":
		return 3
	case "ResourceTypeFilter":
		return 2
	case "ResourceNameFilter":
		return "orders"
	case "PrincipalFilter":
		return "User:alice"
	case "HostFilter":
		return exNull{}

	// Quotas, SCRAM, tokens, telemetry, log dirs.
	case "EntityType":
		return "user"
	case "EntityName":
		return "alice"
	case "OpData.Key":
		return "producer_byte_rate"
	case "ValueData.Key":
		return "producer_byte_rate"
	case "OpData.Value":
		return 1048576.0
	case "ValueData.Value":
		return 1048576.0
	case "Remove":
		return false
	case "ComponentData.Match":
		return "alice"
	case "MatchType":
		return 0
	case "Strict":
		return false
	case "Mechanism":
		return 2
	case "User":
		return "alice"
	case "ScramCredentialDeletion.Name":
		return "alice"
	case "ScramCredentialUpsertion.Name":
		return "alice"
	case "UserName.Name":
		return "alice"
	case "Salt":
		return []byte("\x5b\x6d\x99\x68\x9d\x12\x35\x8e\xec\xa0\x4b\x14\x12\x36\xfa\x81")
	case "SaltedPassword":
		return []byte("\x8f\x2b\x59\x87\x10\x9e\x3c\x76\x6e\x0a\x19\x98\x5e\x6e\x1c\x43\xd4\x2a\x60\x9b\x4f\x0e\x33\x1a\x7c\x55\xb9\x02\x6d\x48\xe1\x27")
	case "PrincipalType":
		return "User"
	case "PrincipalName":
		return "alice"
	case "OwnerPrincipalType":
		return exNull{}
	case "OwnerPrincipalName":
		return exNull{}
	case "TokenRequesterPrincipalType":
		return "User"
	case "TokenRequesterPrincipalName":
		return "alice"
	case "TokenId":
		return "H4TzYPtvQRWe5p6ttBTTCQ"
	case "Hmac":
		return []byte("\x2a\x9f\x6c\x0b\x1e\x55\x83\xd1\x7a\x40\x9e\x21\xc3\x66\x5f\x08\xb4\x12\x9d\x7e\xe0\x31\x4c\xa8\x95\x0f\x6b\x22\xd7\x3e\x81\x5c")
	case "MaxLifetimeMs":
		return -1
	case "RenewPeriodMs":
		return 86400000
	case "ExpiryTimePeriodMs":
		return -1
	case "IssueTimestamp":
		return exampleTime
	case "IssueTimestampMs":
		return exampleTime
	case "ExpiryTimestamp":
		return exampleTime + 86400000
	case "ExpiryTimestampMs":
		return exampleTime + 86400000
	case "MaxTimestamp":
		return exampleTime + 7*86400000
	case "MaxTimestampMs":
		return exampleTime + 7*86400000
	case "SubscriptionId":
		return 1
	case "AcceptedCompressionTypes":
		return []any{0, 1, 2, 3, 4}
	case "PushIntervalMs":
		return 30000
	case "TelemetryMaxBytes":
		return 1048576
	case "DeltaTemporality":
		return true
	case "RequestedMetrics": // every metric
		return []any{""}
	case "Terminating":
		return true
	case "PushTelemetryRequest.CompressionType":
		return 1
	// A producer's last metrics as it closes: OpenTelemetry protobuf,
	// gzipped, as franz-go sent them in testdata/captures/kfake-clients.pcapng.
	case "Metrics":
		return mustBase64("H4sIAAAAAAAA/+LawCi0lpGLj4s5Oz1fiL00LzsvvzxPyIvLKL8oXS+xIDE5I1UvOzEtO1GvoCg/pTQ5tUgvOT8vLzW5JDM/Ty+5KDURzChKLEnVEuESktwzaaLp8vo3EopWUwQj/pm4OQj5cxmTZlZJfklijpUEkmGGjAwQIMAowQgIAAD//zAX+RazAAAA")
	case "LogDir":
		return "/var/lib/kafka/data"
	case "Path":
		return "/var/lib/kafka/data-2"
	case "PartitionSize":
		return 1048576
	case "OffsetLag":
		return 0
	case "IsFutureKey":
		return false
	case "TotalBytes":
		return 536870912000
	case "UsableBytes":
		return 429496729600
	case "IsCordoned":
		return false

	// Cluster, KRaft and replication.
	case "DescribeClusterBroker.Host":
		return "broker-1.kafka.example.com"
	case "EndpointType":
		return 1
	case "IncludeFencedBrokers":
		return false
	case "IsFenced":
		return false
	case "Listener.Name":
		return "PLAINTEXT"
	case "Listener.Host":
		return "broker-1.kafka.example.com"
	case "Listener.SecurityProtocol":
		return 0
	case "Endpoint.Name":
		return "PLAINTEXT"
	case "Endpoint.Host":
		return "broker-1.kafka.example.com"
	case "Endpoint.SecurityProtocol":
		return 0
	case "LeaderEndpoint.Name":
		return "CONTROLLER"
	case "LeaderEndpoint.Host":
		return "controller-1.kafka.example.com"
	case "FetchPartition.ReplicaDirectoryId":
		return exZeroUUID{}
	case "Feature.Name":
		return "kraft.version"
	case "Feature.MinSupportedVersion":
		return 0
	case "Feature.MaxSupportedVersion":
		return 1
	case "FeatureUpdateKey.Feature":
		return "kraft.version"
	case "UpdatableFeatureResult.Feature":
		return "kraft.version"
	case "MaxVersionLevel":
		return 1
	case "UpgradeType":
		return 1
	case "AllowDowngrade":
		return false
	case "IsMigratingZkBroker":
		return false
	case "CurrentMetadataOffset":
		return 412
	case "WantFence":
		return false
	case "WantShutDown":
		return false
	case "IsCaughtUp":
		return true
	case "ShouldShutDown":
		return false
	case "PreviousBrokerEpoch":
		return -1
	case "ElectionType":
		return 0
	case "LeaderRecoveryState":
		return 0
	case "PartitionEpoch":
		return 0
	case "ControllerEpoch":
		return 1
	case "ZkVersion":
		return 0
	case "isKRaftController":
		return true
	case "Isr":
		return []any{1, 2, 3}
	case "NewIsr":
		return []any{1, 2, 3}
	case "Replicas":
		return []any{1, 2, 3}
	case "AddingReplicas":
		return []any{}
	case "RemovingReplicas":
		return []any{}
	case "EligibleLeaderReplicas":
		return []any{}
	case "LastKnownElr":
		return []any{}
	case "IsNew":
		return false
	case "DeletePartition":
		return false
	case "DeletePartitions":
		return false
	case "ProducerIdStart":
		return 5000
	case "ProducerIdLen":
		return 1000
	case "VoterId":
		return 1
	case "ReplicaId":
		return 1
	case "CandidateId":
		return 1
	case "ReplicaEpoch":
		return 5
	case "LastOffsetEpoch":
		return 5
	case "LastOffset":
		return 1
	case "EndOffset":
		return 412
	case "Epoch":
		return 5
	case "LogEndOffset":
		return 412
	case "LastFetchTimestamp":
		return exampleTime
	case "LastCaughtUpTimestamp":
		return exampleTime
	case "LastContainedLogTimestamp":
		return exampleTime
	case "PreVote":
		return false
	case "VoteGranted":
		return true
	case "AckWhenCommitted":
		return true
	case "Position":
		return 0
	case "Size":
		return 1048576
	case "V0Host":
		return "broker-1.kafka.example.com"
	case "V0Port":
		return 9092
	case "HostName":
		return "broker-1.kafka.example.com"
	case "SecurityProtocol":
		return 0
	case "Id":
		return 1
	case "Leader":
		return 1
	case "Type":
		return 0
	case "Version":
		return 0
	case "KRaftVersion":
		return 1
	case "MinSupportedVersion":
		return 0
	case "MaxSupportedVersion":
		return 1
	case "TokenAuthenticated":
		return false
	case "DefaultPrincipalData.Type":
		return "User"
	case "DefaultPrincipalData.Name":
		return "alice"
	case "ClientHostAddress":
		return []byte{10, 0, 3, 17}
	case "EnvelopeRequest.RequestData":
		return []byte{}
	case "EnvelopeResponse.ResponseData":
		return []byte{}
	case "RequestPrincipal":
		return []byte{}
	case "Lag":
		return 0
	case "StartOffset":
		return 0
	case "FirstOffset":
		return 0
	case "DeliveryCount":
		return 1
	case "DeliveryState":
		return 0
	case "StateEpoch":
		return 1
	case "DeliveryCompleteCount":
		return 0
	case "AcquisitionLockTimeoutMs":
		return 30000
	case "MaxRecords":
		return 500
	case "BatchSize":
		return 500
	case "ShareSessionEpoch":
		return 0
	case "ShareAcquireMode":
		return 0
	case "IsRenewAck":
		return false
	case "AcknowledgeTypes":
		return []any{1}
	case "ConsumerProtocolSubscription.OwnedPartitions":
		return []any{}
	case "DurationFilter":
		return -1
	case "ProducerIdFilters":
		return []any{}
	case "LastSequence":
		return 0
	case "LastTimestamp":
		return exampleTime
	case "CurrentTxnStartOffset":
		return -1
	case "CommittedOffsetLag":
		return 0
	case "ResponsePartitionLimit":
		return 2000
	case "EndpointInformationEpoch":
		return 1
	case "TopologyEpoch":
		return 1
	case "TopicInfo.Partitions":
		return 6
	case "AcceptableRecoveryLag":
		return 10000
	case "AcceptableRecoveryLagLegacy":
		return 10000
	case "TaskOffsetIntervalMs":
		return 30000
	case "StatusCode":
		return 0
	case "NodeType":
		return 0
	case "TopologyDescriptionStatus":
		return 0
	case "IncludeTopologyDescription":
		return false
	case "TopologyDescriptionRequired":
		return false
	case "IsClassic":
		return false
	case "ShutdownApplication":
		return false
	case "AllowReplicationFactorChange":
		return true
	// Streams groups: the application "billing-app".
	case "TaskIds.SubtopologyId", "TaskOffset.SubtopologyId", "Subtopology.SubtopologyId", "TopologyDescriptionSubtopology.SubtopologyId":
		return "0"
	case "KeyValue.Key":
		return "cleanup.policy"
	case "KeyValue.Value":
		return "compact"
	case "TopicInfo.Name":
		return "billing-app-counts-changelog"
	case "TopologyNode.Name":
		return "KSTREAM-SOURCE-0000000000"
	case "TopologyNode.Successors":
		return []any{"KSTREAM-AGGREGATE-0000000001"}
	case "TopologyNode.Stores":
		return []any{"counts-store"}
	case "Subtopology.SourceTopicRegex", "UnknownStateFilters", "OfflineLogDirs", "CordonedLogDirs":
		return []any{}
	case "ProcessId":
		return "b2a1c6e0-6f0e-4a8e-9d2b-5c3f7e1a9d04"
	case "StreamsGroupHeartbeatResponse.Status":
		return []any{}
	case "UpdateMetadataEndpoint.Listener":
		return "PLAINTEXT"
	case "PreferredSuccessors":
		return []any{2, 3}
	case "ResourceTypes":
		return []any{2}
	}
	return nil
}

// exampleMember is the member id the group coordinator gave the consumer
// (the Java client's: its client id and a UUID).
const exampleMember = "consumer-billing-1-8b3c8f4e-2a1d-4f6e-9c35-7d1e0b6a4c21"

// exZeroUUID is the all-zero UUID (a topic asked for by name).
type exZeroUUID struct{}

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

func mustBase64(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// exampleUUID is a version-4 UUID made from a name, in Kafka's text form:
// random-looking, the same on every run.
func exampleUUID(name string) string {
	sum := sha256.Sum256([]byte("kwire example " + name))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return base64.RawURLEncoding.EncodeToString(b)
}

// exampleLookup finds a field's value in the table: by struct and field,
// then by field alone; nil when neither is there.
func exampleLookup(l *schema.Layout, f *schema.Field) any {
	if v := exampleValue(l.Name + "." + f.Name); v != nil {
		return v
	}
	return exampleValue(f.Name)
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
		return exampleTime
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
