// kafkajs against a broker at process.argv[2]: a producer (kafkajs's
// default: not idempotent) writes records to "orders" in two sends, gzip
// and none; a consumer in group "kafkajs-group" reads them all from the
// start and commits; both disconnect. Run by kwire's
// TestCheckRealClientsKafkaJS -update, which captures it.
// kafkajs is resolved from the working directory (site/, its node_modules).
import { createRequire } from 'node:module'
import { consumeAll } from './kafkajs-consume.mjs'
const { Kafka, CompressionTypes, logLevel } = createRequire(process.cwd() + '/')('kafkajs')

const kafka = new Kafka({ clientId: 'kwire-kafkajs', brokers: [process.argv[2]], logLevel: logLevel.NOTHING, retry: { retries: 3 } })
const producer = kafka.producer({ allowAutoTopicCreation: false })
await producer.connect()
await producer.send({ topic: 'orders', compression: CompressionTypes.None, messages: [{ key: 'k1', value: 'kafkajs 1' }, { key: 'k2', value: 'kafkajs 2' }] })
await producer.send({ topic: 'orders', compression: CompressionTypes.GZIP, messages: [{ key: 'k3', value: 'kafkajs 3', headers: { source: 'kafkajs' } }] })
await producer.disconnect()

const seen = await consumeAll(kafka, 'orders', 'kafkajs-group', 3)
console.log('kafkajs: produced and consumed', seen)
