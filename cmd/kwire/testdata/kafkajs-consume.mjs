// consumeAll reads the first n records of topic (one partition) from the
// start in consumer group groupId, commits offset n and disconnects; it
// resolves to the number of records read. The kafkajs clients of
// kafkajs-clients.mjs and kafkajs-tls.mjs share it.
export async function consumeAll(kafka, topic, groupId, n) {
  const consumer = kafka.consumer({ groupId, heartbeatInterval: 500 })
  await consumer.connect()
  await consumer.subscribe({ topic, fromBeginning: true })
  let seen = 0
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out after ' + seen + ' records')), 20000)
    consumer.run({
      eachMessage: async () => {
        seen++
        if (seen === n) { clearTimeout(timer); resolve() }
      },
    }).catch(reject)
  })
  await consumer.commitOffsets([{ topic, partition: 0, offset: String(n) }])
  await consumer.disconnect()
  return seen
}
