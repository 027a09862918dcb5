// Package storage reads the bytes Kafka keeps: the files of a broker's
// log directories and the records of Kafka's internal topics. It reads
// from the bytes or io.Readers its caller hands over and touches no file
// system (kwire log finds and opens the files), and like package codec it
// never panics on bad input and holds memory to the work done, not to
// sizes the input declares.
//
// What is here, with the Kafka sources each format follows (paths in
// apache/kafka):
//
//   - Segments (.log; LogSegment, FileRecords): record batches of every
//     magic one after another. Segment streams them one entry at a time
//     with their positions and CRCs (CRC-32C for batches, CRC-32 for
//     legacy messages); WriteJSON writes an entry's records in the records
//     JSON the codec writes for a records field, and Decode gives its tree. A torn or corrupt tail
//     (a crash, a file being written) is a *TailError with its position,
//     its size and how many entries came before (torn only when a
//     partial write can leave it: a length a segment holds, and more
//     than zeros after it; ZeroFrom says where the zeros that end it
//     start; in a segment preallocated with zeros, a last entry whose CRC
//     fails, its header written and its last bytes zeros, as is all after
//     it, is torn too: the write stopped inside it); zeros to the end
//     (preallocated space) are one with Zero set. Damage in the middle is a DamageError, read past; what the
//     log implies (a damaged entry's length its records, the entry after
//     it or the .index confirm: SegmentOptions.Index) is preferred to a
//     batch a search finds inside its bytes, and an entry a search found
//     says so (Batch.Searched). An entry longer than
//     the limit is streamed past, described by its header, its CRC
//     computed on the way; one that does not match, or inside which a
//     batch whose CRC holds starts, has a corrupt length: a damaged
//     region (DamageError) read past to that batch, or the next after
//     it; torn only when the input ends inside it with no batch after. A legacy compressed wrapper's messages are counted from
//     its decompressed set, and a batch's first timestamp is its first
//     record's (under a delete horizon or log-append time too).
//   - Indexes (.index, .timeindex: OffsetIndex, TimeIndex; .txnindex:
//     TransactionIndex): IndexReader reads their entries; IndexCheck checks
//     an .index or .timeindex against its segment in the same pass, one
//     entry held at a time: each offset entry at the start of a batch
//     holding its offset, each time entry's offset in the segment and its
//     timestamp that batch's max timestamp (as kafka-dump-log.sh checks),
//     entries rising, preallocated zero entries counted apart (entry 0
//     included: an index of zeros has no entries), a run of them in bulk
//     (IndexReader.SkipZeros).
//   - Producer-state snapshots (<offset>.snapshot; ProducerStateManager):
//     the ProducerSnapshot schema, CRC-32C checked (ReadProducerSnapshot).
//   - KRaft snapshots (<endOffset>-<epoch>.checkpoint, bootstrap.checkpoint;
//     Snapshots, RecordsSnapshotWriter): segments framed by header and
//     footer control records (SnapshotCheck).
//   - Text files: leader-epoch-checkpoint and the offset checkpoints
//     (CheckpointFile), partition.metadata (PartitionMetadataFile),
//     meta.properties (MetaProperties), quorum-state (FileQuorumStateStore,
//     checked against the QuorumStateData schema).
//   - The records of internal topics (__consumer_offsets,
//     __transaction_state, __share_group_state, __cluster_metadata,
//     __remote_log_metadata): DecodeTopicRecord selects the schemas of a
//     record's key and value (schema.InternalTopicByName) and decodes them
//     into nodes with spans, a classic group's consumer-protocol bytes
//     included, through the codec's walk, the same reader that decodes
//     these records inside Produce and Fetch frames (so kwire log and
//     kwire decode give the same nodes, warnings and error texts);
//     TopicRecord.AppendJSON writes them through the walk's JSON writer
//     and EncodeTopicRecord writes them back from their JSON. A records
//     walker calls DecodeTopicRecord for each record of a topic it knows
//     the name of.
//
// KindOf recognises a file by its name, PartitionDir a partition
// directory's. EncodeLine turns kwire log's JSON lines back into the bytes
// they were read from (EncodeLineZeros with the zeros that end them
// counted, for a caller to write in pieces). The calls into the codec's walk and its records
// reader are gathered in codec.go (but for WriteJSON's streaming records
// writer, in batchjson.go).
package storage
