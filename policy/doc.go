// Package policy reads AWS resource-based access policies (the JSON of an SQS
// queue's Policy attribute or an SNS topic's Policy) and evaluates requests
// against them, as AWS does for cross-account access: an explicit Deny wins,
// then an Allow, else the policy does not apply.
//
// Parse checks a document strictly and reports the first problem as an
// *Error naming the member at fault (for example
// `Statement[1].Effect: must be "Allow" or "Deny", got "Permit"`). A
// document is an object with an optional Version ("2012-10-17" or
// "2008-10-17"), an optional Id and a Statement that is one object or a
// non-empty array of them. Member names are case-sensitive, a member may
// appear only once, unknown members are errors, and documents larger than
// 20,480 bytes (the SQS limit) are refused. The empty string is an empty
// policy, which applies to nothing.
//
// A statement has an Effect (Allow or Deny), exactly one of Principal and
// NotPrincipal, exactly one of Action and NotAction, at most one of Resource
// and NotResource (neither means every resource), an optional Condition and
// an optional Sid. A statement applies to a Request when its principal, its
// action, its resource and every one of its conditions match.
//
// Principals are "*", or an object with the types AWS and Service, each a
// string or an array of strings. An AWS entry is "*" (everyone, including
// anonymous callers and services), an account ID, or an IAM ARN of an
// account: arn:PARTITION:iam::ACCOUNT:root, :user/NAME, :role/NAME, or
// arn:PARTITION:sts::ACCOUNT:assumed-role/NAME. Herald has no IAM users, so
// every such ARN stands for its account and is compared with
// Request.Account. Account IDs are AWS's twelve digits or Herald account
// names (letters, digits, '-' and '_', at most 64). A Service entry is
// compared, ignoring case, with Request.Service. An anonymous request
// (empty Account and Service) is matched only by the "*" forms.
// NotPrincipal applies to every request that none of its entries match.
// Other principal types (CanonicalUser, Federated) are errors.
//
// Actions are "*" or SERVICE:NAME patterns compared ignoring case, so
// "SQS:SendMessage", "sqs:sendmessage" and "sqs:Send*" all match
// "sqs:SendMessage". Resources are "*" or ARN patterns compared with case.
// In both, '*' matches any run of characters and '?' exactly one.
//
// Conditions are operator -> key -> value(s). All operators of a statement
// and all keys under an operator must hold; the values given for one key
// are alternatives. Keys are looked up in Request.Context ignoring case (if
// the context holds one key under several spellings, the spelling that
// sorts first is used). Values may be strings, numbers or booleans, alone
// or in an array. The operators are StringEquals, StringNotEquals,
// StringEqualsIgnoreCase, StringNotEqualsIgnoreCase, StringLike,
// StringNotLike, ArnEquals, ArnNotEquals, ArnLike, ArnNotLike, Bool, Null,
// NumericEquals, NumericNotEquals, NumericLessThan, NumericLessThanEquals,
// NumericGreaterThan and NumericGreaterThanEquals, each but Null also with
// the IfExists suffix. Operator names are case-sensitive.
//
// When the key is missing from the context, a positive operator fails, a
// negated one (StringNotEquals, StringNotLike, ArnNotLike, NumericNotEquals
// and the like) holds, and any operator with IfExists holds. Null "true"
// holds when the key is missing, Null "false" when it is present.
// ArnEquals and ArnLike are the same test, as on AWS: both values must
// have the six colon-separated parts of an ARN (the last may itself hold
// colons) and each part is matched separately with wildcards. A context
// value that is not a finite number fails every Numeric operator, the
// negated one included.
//
// Not supported, and refused by Parse: the set operators (ForAllValues:,
// ForAnyValue:), the Date, IpAddress and Binary operators, and principal
// types other than AWS and Service. Policy variables such as
// ${aws:username} are not expanded; they are compared as written.
//
// Wildcard matching backtracks only to the last '*' seen, so its cost is
// at most the product of the pattern's and the value's lengths.
package policy
