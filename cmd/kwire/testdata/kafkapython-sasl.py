# kafka-python (Debian's python3-kafka) logging in with SASL to a broker at
# sys.argv[1], mechanism sys.argv[2] (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512),
# user sys.argv[3], password sys.argv[4], over SASL_PLAINTEXT. kafka-python
# 2.0.2 sends SaslHandshake v0 and then raw SASL tokens (KIP-43), not
# SaslAuthenticate. A producer writes 3 records to "orders"; a consumer in
# group "kafkapython-sasl" reads them back from the start. Prints
# "kafka-python: SASL <mechanism> produced and consumed 3".
# Run by TestCaptureKafkaPythonSASLv0 with /usr/bin/python3, through a
# front that translates the raw tokens for kfake (saslV0Front).
import sys
import time

from kafka import KafkaConsumer, KafkaProducer

broker, mechanism, user, password = sys.argv[1:5]
sasl = dict(bootstrap_servers=broker, security_protocol="SASL_PLAINTEXT", sasl_mechanism=mechanism,
            sasl_plain_username=user, sasl_plain_password=password)

producer = KafkaProducer(client_id="kwire-py-sasl", linger_ms=20, retries=0, **sasl)
want = [(b"py-sasl-key-%d" % i, b"kafka-python %s value %d" % (mechanism.encode(), i)) for i in range(3)]
sent = [producer.send("orders", key=k, value=v) for k, v in want]
producer.flush(timeout=20)
for f in sent:
    f.get(timeout=20)  # raises if the broker refused it
producer.close(timeout=5)

consumer = KafkaConsumer("orders", client_id="kwire-py-sasl-group", group_id="kafkapython-sasl",
                         auto_offset_reset="earliest", enable_auto_commit=False, **sasl)
seen = {}
deadline = time.time() + 45
while len(seen) < len(want) and time.time() < deadline:
    for msgs in consumer.poll(timeout_ms=500).values():
        for m in msgs:
            seen[m.key] = m.value
consumer.commit()
consumer.close()
assert seen == dict(want), seen
print("kafka-python: SASL", mechanism, "produced and consumed", len(seen))
