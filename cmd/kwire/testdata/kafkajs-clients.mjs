// kafkajs against a broker at process.argv[2]: a producer (kafkajs's
// default: not idempotent) writes records to "orders" in two sends, gzip
// and none; a consumer in group "kafkajs-group" reads them all from the
// start and commits; both disconnect. Run by kwire's
// TestCheckRealClientsKafkaJS -update, which captures it.
// kafkajs is resolved from the working directory (site/, its node_modules).
import { createRequire } from 'node:module'
const { Kafka, CompressionTypes, logLevel } = createRequire(process.cwd() + '/')('kafkajs')

const kafka = new Kafka({ clientId: 'kwire-kafkajs', brokers: [process.argv[2]], logLevel: logLevel.NOTHING, retry: { retries: 3 } })
const producer = kafka.producer({ allowAutoTopicCreation: false })
await producer.connect()
await producer.send({ topic: 'orders', compression: CompressionTypes.None, messages: [{ key: 'k1', value: 'kafkajs 1' }, { key: 'k2', value: 'kafkajs 2' }] })
await producer.send({ topic: 'orders', compression: CompressionTypes.GZIP, messages: [{ key: 'k3', value: 'kafkajs 3', headers: { source: 'kafkajs' } }] })
await producer.disconnect()

const consumer = kafka.consumer({ groupId: 'kafkajs-group', heartbeatInterval: 500 })
await consumer.connect()
await consumer.subscribe({ topic: 'orders', fromBeginning: true })
let seen = 0
await new Promise((resolve, reject) => {
  const timer = setTimeout(() => reject(new Error('timed out after ' + seen + ' records')), 20000)
  consumer.run({
    eachMessage: async () => {
      seen++
      if (seen === 3) { clearTimeout(timer); resolve() }
    },
  }).catch(reject)
})
await consumer.commitOffsets([{ topic: 'orders', partition: 0, offset: '3' }])
await consumer.disconnect()
console.log('kafkajs: produced and consumed', seen)
