"""boto3 against Herald's SNS API, unchanged: topics fanned out to queues
and filtered. Run by e2e/boto3_test.go with HERALD_URL set."""

import json
import os
import time
import uuid

import boto3
import pytest
from botocore.exceptions import ClientError


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


# Issue 15, items 10, 11 and 14: notifications, errors and data protection
# policies as AWS has them.


def error_of(call, **kwargs):
    with pytest.raises(ClientError) as exc:
        call(**kwargs)
    err = exc.value.response["Error"]
    return err["Code"], err["Message"]


def test_standard_envelope_as_aws(sns, sqs):
    topic = sns.create_topic(Name="boto3-" + uuid.uuid4().hex[:12])["TopicArn"]
    env_url, env_arn = new_queue(sqs)
    raw_url, raw_arn = new_queue(sqs)
    sub = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=env_arn, ReturnSubscriptionArn=True)["SubscriptionArn"]
    raw_sub = sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=raw_arn,
                            Attributes={"RawMessageDelivery": "TRUE"}, ReturnSubscriptionArn=True)["SubscriptionArn"]
    attrs = sns.get_subscription_attributes(SubscriptionArn=raw_sub)["Attributes"]
    account = topic.split(":")[4]
    assert attrs["RawMessageDelivery"] == "true"
    assert attrs["SubscriptionPrincipal"] == "arn:aws:iam::%s:root" % account

    sns.publish(TopicArn=topic, Message="grouped", MessageGroupId="tenant-7")
    [raw] = receive_with_group(sqs, raw_url)
    assert raw["Body"] == "grouped" and raw["Attributes"]["MessageGroupId"] == "tenant-7"
    [env] = receive_with_group(sqs, env_url)
    body = json.loads(env["Body"])
    assert body["UnsubscribeURL"].endswith("/?Action=Unsubscribe&SubscriptionArn=" + sub)
    assert body["SignatureVersion"] == "1" and body["Signature"] and "SequenceNumber" not in body


def receive_with_group(sqs, url, want=1, wait=15):
    got, deadline = [], time.time() + wait
    while len(got) < want and time.time() < deadline:
        got += sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1,
                                   MessageSystemAttributeNames=["MessageGroupId"]).get("Messages", [])
    return got


def test_fifo_envelope_as_aws(sns, sqs):
    topic = sns.create_topic(Name="boto3-" + uuid.uuid4().hex[:12] + ".fifo",
                             Attributes={"FifoTopic": "True", "ContentBasedDeduplication": "True"})["TopicArn"]
    url = sqs.create_queue(QueueName="boto3-sns-" + uuid.uuid4().hex[:12] + ".fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    sns.subscribe(TopicArn=topic, Protocol="sqs", Endpoint=arn)
    out = sns.publish(TopicArn=topic, Message="first", MessageGroupId="g")
    [msg] = receive(sqs, url, 1)
    body = json.loads(msg["Body"])
    assert body["SequenceNumber"] == out["SequenceNumber"] and body["MessageId"] == out["MessageId"]
    assert not {"Signature", "SignatureVersion", "SigningCertURL"} & set(body)


def test_errors_word_for_word(sns, sqs):
    topic = sns.create_topic(Name="boto3-" + uuid.uuid4().hex[:12])["TopicArn"]
    fifo_url = sqs.create_queue(QueueName="boto3-sns-" + uuid.uuid4().hex[:12] + ".fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
    fifo_arn = sqs.get_queue_attributes(QueueUrl=fifo_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    bad_type = {"k": {"DataType": "String.", "StringValue": "v"}}
    bad_type_msg = ("The message attribute 'k' has an invalid message attribute type, "
                    "the set of supported type prefixes is Binary, Number, and String.")
    cases = [
        (sns.publish, dict(TopicArn="orders", Message="m"),
         "InvalidParameter", "Invalid parameter: TopicArn Reason: An ARN must have at least 6 elements, not 1"),
        (sns.get_subscription_attributes, dict(SubscriptionArn="pending confirmation"),
         "InvalidParameter", "Invalid parameter: SubscriptionArn Reason: An ARN must have at least 6 elements, not 1"),
        (sns.publish, dict(TopicArn=topic, Message="m", Subject=""), "InvalidParameter", "Invalid parameter: Subject"),
        (sns.publish, dict(TopicArn=topic, Message="m", MessageAttributes=bad_type), "ParameterValueInvalid", bad_type_msg),
        (sns.publish, dict(TopicArn=topic, Message='{"sqs": "q"}', MessageStructure="json"),
         "InvalidParameter", "Invalid parameter: Message Structure - No default entry in JSON message body"),
        (sns.publish, dict(TopicArn=topic, Message="not json", MessageStructure="json"),
         "InvalidParameter", "Invalid parameter: Message Structure - JSON message body failed to parse"),
        (sns.subscribe, dict(TopicArn=topic, Protocol="sqs", Endpoint=fifo_arn), "InvalidParameter",
         "Invalid parameter: Invalid parameter: Endpoint Reason: FIFO SQS Queues can not be subscribed to standard SNS topics"),
        (sns.publish_batch, dict(TopicArn=topic, PublishBatchRequestEntries=[{"Id": "a", "Message": "1"}, {"Id": "a", "Message": "2"}]),
         "BatchEntryIdsNotDistinct", "Two or more batch entries in the request have the same Id."),
        (sns.publish_batch, dict(TopicArn=topic, PublishBatchRequestEntries=[{"Id": str(i), "Message": "m"} for i in range(11)]),
         "TooManyEntriesInBatchRequest", "The batch request contains more entries than permissible."),
        (sns.publish_batch, dict(TopicArn=topic, PublishBatchRequestEntries=[{"Id": str(i), "Message": "x" * 100000} for i in range(3)]),
         "BatchRequestTooLong", "The length of all the messages put together is more than the limit."),
        (sns.publish_batch, dict(TopicArn=topic, PublishBatchRequestEntries=[
            {"Id": "ok", "Message": "m"}, {"Id": "bad", "Message": "m", "MessageAttributes": bad_type}]),
         "ParameterValueInvalid", bad_type_msg),
        (sns.add_permission, dict(TopicArn=topic, Label="l", AWSAccountId=["111111111111"], ActionName=["CreateTopic"]),
         "InvalidParameter", "Invalid parameter: Policy statement action out of service scope!"),
        (sns.confirm_subscription, dict(TopicArn=topic, Token="ab" * 64), "InvalidParameter", "Invalid parameter: Token"),
    ]
    for call, kwargs, code, message in cases:
        assert error_of(call, **kwargs) == (code, message), (call, kwargs)


def test_data_protection_policy(sns):
    topic = sns.create_topic(Name="boto3-" + uuid.uuid4().hex[:12])["TopicArn"]
    assert sns.get_data_protection_policy(ResourceArn=topic)["DataProtectionPolicy"] == ""
    policy = json.dumps({"Name": "basic", "Version": "2021-06-01", "Statement": [
        {"DataDirection": "Inbound", "Principal": ["*"],
         "DataIdentifier": ["arn:aws:dataprotection::aws:data-identifier/CreditCardNumber"], "Operation": {"Deny": {}}}]})
    sns.put_data_protection_policy(ResourceArn=topic, DataProtectionPolicy=policy)
    assert sns.get_data_protection_policy(ResourceArn=topic)["DataProtectionPolicy"] == policy
    assert error_of(sns.put_data_protection_policy, ResourceArn=topic, DataProtectionPolicy="[1]") == (
        "InvalidParameter", "Invalid parameter: DataProtectionPolicy Reason: the policy is not a valid JSON document")
    assert error_of(sns.get_data_protection_policy, ResourceArn=topic + "-missing") == ("NotFound", "Topic does not exist")


def test_sms_api_is_stored_per_account(sns):
    sns.set_sms_attributes(attributes={"DefaultSMSType": "Transactional", "DefaultSenderID": "Herald"})
    got = sns.get_sms_attributes(attributes=["DefaultSMSType"])["attributes"]
    assert got == {"DefaultSMSType": "Transactional"}
    with pytest.raises(ClientError) as e:
        sns.set_sms_attributes(attributes={"DefaultSMSType": "Urgent"})
    assert e.value.response["Error"]["Code"] == "InvalidParameter"
    assert sns.check_if_phone_number_is_opted_out(phoneNumber="+15555550142")["isOptedOut"] is False
    assert "phoneNumbers" in sns.list_phone_numbers_opted_out()
    sns.opt_in_phone_number(phoneNumber="+15555550142")
    assert sns.get_sms_sandbox_account_status()["IsInSandbox"] is False
    phone = "+1555555" + str(uuid.uuid4().int % 10000).zfill(4)
    sns.create_sms_sandbox_phone_number(PhoneNumber=phone, LanguageCode="en-GB")
    numbers = sns.list_sms_sandbox_phone_numbers()["PhoneNumbers"]
    assert {"PhoneNumber": phone, "Status": "Pending"} in numbers
    with pytest.raises(ClientError) as e:
        sns.verify_sms_sandbox_phone_number(PhoneNumber=phone, OneTimePassword="00000000")
    assert e.value.response["Error"]["Code"] == "VerificationException"
    sns.delete_sms_sandbox_phone_number(PhoneNumber=phone)
    with pytest.raises(ClientError) as e:
        sns.delete_sms_sandbox_phone_number(PhoneNumber=phone)
    assert e.value.response["Error"]["Code"] == "ResourceNotFound"


def test_email_and_sms_are_taken_without_their_relays(sns):
    # As on AWS: the subscriptions and the publish are taken; without
    # --smtp-addr or --sms-webhook-url their deliveries fail visibly.
    topic = sns.create_topic(Name="boto3-" + uuid.uuid4().hex[:12])["TopicArn"]
    for protocol, endpoint in [("email", "ops@example.com"), ("email-json", "ops@example.com")]:
        arn = sns.subscribe(TopicArn=topic, Protocol=protocol, Endpoint=endpoint)["SubscriptionArn"]
        assert arn == "pending confirmation"
    arn = sns.subscribe(TopicArn=topic, Protocol="sms", Endpoint="+15555550100")["SubscriptionArn"]
    assert arn.startswith(topic + ":")
    assert sns.publish(PhoneNumber="+15555550100", Message="hi")["MessageId"]


def test_mobile_push_api(sns, sqs):
    name = "boxes-" + uuid.uuid4().hex[:8]
    app = sns.create_platform_application(Name=name, Platform="HERALD", Attributes={})["PlatformApplicationArn"]
    assert app.endswith(":app/HERALD/" + name)
    assert sns.get_platform_application_attributes(PlatformApplicationArn=app)["Attributes"] == {"Enabled": "true"}
    sns.set_platform_application_attributes(PlatformApplicationArn=app, Attributes={"SuccessFeedbackSampleRate": "10"})
    assert sns.get_platform_application_attributes(PlatformApplicationArn=app)["Attributes"]["SuccessFeedbackSampleRate"] == "10"
    apps = [a["PlatformApplicationArn"] for a in sns.list_platform_applications()["PlatformApplications"]]
    assert app in apps

    # A HERALD token names the device's queue, created with the endpoint.
    token = "box-" + uuid.uuid4().hex[:8]
    ep = sns.create_platform_endpoint(PlatformApplicationArn=app, Token=token, CustomUserData="user 7")["EndpointArn"]
    assert ep.startswith(app.replace(":app/", ":endpoint/") + "/")
    assert sns.create_platform_endpoint(PlatformApplicationArn=app, Token=token, CustomUserData="user 7")["EndpointArn"] == ep
    assert error_of(sns.create_platform_endpoint, PlatformApplicationArn=app, Token=token, CustomUserData="user 8") == (
        "InvalidParameter", "Invalid parameter: Token Reason: Endpoint " + ep + " already exists with the same Token, but different attributes.")
    assert sns.get_endpoint_attributes(EndpointArn=ep)["Attributes"] == {"Token": token, "Enabled": "true", "CustomUserData": "user 7"}
    listed = sns.list_endpoints_by_platform_application(PlatformApplicationArn=app)["Endpoints"]
    assert [e["EndpointArn"] for e in listed] == [ep]

    url = sqs.get_queue_url(QueueName=token)["QueueUrl"]
    sns.publish(TargetArn=ep, MessageStructure="json", Message=json.dumps({"default": "plain", "HERALD": "for the box"}))
    got = receive(sqs, url, 1)
    assert [m["Body"] for m in got] == ["for the box"]

    sns.set_endpoint_attributes(EndpointArn=ep, Attributes={"Enabled": "false"})
    assert error_of(sns.publish, TargetArn=ep, Message="m") == ("EndpointDisabled", "Endpoint is disabled")
    sns.delete_endpoint(EndpointArn=ep)
    sns.delete_endpoint(EndpointArn=ep)  # idempotent, as on AWS
    assert error_of(sns.get_endpoint_attributes, EndpointArn=ep) == ("NotFound", "Endpoint does not exist")
    assert error_of(sns.publish, TargetArn=ep, Message="m") == (
        "InvalidParameter", "Invalid parameter: TargetArn Reason: No endpoint found for the target arn specified")

    sns.delete_platform_application(PlatformApplicationArn=app)
    assert error_of(sns.get_platform_application_attributes, PlatformApplicationArn=app) == (
        "NotFound", "PlatformApplication does not exist")


def test_mobile_push_errors(sns):
    assert error_of(sns.create_platform_application, Name="x", Platform="PIGEON", Attributes={}) == (
        "InvalidParameter", "Invalid parameter: Platform Reason: PIGEON is not supported")
    assert error_of(sns.create_platform_application, Name="ios", Platform="APNS", Attributes={"PlatformPrincipal": "cert"}) == (
        "InvalidParameter", "Invalid parameter: Attributes Reason: PlatformPrincipal attribute provided without PlatformCredential")
    # Without --push-gateway-url a GCM application is stored, and a publish
    # to its endpoint is taken, as on AWS (the push is given up).
    gcm = sns.create_platform_application(Name="android-" + uuid.uuid4().hex[:8], Platform="GCM",
                                          Attributes={"PlatformCredential": "server-key"})["PlatformApplicationArn"]
    assert "PlatformCredential" not in sns.get_platform_application_attributes(PlatformApplicationArn=gcm)["Attributes"]
    ep = sns.create_platform_endpoint(PlatformApplicationArn=gcm, Token="gcm-token")["EndpointArn"]
    assert sns.publish(TargetArn=ep, Message="m")["MessageId"]
    assert error_of(sns.create_platform_endpoint, PlatformApplicationArn=gcm, Token="t", Attributes={"Enabled": "maybe"}) == (
        "InvalidParameter", "Invalid parameter: Attributes Reason: Enabled: Invalid value [maybe]. Must be true or false.")
    assert error_of(sns.get_endpoint_attributes, EndpointArn="endpoint/GCM/x") == (
        "InvalidParameter", "Invalid parameter: EndpointArn Reason: An ARN must have at least 6 elements, not 1")
    sns.delete_platform_application(PlatformApplicationArn=gcm)
