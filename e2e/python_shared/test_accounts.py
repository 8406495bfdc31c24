"""boto3 against Herald run as a shared service: accounts are isolated.

Run by e2e/security_boto3_test.go with HERALD_URL pointing at a Herald
started with the keys of e2e/security_test.go (sharedArgs): ALICE and BOB
in two accounts, DEFAULT in the default account, all with SECRET.
"""

import json
import os
import time
import uuid

import boto3
import botocore.exceptions
import pytest

URL = os.environ["HERALD_URL"]
SECRET = os.environ["HERALD_SECRET"]


def client(service, key):
    return boto3.client(service, endpoint_url=URL, region_name="us-east-1",
                        aws_access_key_id=key, aws_secret_access_key=SECRET)


@pytest.fixture(scope="module")
def alice():
    return client("sqs", os.environ["HERALD_KEY_ALICE"])


@pytest.fixture(scope="module")
def bob():
    return client("sqs", os.environ["HERALD_KEY_BOB"])


def code(exc):
    return exc.value.response["Error"]["Code"]


def test_other_account_is_denied_every_queue_action(alice, bob):
    url = alice.create_queue(QueueName="boto3-" + uuid.uuid4().hex[:10])["QueueUrl"]
    alice.send_message(QueueUrl=url, MessageBody="mine")
    handle = alice.receive_message(QueueUrl=url, VisibilityTimeout=30)["Messages"][0]["ReceiptHandle"]
    calls = {
        "send": lambda: bob.send_message(QueueUrl=url, MessageBody="x"),
        "send_batch": lambda: bob.send_message_batch(QueueUrl=url, Entries=[{"Id": "a", "MessageBody": "x"}]),
        "receive": lambda: bob.receive_message(QueueUrl=url),
        "delete": lambda: bob.delete_message(QueueUrl=url, ReceiptHandle=handle),
        "delete_batch": lambda: bob.delete_message_batch(QueueUrl=url, Entries=[{"Id": "a", "ReceiptHandle": handle}]),
        "visibility": lambda: bob.change_message_visibility(QueueUrl=url, ReceiptHandle=handle, VisibilityTimeout=0),
        "get_attributes": lambda: bob.get_queue_attributes(QueueUrl=url, AttributeNames=["All"]),
        "set_attributes": lambda: bob.set_queue_attributes(QueueUrl=url, Attributes={"DelaySeconds": "1"}),
        "tag": lambda: bob.tag_queue(QueueUrl=url, Tags={"k": "v"}),
        "purge": lambda: bob.purge_queue(QueueUrl=url),
        "delete_queue": lambda: bob.delete_queue(QueueUrl=url),
        "get_url": lambda: bob.get_queue_url(QueueName=url.rsplit("/", 1)[1],
                                             QueueOwnerAWSAccountId=url.rsplit("/", 2)[1]),
    }
    for name, call in calls.items():
        with pytest.raises(botocore.exceptions.ClientError) as exc:
            call()
        assert code(exc) == "AccessDenied", name
    # Nothing of Alice's changed.
    attrs = alice.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    assert attrs["DelaySeconds"] == "0"
    assert attrs["ApproximateNumberOfMessagesNotVisible"] == "1"


def test_policy_opens_exactly_what_it_names(alice, bob):
    url = alice.create_queue(QueueName="boto3-" + uuid.uuid4().hex[:10])["QueueUrl"]
    bob_account = os.environ["HERALD_ACCOUNT_BOB"]
    alice.add_permission(QueueUrl=url, Label="bobsend", AWSAccountIds=[bob_account], Actions=["SendMessage"])
    policy = json.loads(alice.get_queue_attributes(QueueUrl=url, AttributeNames=["Policy"])["Attributes"]["Policy"])
    assert policy["Statement"][0]["Sid"] == "bobsend"
    bob.send_message(QueueUrl=url, MessageBody="from bob")
    with pytest.raises(botocore.exceptions.ClientError) as exc:
        bob.receive_message(QueueUrl=url)
    assert code(exc) == "AccessDenied"
    alice.remove_permission(QueueUrl=url, Label="bobsend")
    with pytest.raises(botocore.exceptions.ClientError) as exc:
        bob.send_message(QueueUrl=url, MessageBody="again")
    assert code(exc) == "AccessDenied"


def test_internal_queues_are_unreachable(alice, bob):
    for c in (alice, bob):
        for queue in ("sns-publish", "sns-delivery"):
            url = URL + "/herald-sns/" + queue
            for call in (lambda: c.send_message(QueueUrl=url, MessageBody="{}"),
                         lambda: c.receive_message(QueueUrl=url)):
                with pytest.raises(botocore.exceptions.ClientError) as exc:
                    call()
                assert code(exc) == "AccessDenied"


def test_topics_are_isolated():
    alice = client("sns", os.environ["HERALD_KEY_ALICE"])
    bob = client("sns", os.environ["HERALD_KEY_BOB"])
    arn = alice.create_topic(Name="boto3-" + uuid.uuid4().hex[:10])["TopicArn"]
    for call in (lambda: bob.publish(TopicArn=arn, Message="x"),
                 lambda: bob.get_topic_attributes(TopicArn=arn),
                 lambda: bob.subscribe(TopicArn=arn, Protocol="https", Endpoint="https://example.com/x"),
                 lambda: bob.delete_topic(TopicArn=arn)):
        with pytest.raises(botocore.exceptions.ClientError) as exc:
            call()
        assert code(exc) == "AuthorizationError"
    alice.add_permission(TopicArn=arn, Label="p", AWSAccountId=[os.environ["HERALD_ACCOUNT_BOB"]], ActionName=["Publish"])
    assert bob.publish(TopicArn=arn, Message="allowed")["MessageId"]
