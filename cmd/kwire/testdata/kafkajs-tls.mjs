// kafkajs over TLS against a broker at process.argv[2], trusting the CA
// certificate in the file process.argv[3], each connection's TLS secrets
// appended to the key log process.argv[4] (node's TLSSocket 'keylog'
// event, the NSS format): a producer writes 3 records to "secure" (gzip),
// a consumer in group "kafkajs-tls" reads them from the start and
// commits. Run by kwire's TestCaptureTLSKafkaJS, which captures it.
// kafkajs is resolved from the working directory (site/, its node_modules).
import { createRequire } from 'node:module'
import { consumeAll } from './kafkajs-consume.mjs'
import { appendFileSync, readFileSync } from 'node:fs'
import tls from 'node:tls'
const { Kafka, CompressionTypes, logLevel } = createRequire(process.cwd() + '/')('kafkajs')

const [, , broker, ca, keylog] = process.argv
const socketFactory = ({ host, port, ssl, onConnect }) => {
  const socket = tls.connect({ host, port, servername: host, ...ssl }, onConnect)
  socket.on('keylog', (line) => appendFileSync(keylog, line))
  return socket
}
const kafka = new Kafka({ clientId: 'kwire-kafkajs-tls', brokers: [broker], ssl: { ca: [readFileSync(ca)] }, socketFactory, logLevel: logLevel.NOTHING, retry: { retries: 3 } })
const producer = kafka.producer({ allowAutoTopicCreation: false })
await producer.connect()
await producer.send({ topic: 'secure', compression: CompressionTypes.GZIP, messages: [0, 1, 2].map((i) => ({ key: 'js-key-' + i, value: 'kafkajs secret value ' + i })) })
await producer.disconnect()

const seen = await consumeAll(kafka, 'secure', 'kafkajs-tls', 3)
console.log('kafkajs: produced and consumed', seen, 'over', tls.DEFAULT_MAX_VERSION)
