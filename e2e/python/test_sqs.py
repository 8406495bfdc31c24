"""boto3 against Herald's SQS API, unchanged: the flows of issue 4.

Run by e2e/boto3_test.go with HERALD_URL pointing at a running `herald serve`
(and, when it checks signatures, HERALD_AWS_ACCESS_KEY/HERALD_AWS_SECRET_KEY).
"""

import hashlib
import json
import os
import time
import uuid

import boto3
import botocore.exceptions
import pytest


@pytest.fixture(scope="module")
def sqs():
    return boto3.client(
        "sqs",
        endpoint_url=os.environ["HERALD_URL"],
        region_name="us-east-1",
        aws_access_key_id=os.environ.get("HERALD_AWS_ACCESS_KEY", "test"),
        aws_secret_access_key=os.environ.get("HERALD_AWS_SECRET_KEY", "test"),
    )


def new_queue(sqs, suffix="", **attributes):
    name = "boto3-" + uuid.uuid4().hex[:12] + suffix
    attrs = {k: str(v) for k, v in attributes.items()}
    return sqs.create_queue(QueueName=name, Attributes=attrs)["QueueUrl"]


def receive_all(sqs, url, want, wait=5, **kwargs):
    """Receives until `want` messages arrived or `wait` seconds passed."""
    got = []
    deadline = time.time() + wait
    while len(got) < want and time.time() < deadline:
        resp = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1, **kwargs)
        got.extend(resp.get("Messages", []))
    return got


def test_send_receive_delete(sqs):
    url = new_queue(sqs)
    sent = sqs.send_message(
        QueueUrl=url,
        MessageBody="hello from boto3",
        MessageAttributes={
            "colour": {"DataType": "String", "StringValue": "blue"},
            "size": {"DataType": "Number", "StringValue": "42"},
            "blob": {"DataType": "Binary", "BinaryValue": b"\x00\x01\x02"},
        },
    )
    assert sent["MD5OfMessageBody"] == hashlib.md5(b"hello from boto3").hexdigest()
    assert "MD5OfMessageAttributes" in sent

    resp = sqs.receive_message(
        QueueUrl=url, MessageAttributeNames=["All"], AttributeNames=["All"], WaitTimeSeconds=2
    )
    [msg] = resp["Messages"]
    assert msg["MessageId"] == sent["MessageId"]
    assert msg["Body"] == "hello from boto3"
    assert msg["MessageAttributes"]["blob"]["BinaryValue"] == b"\x00\x01\x02"
    assert msg["MessageAttributes"]["size"]["StringValue"] == "42"
    assert msg["Attributes"]["ApproximateReceiveCount"] == "1"
    assert int(msg["Attributes"]["SentTimestamp"]) > 0

    sqs.delete_message(QueueUrl=url, ReceiptHandle=msg["ReceiptHandle"])
    empty = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)
    assert empty.get("Messages", []) == []


def test_visibility_timeout_and_change(sqs):
    url = new_queue(sqs, VisibilityTimeout=1)
    sqs.send_message(QueueUrl=url, MessageBody="comes back")
    first = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=2, AttributeNames=["ApproximateReceiveCount"])["Messages"][0]
    # Hidden while in flight...
    assert sqs.receive_message(QueueUrl=url).get("Messages", []) == []
    # ...and back after the 1 s visibility timeout, counted twice.
    again = receive_all(sqs, url, 1, wait=5, AttributeNames=["ApproximateReceiveCount"])
    assert again[0]["MessageId"] == first["MessageId"]
    assert again[0]["Attributes"]["ApproximateReceiveCount"] == "2"

    # ChangeMessageVisibility to 0 makes it visible at once.
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=again[0]["ReceiptHandle"], VisibilityTimeout=0)
    third = sqs.receive_message(QueueUrl=url, VisibilityTimeout=60)["Messages"][0]
    assert third["MessageId"] == first["MessageId"]
    sqs.delete_message(QueueUrl=url, ReceiptHandle=third["ReceiptHandle"])


def test_batches(sqs):
    url = new_queue(sqs)
    entries = [{"Id": f"e{i}", "MessageBody": f"body {i}"} for i in range(10)]
    sent = sqs.send_message_batch(QueueUrl=url, Entries=entries)
    assert len(sent["Successful"]) == 10 and "Failed" not in sent  # left out when none failed, as on AWS
    got = receive_all(sqs, url, 10)
    assert sorted(m["Body"] for m in got) == sorted(e["MessageBody"] for e in entries)
    deleted = sqs.delete_message_batch(
        QueueUrl=url, Entries=[{"Id": f"d{i}", "ReceiptHandle": m["ReceiptHandle"]} for i, m in enumerate(got)]
    )
    assert len(deleted["Successful"]) == 10 and not deleted.get("Failed")

    # A bad entry fails alone.
    mixed = sqs.delete_message_batch(
        QueueUrl=url, Entries=[{"Id": "bad", "ReceiptHandle": "not-a-handle"}]
    )
    assert mixed["Failed"][0]["Id"] == "bad"
    assert mixed["Failed"][0]["Code"] == "ReceiptHandleIsInvalid"


def test_long_poll_wakes_on_send(sqs):
    url = new_queue(sqs)
    import threading

    result = {}

    def poll():
        start = time.time()
        result["resp"] = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=10)
        result["took"] = time.time() - start

    t = threading.Thread(target=poll)
    t.start()
    time.sleep(0.5)
    sqs.send_message(QueueUrl=url, MessageBody="wake up")
    t.join(15)
    assert result["resp"]["Messages"][0]["Body"] == "wake up"
    assert result["took"] < 5, "the long poll did not wake when the message arrived"


def test_dead_letter_queue(sqs):
    dlq = new_queue(sqs)
    dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    src = new_queue(
        sqs,
        VisibilityTimeout=0,
        RedrivePolicy=json.dumps({"deadLetterTargetArn": dlq_arn, "maxReceiveCount": 2}),
    )
    src_arn = sqs.get_queue_attributes(QueueUrl=src, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sent = sqs.send_message(QueueUrl=src, MessageBody="poison")
    for _ in range(2):
        assert sqs.receive_message(QueueUrl=src, WaitTimeSeconds=2)["Messages"][0]["MessageId"] == sent["MessageId"]
    # The third receive moves it to the dead-letter queue instead.
    assert sqs.receive_message(QueueUrl=src, WaitTimeSeconds=1).get("Messages", []) == []
    moved = receive_all(sqs, dlq, 1, AttributeNames=["All"])
    assert moved[0]["MessageId"] == sent["MessageId"]
    assert moved[0]["Attributes"]["DeadLetterQueueSourceArn"] == src_arn
    # The receive count goes on from the source queue's: two receives, the
    # one that moved it, and this one.
    assert moved[0]["Attributes"]["ApproximateReceiveCount"] == "4"
    sources = sqs.list_dead_letter_source_queues(QueueUrl=dlq)["queueUrls"]
    assert src in sources


def test_fifo_order_groups_and_dedup(sqs):
    url = new_queue(sqs, ".fifo", FifoQueue="true", ContentBasedDeduplication="true")
    for i in range(5):
        sqs.send_message(QueueUrl=url, MessageBody=f"a{i}", MessageGroupId="a")
        sqs.send_message(QueueUrl=url, MessageBody=f"b{i}", MessageGroupId="b")
    # Content-based deduplication drops an identical body within 5 minutes.
    dup = sqs.send_message(QueueUrl=url, MessageBody="a0", MessageGroupId="a")
    first = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, AttributeNames=["All"])["Messages"]
    bodies = [m["Body"] for m in first]
    for group in "ab":
        mine = [b for b in bodies if b.startswith(group)]
        assert mine == sorted(mine), f"group {group} out of order: {mine}"
    assert bodies.count("a0") == 1
    assert any(m["MessageId"] == dup["MessageId"] for m in first)
    # Both groups are now in flight: nothing more until they are deleted.
    assert sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", []) == []
    for m in first:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=m["ReceiptHandle"])
    rest = receive_all(sqs, url, 10 - len(first))
    assert len(first) + len(rest) == 10


def test_errors_in_aws_shape(sqs):
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.get_queue_url(QueueName="no-such-queue-" + uuid.uuid4().hex[:8])
    url = new_queue(sqs)
    with pytest.raises(botocore.exceptions.ClientError) as err:
        sqs.send_message(QueueUrl=url, MessageBody="bad \x01 char")
    assert err.value.response["Error"]["Code"] == "InvalidMessageContents"
    with pytest.raises(botocore.exceptions.ClientError) as err:
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"VisibilityTimeout": "99999"})
    assert err.value.response["Error"]["Code"] == "InvalidAttributeValue"


def test_error_codes_through_the_json_protocol(sqs):
    # boto3 speaks JSON to SQS; the legacy code rides in x-amzn-query-error
    # while "__type" carries AWS's JSON shape name.
    url = new_queue(sqs)
    with pytest.raises(botocore.exceptions.ClientError) as err:
        sqs.send_message(QueueUrl=url, MessageBody="x", DelaySeconds=901)
    assert err.value.response["Error"]["Code"] == "InvalidParameterValue"
    with pytest.raises(sqs.exceptions.QueueDoesNotExist) as err:
        sqs.get_queue_url(QueueName="no-such-queue-" + uuid.uuid4().hex[:8])
    assert err.value.response["Error"]["Message"] == "The specified queue does not exist."


def test_queue_management(sqs):
    prefix = "boto3-mgmt-" + uuid.uuid4().hex[:6]
    urls = [sqs.create_queue(QueueName=f"{prefix}-{i}", tags={"team": "herald"})["QueueUrl"] for i in range(3)]
    listed = sqs.list_queues(QueueNamePrefix=prefix)["QueueUrls"]
    assert sorted(listed) == sorted(urls)
    assert sqs.list_queue_tags(QueueUrl=urls[0])["Tags"] == {"team": "herald"}
    sqs.set_queue_attributes(QueueUrl=urls[0], Attributes={"DelaySeconds": "5"})
    attrs = sqs.get_queue_attributes(QueueUrl=urls[0], AttributeNames=["All"])["Attributes"]
    assert attrs["DelaySeconds"] == "5"
    assert attrs["ApproximateNumberOfMessages"] == "0"
    sqs.purge_queue(QueueUrl=urls[1])
    sqs.delete_queue(QueueUrl=urls[2])
    with pytest.raises(sqs.exceptions.QueueDoesNotExist):
        sqs.get_queue_attributes(QueueUrl=urls[2], AttributeNames=["All"])


def test_maximum_message_size_is_one_mib(sqs):
    url = new_queue(sqs)
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["MaximumMessageSize"])["Attributes"]
    assert attrs["MaximumMessageSize"] == "1048576"
    body = "x" * 1048576
    sqs.send_message(QueueUrl=url, MessageBody=body)
    got = receive_all(sqs, url, 1)
    assert len(got) == 1 and got[0]["Body"] == body
    with pytest.raises(botocore.exceptions.ClientError) as err:
        sqs.send_message(QueueUrl=url, MessageBody=body + "x")
    assert err.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert err.value.response["Error"]["Message"] == (
        "One or more parameters are invalid. Reason: Message must be shorter than 1048576 bytes."
    )
    with pytest.raises(botocore.exceptions.ClientError) as err:
        sqs.set_queue_attributes(QueueUrl=url, Attributes={"MaximumMessageSize": "1048577"})
    assert err.value.response["Error"]["Code"] == "InvalidAttributeValue"


def test_bare_queue_name_as_queue_url(sqs):
    url = new_queue(sqs)
    name = url.rsplit("/", 1)[1]
    sqs.send_message(QueueUrl=name, MessageBody="by name")
    got = receive_all(sqs, url, 1)
    assert [m["Body"] for m in got] == ["by name"]


def test_fifo_queue_attribute_as_aws(sqs):
    with pytest.raises(botocore.exceptions.ClientError) as err:
        sqs.create_queue(QueueName="boto3-" + uuid.uuid4().hex[:12], Attributes={"FifoQueue": "false"})
    assert err.value.response["Error"]["Code"] == "InvalidAttributeName"
    url = new_queue(sqs, ".fifo", FifoQueue="true")
    sqs.set_queue_attributes(QueueUrl=url, Attributes={"FifoQueue": "true"})
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["FifoQueue"])["Attributes"]
    assert attrs["FifoQueue"] == "true"


def test_fifo_group_blocked_only_by_its_first_message(sqs):
    url = new_queue(sqs, ".fifo", FifoQueue="true", ContentBasedDeduplication="true")
    for body, group in [("a1", "A"), ("a2", "A"), ("b1", "B")]:
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId=group)
    first = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=2, VisibilityTimeout=30)["Messages"]
    assert [m["Body"] for m in first] == ["a1", "a2"]
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=first[0]["ReceiptHandle"], VisibilityTimeout=0)
    # a1 is back although a2 is in flight; group B, never received, comes first.
    again = sqs.receive_message(
        QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=30,
        MessageSystemAttributeNames=["ApproximateReceiveCount"],
    )["Messages"]
    assert [m["Body"] for m in again] == ["b1", "a1"]
    assert again[1]["Attributes"]["ApproximateReceiveCount"] == "2"
    # Deleting a1 leaves a2, in flight, at the head: the group stays blocked.
    sqs.delete_message(QueueUrl=url, ReceiptHandle=again[1]["ReceiptHandle"])
    assert "Messages" not in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=first[1]["ReceiptHandle"], VisibilityTimeout=0)
    last = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
    assert [m["Body"] for m in last] == ["a2"]


def test_message_attribute_names_select_as_aws(sqs):
    url = new_queue(sqs)
    attrs = {n: {"DataType": "String", "StringValue": "v"} for n in ["color", "size.cm", "size.label"]}
    sqs.send_message(QueueUrl=url, MessageBody="m", MessageAttributes=attrs)
    for names, want in [(["*"], ["color", "size.cm", "size.label"]), (["size.*"], ["size.cm", "size.label"])]:
        got = sqs.receive_message(QueueUrl=url, VisibilityTimeout=0, WaitTimeSeconds=5, MessageAttributeNames=names)
        assert sorted(got["Messages"][0]["MessageAttributes"]) == want


def test_purge_clears_fifo_deduplication(sqs):
    url = new_queue(sqs, ".fifo", FifoQueue="true")
    before = sqs.send_message(QueueUrl=url, MessageBody="before", MessageGroupId="g", MessageDeduplicationId="d")
    time.sleep(0.01)
    sqs.purge_queue(QueueUrl=url)
    after = sqs.send_message(QueueUrl=url, MessageBody="after", MessageGroupId="g", MessageDeduplicationId="d")
    assert after["MessageId"] != before["MessageId"]
    got = receive_all(sqs, url, 1)
    assert [m["Body"] for m in got] == ["after"]


def test_receipt_handles_as_aws(sqs):
    url = new_queue(sqs)
    sqs.send_message(QueueUrl=url, MessageBody="m")
    first = sqs.receive_message(QueueUrl=url, VisibilityTimeout=1)["Messages"][0]
    time.sleep(1.5)
    # Accepted after the timeout ended: the message is hidden again.
    sqs.change_message_visibility(QueueUrl=url, ReceiptHandle=first["ReceiptHandle"], VisibilityTimeout=30)
    assert "Messages" not in sqs.receive_message(QueueUrl=url)
    fifo = new_queue(sqs, ".fifo", FifoQueue="true", ContentBasedDeduplication="true")
    sqs.send_message(QueueUrl=fifo, MessageBody="f", MessageGroupId="g")
    got = sqs.receive_message(QueueUrl=fifo, VisibilityTimeout=1)["Messages"][0]
    time.sleep(1.5)
    with pytest.raises(botocore.exceptions.ClientError) as err:
        sqs.delete_message(QueueUrl=fifo, ReceiptHandle=got["ReceiptHandle"])
    assert err.value.response["Error"]["Code"] == "InvalidParameterValue"
    assert err.value.response["Error"]["Message"].endswith("Reason: The receipt handle has expired.")


def test_validation_as_aws(sqs):
    url = new_queue(sqs)
    with pytest.raises(botocore.exceptions.ClientError) as err:
        sqs.send_message(QueueUrl=url, MessageBody="m", MessageGroupId="")
    assert err.value.response["Error"]["Code"] == "InvalidParameterValue"
    fifo = new_queue(sqs, ".fifo", FifoQueue="true")
    with pytest.raises(botocore.exceptions.ClientError) as err:
        sqs.send_message(QueueUrl=fifo, MessageBody="m", MessageGroupId="g", MessageDeduplicationId="")
    assert err.value.response["Error"]["Code"] == "InvalidParameterValue"
    attrs = {"größe": {"DataType": "String", "StringValue": "v"}, "名前": {"DataType": "String", "StringValue": "w"}}
    sqs.send_message(QueueUrl=url, MessageBody="intl", MessageAttributes=attrs)
    got = receive_all(sqs, url, 1, MessageAttributeNames=["All"])
    assert {k: v["StringValue"] for k, v in got[0]["MessageAttributes"].items()} == {"größe": "v", "名前": "w"}
