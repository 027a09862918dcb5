# kafka-python (Debian's python3-kafka) against a broker at sys.argv[1]:
# two producers write 10 records each to "orders", one gzip and one with no
# compression, keys, values and a header distinct per codec; a consumer in
# group "kafkapython-group" reads them all from the start, heartbeating
# every 100 ms, commits, and leaves. Prints "produced and consumed N".
# With "magic1" after the broker: a producer told the broker is Kafka
# 0.10.1 sends 3 records as a gzip magic-1 message set in a Produce v2
# request, which kfake does not take (it closes the connection); prints
# "magic1 sent".
# Run by TestCaptureKafkaPython with /usr/bin/python3, which captures it.
import sys
import time

from kafka import KafkaConsumer, KafkaProducer

broker = sys.argv[1]

if sys.argv[2:] == ["magic1"]:
    producer = KafkaProducer(bootstrap_servers=broker, client_id="kwire-py-magic1", api_version=(0, 10, 1),
                             compression_type="gzip", linger_ms=20, retries=0, request_timeout_ms=5000)
    sent = [producer.send("orders", key=b"py-magic1-key-%d" % i, value=b"kafka-python magic 1 value %d" % i)
            for i in range(3)]
    producer.flush(timeout=20)
    for f in sent:
        try:
            f.get(timeout=20)
        except Exception:
            pass  # refused or not: the request is what is checked
    producer.close(timeout=5)
    print("kafka-python: magic1 sent")
    sys.exit(0)

n = 0
for codec in ("gzip", "none"):
    producer = KafkaProducer(bootstrap_servers=broker, client_id="kwire-py-" + codec,
                             compression_type=None if codec == "none" else codec,
                             linger_ms=20, retries=0)
    sent = [producer.send("orders", key=("py-%s-key-%d" % (codec, i)).encode(),
                          value=(("kafka-python %s value %d " % (codec, i)) * 4).encode(),
                          headers=[("codec", codec.encode())]) for i in range(10)]
    producer.flush(timeout=20)
    for f in sent:
        f.get(timeout=20)  # raises if the broker refused it
    producer.close(timeout=5)
    n += 10

consumer = KafkaConsumer("orders", bootstrap_servers=broker, client_id="kwire-py-group",
                         group_id="kafkapython-group", auto_offset_reset="earliest",
                         enable_auto_commit=False, heartbeat_interval_ms=100)
seen = set()
deadline = time.time() + 45
while len(seen) < n and time.time() < deadline:
    for msgs in consumer.poll(timeout_ms=500).values():
        for m in msgs:
            assert dict(m.headers).get("codec") == m.key.split(b"-")[1], m
            seen.add(m.key)
time.sleep(1)  # a few heartbeats, sent by the consumer's own thread
consumer.commit()
consumer.close()
assert len(seen) == n, sorted(seen)
print("kafka-python: produced and consumed", len(seen))
