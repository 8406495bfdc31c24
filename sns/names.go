package sns

import (
	"crypto/sha1"
	"strings"

	"github.com/google/uuid"
)

// FIFOSuffix ends the name of every FIFO topic; it counts toward the
// 256-character limit.
const FIFOSuffix = ".fifo"

// MaxTopicNameLength is the longest topic name SNS accepts, suffix included.
const MaxTopicNameLength = 256

// IsFIFOName reports whether a topic name ends in the .fifo suffix.
func IsFIFOName(name string) bool { return strings.HasSuffix(name, FIFOSuffix) }

func isNameChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_'
}

// ValidateTopicName checks a topic name: 1 to 256 ASCII letters, digits,
// hyphens and underscores, where a FIFO topic's name ends in ".fifo". The
// error is AWS's InvalidParameter.
func ValidateTopicName(name string) error {
	base := strings.TrimSuffix(name, FIFOSuffix)
	if len(name) == 0 || len(name) > MaxTopicNameLength || base == "" {
		return ErrInvalidParameter("Topic Name")
	}
	for i := 0; i < len(base); i++ {
		if !isNameChar(base[i]) {
			return ErrInvalidParameter("Topic Name")
		}
	}
	return nil
}

// validAccount reports whether s can be the account part of an ARN: AWS
// uses 12 digits, Herald (as for queues) any 1 to 64 of [A-Za-z0-9_-].
func validAccount(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isNameChar(s[i]) {
			return false
		}
	}
	return true
}

// TopicARN returns arn:aws:sns:<region>:<account>:<name>.
func TopicARN(region, account, name string) string {
	return "arn:aws:sns:" + region + ":" + account + ":" + name
}

// SubscriptionARN returns <topic ARN>:<id>.
func SubscriptionARN(region, account, topic string, id uuid.UUID) string {
	return TopicARN(region, account, topic) + ":" + id.String()
}

// ParseTopicARN splits a topic ARN into region, account and name (any AWS
// partition). The error is InvalidParameter naming param.
//
// An ARN of fewer than six elements is refused as AWS refuses it ("An ARN
// must have at least 6 elements, not N").
func ParseTopicARN(arn, param string) (region, account, name string, err error) {
	p := strings.Split(arn, ":")
	if len(p) < 6 {
		return "", "", "", errARNElements(param, len(p))
	}
	if len(p) != 6 || p[0] != "arn" || p[1] == "" || p[2] != "sns" || p[3] == "" ||
		!validAccount(p[4]) || ValidateTopicName(p[5]) != nil {
		return "", "", "", ErrInvalidParameter("%s", param)
	}
	return p[3], p[4], p[5], nil
}

// ParseSubscriptionARN splits a subscription ARN into its topic's region,
// account and name and the subscription id. The error is InvalidParameter
// naming param.
func ParseSubscriptionARN(arn, param string) (region, account, topic string, id uuid.UUID, err error) {
	if n := strings.Count(arn, ":") + 1; n < 6 {
		return "", "", "", uuid.Nil, errARNElements(param, n)
	}
	i := strings.LastIndexByte(arn, ':')
	if i < 0 {
		return "", "", "", uuid.Nil, ErrInvalidParameter("%s", param)
	}
	id, perr := uuid.Parse(arn[i+1:])
	if perr != nil || len(arn[i+1:]) != 36 {
		return "", "", "", uuid.Nil, ErrInvalidParameter("%s", param)
	}
	region, account, topic, err = ParseTopicARN(arn[:i], param)
	return region, account, topic, id, err
}

// subscriptionID is the id of the subscription of (protocol, endpoint) to
// a topic: a name-based UUID, so that subscribing the same endpoint twice
// finds the existing subscription with one read instead of a scan.
func subscriptionID(topicID uuid.UUID, protocol, endpoint string) uuid.UUID {
	return uuid.NewHash(sha1.New(), topicID, []byte(protocol+"\x00"+endpoint), 5)
}

// messageIDFor turns the ID of the internal publish job (a version 1 UUID
// chosen by the queue service) into the SNS MessageId: a version 4 UUID,
// the form AWS uses, derived by hashing so that every worker (and the
// answer to a deduplicated FIFO publish) names the same MessageId.
func messageIDFor(jobID string) string {
	sum := sha1.Sum([]byte("herald-sns-message\x00" + jobID))
	var u uuid.UUID
	copy(u[:], sum[:16])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return u.String()
}
