"""Writes Protobuf payloads with confluent-kafka-python's own serializer.

Usage: python3 confluent_protobuf.py REGISTRY_URL PB2_DIR

PB2_DIR holds shop_pb2.py (protoc --python_out from shop.proto). Each
message type, top-level and nested, is serialized through
ProtobufSerializer against the registry (a test registry on loopback),
which registers the schema and its imports; one JSON line per payload:
{"name", "hex", "message", "value"}, value being protobuf's json_format
reading of the message (the proto3 JSON mapping). Run by
internal/registry's TestConfluentProtobufSerializer.
"""
import json
import sys

sys.path.insert(0, sys.argv[2])

from confluent_kafka.schema_registry import SchemaRegistryClient  # noqa: E402
from confluent_kafka.schema_registry.protobuf import ProtobufSerializer  # noqa: E402
from confluent_kafka.serialization import MessageField, SerializationContext  # noqa: E402
from google.protobuf import json_format  # noqa: E402

import shop_pb2  # noqa: E402

client = SchemaRegistryClient({"url": sys.argv[1]})
ctx = SerializationContext("shop", MessageField.VALUE)

order = shop_pb2.Order(id=-42, qty=[1, 2, 300])
order.at.seconds, order.at.nanos = 1714564800, 120000000
order.note.value = "leave at door"
order.item.sku = "A-1"
order.item.detail.n = -3
values = [
    ("order", order),
    ("refund", shop_pb2.Refund(order_id=42, reason="broken")),
    ("item", shop_pb2.Order.Item(sku="B-2")),
    ("detail", shop_pb2.Order.Item.Detail(n=7)),
    ("empty-order", shop_pb2.Order()),
]
conf = {"auto.register.schemas": True}
for name, msg in values:
    ser = ProtobufSerializer(type(msg), client, conf)
    data = ser(msg, ctx)
    print(json.dumps({
        "name": name,
        "hex": data.hex(),
        "message": msg.DESCRIPTOR.full_name,
        "value": json.loads(json_format.MessageToJson(msg)),
    }))
