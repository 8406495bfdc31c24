// Package filter compiles and evaluates Amazon SNS subscription filter
// policies.
//
// Parse checks a policy against the rules AWS documents (JSON object of at
// most 256 KB of UTF-8; at most five keys, counting top-level keys for the
// MessageBody scope; at most 150 value combinations; no nesting for the
// MessageAttributes scope; numbers within ±1e9) and compiles it. A compiled
// Policy is immutable and safe for concurrent use.
//
// Matching follows the documented semantics: keys of one object are ANDed,
// the values listed for a key are ORed, and "$or" ORs whole sub-policies at
// any level. Values are exact strings, numbers (compared numerically, to
// five decimal places), true, false or null, or one of the operators
// prefix, suffix, equals-ignore-case, anything-but (a list, one value, or
// {"prefix": ...} / {"suffix": ...}), numeric (=, <, <=, >, >= and ranges),
// exists and cidr.
//
// Array values (String.Array attributes, arrays in a message body) match a
// positive condition when any element matches it; anything-but matches an
// array when none of its elements is excluded. Binary attributes are never
// compared: for the policy they do not exist. A message with no attributes
// (or an empty JSON object as body) matches no policy, not even
// {"key": [{"exists": false}]}, as AWS documents for exists.
//
// Parse errors are *Error values whose text is the part of the AWS message
// after "Invalid parameter: FilterPolicy: ".
package filter
