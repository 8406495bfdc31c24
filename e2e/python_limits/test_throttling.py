"""boto3 against a Herald whose accounts have rate limits.

Run by e2e/limits_test.go (TestBoto3RetriesThrottling) with HERALD_URL
pointing at a Herald started with limitedArgs: ALICE's account limited to
4 SQS and 4 SNS requests a second (bursts of 4), BOB's exempt.

Calls are made concurrently, from threads: however slow each call is on a
loaded machine, they arrive together, so a burst of 4 is exceeded and the
throttling is certain, not a matter of timing.
"""

import os
import uuid
from concurrent.futures import ThreadPoolExecutor

import boto3
import botocore.config
import botocore.exceptions

URL = os.environ["HERALD_URL"]
SECRET = os.environ["HERALD_SECRET"]
AT_ONCE = 12


def client(service, key, mode, attempts):
    cfg = botocore.config.Config(retries={"mode": mode, "max_attempts": attempts},
                                 max_pool_connections=AT_ONCE)
    return boto3.client(service, endpoint_url=URL, region_name="us-east-1", config=cfg,
                        aws_access_key_id=key, aws_secret_access_key=SECRET)


def at_once(fn):
    """Runs fn(i) for AT_ONCE values of i concurrently; returns results or exceptions."""
    def call(i):
        try:
            return fn(i)
        except botocore.exceptions.ClientError as e:
            return e
    with ThreadPoolExecutor(AT_ONCE) as pool:
        return list(pool.map(call, range(AT_ONCE)))


def queue(sqs, prefix):
    for _ in range(50):  # the setup call itself may meet the limit
        try:
            return sqs.create_queue(QueueName=prefix + uuid.uuid4().hex[:8])["QueueUrl"]
        except botocore.exceptions.ClientError as e:
            assert e.response["Error"]["Code"] == "RequestThrottled"
    raise AssertionError("could not create a queue")


def test_sqs_answers_request_throttled_without_retries():
    sqs = client("sqs", os.environ["HERALD_KEY_ALICE"], "standard", 1)
    url = queue(sqs, "boto-throttle-")
    out = at_once(lambda i: sqs.send_message(QueueUrl=url, MessageBody=str(i)))
    errors = [r for r in out if isinstance(r, Exception)]
    assert errors, "%d sends at once at 4/s: none throttled" % AT_ONCE
    for e in errors:
        assert e.response["Error"]["Code"] == "RequestThrottled", e.response["Error"]
        assert e.response["ResponseMetadata"]["HTTPStatusCode"] == 403


def check_retries(mode):
    sqs = client("sqs", os.environ["HERALD_KEY_ALICE"], mode, 20)
    url = queue(sqs, "boto-retry-")
    out = at_once(lambda i: sqs.send_message(QueueUrl=url, MessageBody=str(i)))
    failed = [r for r in out if isinstance(r, Exception)]
    assert not failed, failed
    assert sum(r["ResponseMetadata"]["RetryAttempts"] for r in out) > 0, "no send was retried"
    sent = {r["MessageId"] for r in out}
    got = set()
    while len(got) < len(sent):
        for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1).get("Messages", []):
            assert m["MessageId"] in sent
            got.add(m["MessageId"])


def test_sqs_retries_get_through_legacy():
    check_retries("legacy")


def test_sqs_retries_get_through_standard():
    check_retries("standard")


def test_sqs_retries_get_through_adaptive():
    check_retries("adaptive")


def test_sns_throttled_is_retried_by_the_default_mode():
    # SNS answers 429, which botocore's legacy mode (its default) retries.
    sns = client("sns", os.environ["HERALD_KEY_ALICE"], "legacy", 20)
    arn = None
    for _ in range(50):
        try:
            arn = sns.create_topic(Name="boto-retry-" + uuid.uuid4().hex[:8])["TopicArn"]
            break
        except botocore.exceptions.ClientError as e:
            assert e.response["Error"]["Code"] == "Throttled"
    out = at_once(lambda i: sns.publish(TopicArn=arn, Message=str(i)))
    failed = [r for r in out if isinstance(r, Exception)]
    assert not failed, failed
    assert sum(r["ResponseMetadata"]["RetryAttempts"] for r in out) > 0, "no publish was retried"
