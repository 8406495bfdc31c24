package redisindex

import (
	"testing"

	"github.com/heraldmq/herald/sqs"
	"github.com/heraldmq/herald/sqs/sqstest"
)

func TestIndexConformance(t *testing.T) {
	sqstest.RunIndex(t, func(t *testing.T) sqs.Index { return newIndex(t, Options{}).Index })
}
