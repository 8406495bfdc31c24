"""Regenerates the botocore Query-protocol fixtures of awsapi's tests.

botocore stopped shipping SQS's Query model when SQS moved to JSON 1.0, so
this needs the last Query-protocol service-2.json (botocore <= 1.34.x, e.g.
the copy under google-cloud-sdk/lib/third_party/botocore) laid out as
MODEL_DIR/sqs/2012-11-05/service-2.json, and any botocore to run it:

    python gen.py MODEL_DIR

It writes requests/<Action>.form, the exact body botocore's query
serializer sends for a representative call of every action, and
result_paths.json, the element paths botocore's query parser reads in each
action's <XxxResult> (a flattened list is its repeated member element, a
map its Name/Value or Key/Value entries).
"""
import json
import os
import sys
from urllib.parse import urlencode

import botocore.session
from botocore import serialize

HERE = os.path.dirname(os.path.abspath(__file__))
Q = 'http://localhost:9324/000000000000/orders'
DLQ = 'arn:aws:sqs:us-east-1:000000000000:dlq'

# One call of every action. Values include characters form encoding must
# carry (+ & = space, non-ASCII) and maps/lists of two entries.
CALLS = {
    'CreateQueue': {'QueueName': 'orders', 'Attributes': {'VisibilityTimeout': '60', 'Policy': '{"a": "b&c=d"}'},
                    'tags': {'team': 'core', 'env': 'prod + dev'}},
    'GetQueueUrl': {'QueueName': 'orders', 'QueueOwnerAWSAccountId': '111122223333'},
    'ListQueues': {'QueueNamePrefix': 'or', 'MaxResults': 5, 'NextToken': 'tok/1+='},
    'DeleteQueue': {'QueueUrl': Q},
    'GetQueueAttributes': {'QueueUrl': Q, 'AttributeNames': ['All', 'DelaySeconds']},
    'SetQueueAttributes': {'QueueUrl': Q, 'Attributes': {'DelaySeconds': '5', 'RedrivePolicy': '{"maxReceiveCount":"3"}'}},
    'PurgeQueue': {'QueueUrl': Q},
    'SendMessage': {'QueueUrl': Q, 'MessageBody': 'a+b & c=d \u00e9\u6f22\n', 'DelaySeconds': 3,
                    'MessageAttributes': {'color': {'DataType': 'String', 'StringValue': 'blue'},
                                          'blob': {'DataType': 'Binary.gif', 'BinaryValue': b'\x00\x01\xff'}},
                    'MessageSystemAttributes': {'AWSTraceHeader': {'DataType': 'String', 'StringValue': 'Root=1-abc'}},
                    'MessageDeduplicationId': 'dedup', 'MessageGroupId': 'group'},
    'SendMessageBatch': {'QueueUrl': Q, 'Entries': [
        {'Id': 'a', 'MessageBody': 'one', 'MessageAttributes': {'n': {'DataType': 'Number', 'StringValue': '7'}}},
        {'Id': 'b', 'MessageBody': 'two', 'DelaySeconds': 9, 'MessageGroupId': 'g', 'MessageDeduplicationId': 'd',
         'MessageSystemAttributes': {'AWSTraceHeader': {'DataType': 'String', 'StringValue': 'Root=2'}}}]},
    'ReceiveMessage': {'QueueUrl': Q, 'AttributeNames': ['All', 'SentTimestamp'], 'MessageAttributeNames': ['color', 'size.*'],
                       'MaxNumberOfMessages': 10, 'VisibilityTimeout': 45, 'WaitTimeSeconds': 20,
                       'ReceiveRequestAttemptId': 'attempt'},
    'DeleteMessage': {'QueueUrl': Q, 'ReceiptHandle': 'rh+/=1'},
    'DeleteMessageBatch': {'QueueUrl': Q, 'Entries': [{'Id': 'a', 'ReceiptHandle': 'rh-1'}, {'Id': 'b', 'ReceiptHandle': 'rh-2'}]},
    'ChangeMessageVisibility': {'QueueUrl': Q, 'ReceiptHandle': 'rh-1', 'VisibilityTimeout': 120},
    'ChangeMessageVisibilityBatch': {'QueueUrl': Q, 'Entries': [{'Id': 'a', 'ReceiptHandle': 'rh-1', 'VisibilityTimeout': 0},
                                                                 {'Id': 'b', 'ReceiptHandle': 'rh-2'}]},
    'TagQueue': {'QueueUrl': Q, 'Tags': {'team': 'core', 'env': ''}},
    'UntagQueue': {'QueueUrl': Q, 'TagKeys': ['team', 'env']},
    'ListQueueTags': {'QueueUrl': Q},
    'ListDeadLetterSourceQueues': {'QueueUrl': Q, 'MaxResults': 2, 'NextToken': 'n'},
    'StartMessageMoveTask': {'SourceArn': DLQ, 'DestinationArn': 'arn:aws:sqs:us-east-1:000000000000:src',
                             'MaxNumberOfMessagesPerSecond': 10},
    'ListMessageMoveTasks': {'SourceArn': DLQ, 'MaxResults': 3},
    'CancelMessageMoveTask': {'TaskHandle': 'task-1'},
    'AddPermission': {'QueueUrl': Q, 'Label': 'l1', 'AWSAccountIds': ['111122223333', '444455556666'],
                      'Actions': ['SendMessage', 'ReceiveMessage']},
    'RemovePermission': {'QueueUrl': Q, 'Label': 'l1'},
}


def result_paths(model, shape, prefix, out):
    """Adds the element paths botocore's query parser reads for shape."""
    for name, member in shape.members.items():
        path = prefix + '/' + member.serialization.get('name', name)
        # Flattened may be set on the member or on the list shape.
        if member.type_name == 'list' and member.serialization.get('flattened'):
            path = prefix + '/' + member.member.serialization.get('name', name)
            add_value(model, member.member, path, out)
        elif member.type_name == 'list':
            add_value(model, member.member, path + '/' + member.member.serialization.get('name', 'member'), out)
        elif member.type_name == 'map':
            entry = path if member.serialization.get('flattened') else path + '/entry'
            out.add(entry)
            add_value(model, member.key, entry + '/' + member.key.serialization.get('name', 'key'), out)
            add_value(model, member.value, entry + '/' + member.value.serialization.get('name', 'value'), out)
        else:
            add_value(model, member, path, out)


def add_value(model, shape, path, out):
    # SQS has no list of lists or maps, so only structures nest.
    out.add(path)
    if shape.type_name == 'structure':
        result_paths(model, shape, path, out)


def main():
    session = botocore.session.get_session()
    session.get_component('data_loader').search_paths.insert(0, sys.argv[1])
    model = session.get_service_model('sqs')
    if model.protocol != 'query':
        sys.exit('the model in %s is not the Query-protocol SQS model' % sys.argv[1])
    serializer = serialize.create_serializer('query')
    os.makedirs(os.path.join(HERE, 'requests'), exist_ok=True)
    paths = {}
    for op_name in model.operation_names:
        op = model.operation_model(op_name)
        req = serializer.serialize_to_request(CALLS[op_name], op)
        # AWSRequest encodes a dict body exactly so.
        body = urlencode([(k, str(v).encode('utf-8')) for k, v in req['body'].items()], doseq=True)
        with open(os.path.join(HERE, 'requests', op_name + '.form'), 'w') as f:
            f.write(body)
        wrapper = op.output_shape and op.output_shape.serialization.get('resultWrapper')
        if wrapper:
            out = set()
            result_paths(model, op.output_shape, wrapper, out)
            paths[op_name] = sorted(out)
    with open(os.path.join(HERE, 'result_paths.json'), 'w') as f:
        json.dump(paths, f, indent=1, sort_keys=True)
        f.write('\n')


if __name__ == '__main__':
    main()
