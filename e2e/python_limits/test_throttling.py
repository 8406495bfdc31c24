"""boto3 against a Herald whose accounts have rate limits.

Run by e2e/limits_test.go (TestBoto3RetriesThrottling) with HERALD_URL
pointing at a Herald started with limitedArgs: ALICE's account limited to
4 SQS and 4 SNS requests a second, BOB's exempt.
"""

import os
import uuid

import boto3
import botocore.config
import botocore.exceptions
import pytest

URL = os.environ["HERALD_URL"]
SECRET = os.environ["HERALD_SECRET"]


def client(service, key, mode, attempts):
    cfg = botocore.config.Config(retries={"mode": mode, "max_attempts": attempts})
    return boto3.client(service, endpoint_url=URL, region_name="us-east-1", config=cfg,
                        aws_access_key_id=key, aws_secret_access_key=SECRET)


def test_sqs_answers_request_throttled_without_retries():
    sqs = client("sqs", os.environ["HERALD_KEY_ALICE"], "standard", 1)
    url = None
    for _ in range(20):
        try:
            url = url or sqs.create_queue(QueueName="boto-throttle-" + uuid.uuid4().hex[:8])["QueueUrl"]
            sqs.send_message(QueueUrl=url, MessageBody="x")
        except botocore.exceptions.ClientError as e:
            err = e.response["Error"]
            assert err["Code"] == "RequestThrottled", err
            assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 403
            return
    pytest.fail("20 calls at once at 4/s: none throttled")


@pytest.mark.parametrize("mode", ["legacy", "standard", "adaptive"])
def test_sqs_retries_get_through(mode):
    sqs = client("sqs", os.environ["HERALD_KEY_ALICE"], mode, 20)
    url = sqs.create_queue(QueueName="boto-retry-" + uuid.uuid4().hex[:8])["QueueUrl"]
    sent = {sqs.send_message(QueueUrl=url, MessageBody=str(i))["MessageId"] for i in range(8)}
    got = set()
    while len(got) < len(sent):
        for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", []):
            assert m["MessageId"] in sent
            got.add(m["MessageId"])


def test_sns_throttled_is_retried_by_the_default_mode():
    # SNS answers 429, which botocore's legacy mode (its default) retries too.
    sns = client("sns", os.environ["HERALD_KEY_ALICE"], "legacy", 20)
    arn = sns.create_topic(Name="boto-retry-" + uuid.uuid4().hex[:8])["TopicArn"]
    for i in range(8):
        assert sns.publish(TopicArn=arn, Message=str(i))["MessageId"]

