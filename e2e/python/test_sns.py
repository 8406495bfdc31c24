"""boto3 against Herald's SNS API, unchanged: topics fanned out to queues
and filtered. Run by e2e/boto3_test.go with HERALD_URL set."""

import json
import os
import time
import uuid

import boto3
import pytest


def client(name):
    return boto3.client(
        name,
        endpoint_url=os.environ["HERALD_URL"],
        region_name="us-east-1",
        aws_access_key_id=os.environ.get("HERALD_AWS_ACCESS_KEY", "test"),
        aws_secret_access_key=os.environ.get("HERALD_AWS_SECRET_KEY", "test"),
    )


@pytest.fixture(scope="module")
def sns():
    return client("sns")


@pytest.fixture(scope="module")
def sqs():
    return client("sqs")


def new_queue(sqs):
    url = sqs.create_queue(QueueName="boto3-sns-" + uuid.uuid4().hex[:12])["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return url, arn


def receive(sqs, url, want, wait=15):
    got, deadline = [], time.time() + wait
    while len(got) < want and time.time() < deadline:
        got += sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
    return got


def test_topic_fans_out_to_queues(sns, sqs):
    topic = sns.create_topic(Name="boto3-" + uuid.uuid4().hex[:12])["TopicArn"]
    assert topic.startswith("arn:aws:sns:us-east-1:")
    raw_url, raw_arn = new_queue(sqs)
    env_url, env_arn = new_queue(sqs)
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=raw_arn, Attributes={"RawMessageDelivery": "true"})
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=env_arn)
    subs = sns.list_subscriptions_by_topic(TopicArn=topic)["Subscriptions"]
    assert sorted(s["Endpoint"] for s in subs) == sorted([raw_arn, env_arn])

    msg_id = sns.publish(TopicArn=topic, Message="to every queue", Subject="hi")["MessageId"]
    [raw] = receive(sqs, raw_url, 1)
    assert raw["Body"] == "to every queue"
    [env] = receive(sqs, env_url, 1)
    body = json.loads(env["Body"])
    assert body["Type"] == "Notification" and body["MessageId"] == msg_id and body["Subject"] == "hi"


def test_filter_policy_and_batch(sns, sqs):
    topic = sns.create_topic(Name="boto3-" + uuid.uuid4().hex[:12])["TopicArn"]
    url, arn = new_queue(sqs)
    sns.subscribe(
        TopicArn=topic, Protocol="sqs", Endpoint=arn,
        Attributes={"RawMessageDelivery": "true", "FilterPolicy": json.dumps({"team": ["ops"]})},
    )
    out = sns.publish_batch(TopicArn=topic, PublishBatchRequestEntries=[
        {"Id": "a", "Message": "for ops", "MessageAttributes": {"team": {"DataType": "String", "StringValue": "ops"}}},
        {"Id": "b", "Message": "for dev", "MessageAttributes": {"team": {"DataType": "String", "StringValue": "dev"}}},
    ])
    assert len(out["Successful"]) == 2 and not out.get("Failed")
    got = receive(sqs, url, 1)
    time.sleep(2)
    got += sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", [])
    assert [m["Body"] for m in got] == ["for ops"]


def test_errors(sns):
    with pytest.raises(sns.exceptions.NotFoundException):
        sns.get_topic_attributes(TopicArn="arn:aws:sns:us-east-1:000000000000:no-such-topic-" + uuid.uuid4().hex[:6])
    with pytest.raises(sns.exceptions.InvalidParameterException):
        sns.create_topic(Name="bad name!")
